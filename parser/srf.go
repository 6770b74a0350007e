package parser

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// SetFuncMarker is the function the pass wraps a set-returning function
// in FROM with, since TiDB's grammar has no function calls there:
// `unnest(a) WITH ORDINALITY AS u(x, n)` becomes the lateral derived
// table `LATERAL (SELECT __srf(unnest(a), 1)) AS u(x, n)`, whose second
// argument says WITH ORDINALITY. The call's arguments stay where the user
// wrote them, so every other rewrite of the pass applies to them; a FROM
// item without an alias gets the function's name, as in Postgres. The
// planner reads the marker back (SetFuncOf) and Restore writes the
// Postgres form.
const SetFuncMarker = "__srf"

// notAlias are the words that may follow a FROM item and are not its
// alias.
var notAlias = map[string]bool{
	"ON": true, "USING": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true,
	"JOIN": true, "CROSS": true, "LEFT": true, "RIGHT": true, "INNER": true, "FULL": true, "NATURAL": true,
	"STRAIGHT_JOIN": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "WINDOW": true, "OFFSET": true,
	"FETCH": true, "FOR": true, "EMIT": true, "ALLOWED": true, "LATE": true, "STATE": true, "OUTER": true,
}

// setFunc rewrites the set-returning function called at i in FROM (after
// LATERAL when prev is LATERAL) into SetFuncMarker's lateral derived
// table. It records where the call's tail (WITH ORDINALITY) ends, so run
// skips those tokens once it reaches the closing parenthesis.
func (q *queryRewrite) setFunc(i int, prev token) {
	t := q.toks[i]
	closeIdx := q.match[i+1]
	if closeIdx < 0 {
		return // unbalanced: TiDB reports it
	}
	head := "LATERAL (SELECT " + SetFuncMarker + "("
	if prev.is("LATERAL") {
		head = "(SELECT " + SetFuncMarker + "("
	}
	q.rw.insert(t.off, head)
	last, tail := closeIdx, ", 0))"
	if closeIdx+2 < len(q.toks) && q.toks[closeIdx+1].is("WITH") && q.toks[closeIdx+2].is("ORDINALITY") {
		last, tail = closeIdx+2, ", 1))"
	}
	if !q.hasAlias(last + 1) {
		tail += " AS " + strings.ToLower(t.text)
	}
	q.rw.replace(q.toks[closeIdx].end, q.toks[last].end, tail)
	if last != closeIdx {
		q.skip[closeIdx] = last
	}
}

// hasAlias reports whether the token at i starts a FROM item's alias.
func (q *queryRewrite) hasAlias(i int) bool {
	if i >= len(q.toks) {
		return false
	}
	t := q.toks[i]
	switch t.kind {
	case tQIdent:
		return true
	case tIdent:
		return t.is("AS") || !notAlias[strings.ToUpper(t.text)]
	}
	return false
}

// SetFuncOf returns the set-returning call and WITH ORDINALITY of a FROM
// item the pass rewrote (see SetFuncMarker); ok is false for any other.
func SetFuncOf(ts *ast.TableSource) (call *ast.FuncCallExpr, ordinality, ok bool) {
	sel, isSel := ts.Source.(*ast.SelectStmt)
	if !ts.Lateral || !isSel || sel.From != nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return nil, false, false
	}
	m, isCall := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	if !isCall || m.FnName.L != SetFuncMarker || len(m.Args) != 2 {
		return nil, false, false
	}
	call, isCall = m.Args[0].(*ast.FuncCallExpr)
	flag, isVal := m.Args[1].(ast.ValueExpr)
	if !isCall || !isVal {
		return nil, false, false
	}
	return call, flag.GetValue() != int64(0), true
}

// restoreSetFunc puts back the Postgres form of the marker's derived
// table whose marker name is token k of lx (Restore's text): it drops
// `(SELECT __srf(` and turns `, n))` into ` WITH ORDINALITY` or nothing.
func restoreSetFunc(rw *rewriter, toks []token, k int) {
	if k < 2 || k+1 >= len(toks) || !toks[k-1].is("SELECT") || !toks[k-2].isOp("(") || !toks[k+1].isOp("(") {
		return
	}
	m := matchParens(toks)[k+1]
	if m < 3 || m+1 >= len(toks) || !toks[m-2].isOp(",") || !toks[m+1].isOp(")") {
		return
	}
	tail := ""
	if toks[m-1].text != "0" {
		tail = " WITH ORDINALITY"
	}
	// Unpadded edits: Restore's text has no offsets to keep.
	rw.edits = append(rw.edits, edit{toks[k-2].off, toks[k+1].end, ""}, edit{toks[m-2].off, toks[m+1].end, tail})
}
