package parser

import (
	"fmt"
	"io"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/streamsql/streamsql/sqlerr"
)

// ParamExpr is the Postgres parameter $N of a statement the wire server
// prepares. TiDB's grammar takes `$1` for a column name and refuses it
// where only a constant may stand (LIMIT $1), so the pass hands TiDB a
// `?` marker in its place (markParams) and puts a ParamExpr, which
// keeps the number, where TiDB's marker landed (paramsBack). The planner
// binds it to the value Execute supplies, as a typed constant: the
// statement's text is never rewritten with the values. Restore writes
// `$N` back.
type ParamExpr struct {
	ast.TexprNode
	N int
}

// Restore implements ast.Node.
func (n *ParamExpr) Restore(ctx *format.RestoreCtx) error {
	ctx.WritePlainf("$%d", n.N)
	return nil
}

// Format implements ast.ExprNode.
func (n *ParamExpr) Format(w io.Writer) { fmt.Fprintf(w, "$%d", n.N) }

// Accept implements ast.Node.
func (n *ParamExpr) Accept(v ast.Visitor) (ast.Node, bool) {
	newNode, _ := v.Enter(n)
	return v.Leave(newNode)
}

// markParams replaces each $n of toks (the `$` operator token and the
// number right after it) with a `?` padded to the same length, so the
// marker's offset in TiDB's text is the offset of its `$` in the script.
// A CREATE FUNCTION body keeps its $n: they name the function's own
// parameters (planner/function.go).
func (p *stmtParser) markParams(rw *rewriter, toks []token) {
	if p.inFunction {
		return
	}
	for i := 0; i+1 < len(toks); i++ {
		t, n := toks[i], toks[i+1]
		switch {
		case t.isOp("$") && n.kind == tNumber && n.off == t.end && isDigits(n.text):
			rw.replace(t.off, n.end, "?")
			rw.params++
			i++
		case (t.is("LIMIT") || t.is("OFFSET")) && n.kind == tString && n.text[0] == '\'' && isDigits(n.text[1:len(n.text)-1]):
			// LIMIT '3': Postgres reads the untyped string as a bigint
			// (clients that inline parameters write them so); TiDB
			// takes only the number.
			rw.replace(n.off, n.end, n.text[1:len(n.text)-1])
			i++
		case t.is("LIMIT") && (n.is("NULL") || n.is("ALL")):
			// LIMIT NULL and LIMIT ALL are no limit (TiDB has neither,
			// and wants a LIMIT before an OFFSET).
			rw.replace(n.off, n.end, "9223372036854775807")
			i++
		case t.is("OFFSET") && n.is("NULL"):
			rw.blank(t.off, n.end) // no offset
			i++
		}
	}
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// paramsBack replaces TiDB's `?` markers in node by ParamExprs, reading
// each one's number from the script at the marker's offset (m maps it
// back). A `?` the user wrote is not a parameter: it is refused.
func (p *stmtParser) paramsBack(node ast.Node, m offsetMap, end int) *sqlerr.Error {
	v := &paramsVisitor{p: p, m: m, bad: -1}
	node.Accept(v)
	if v.bad >= 0 {
		return p.src.syntaxErr(v.bad, end, "")
	}
	return nil
}

type paramsVisitor struct {
	p   *stmtParser
	m   offsetMap
	bad int
}

func (v *paramsVisitor) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (v *paramsVisitor) Leave(n ast.Node) (ast.Node, bool) {
	pm, ok := n.(*driver.ParamMarkerExpr)
	if !ok {
		return n, true
	}
	off := v.m.orig(pm.Offset)
	src := v.p.src.text
	num := 0
	j := off + 1
	for j < len(src) && isDigit(src[j]) && num <= 1<<20 {
		num = num*10 + int(src[j]-'0')
		j++
	}
	if off >= len(src) || src[off] != '$' || num < 1 {
		if v.bad < 0 || off < v.bad {
			v.bad = off
		}
		return n, true
	}
	return &ParamExpr{N: num}, true
}
