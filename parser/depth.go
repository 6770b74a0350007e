package parser

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
)

// A statement may nest at most sqlerr.MaxDepth levels. Two checks keep
// deeper ones from reaching anything that recurses:
//
//   - The lexer counts open parentheses and CASEs per statement and stops
//     at the first one beyond the limit, before the tokens of a huge
//     nested statement are even allocated.
//   - After TiDB (a table-driven parser that does not recurse) builds the
//     tree, depthVisitor measures it; chains without brackets (`1+1+…`,
//     `NOT NOT …`, `a OR b OR …`) nest one level per operator.
//
// The binder checks the depth again for trees that did not come through
// Parse.

// add appends t and tracks the nesting of the current statement. It
// reports false, with the error recorded, when t opens a level beyond
// sqlerr.MaxDepth.
func (r *lexResult) add(t token) bool {
	switch {
	case t.isOp("(") || t.is("CASE"):
		r.depth++
		if r.depth > sqlerr.MaxDepth {
			r.errOff, r.errMsg, r.tooDeep = t.off, "parentheses and CASE expressions", true
			return false
		}
	case t.isOp(")") || t.is("END"):
		r.depth = max(0, r.depth-1)
	case t.isOp(";"):
		r.depth = 0
	}
	r.toks = append(r.toks, t)
	return true
}

// err returns the recorded lexical error of src, which ends at limit.
func (r *lexResult) err(src *source, limit int) *sqlerr.Error {
	if r.tooDeep {
		return sqlerr.TooDeep(src.pos(r.errOff), r.errMsg)
	}
	return src.syntaxErr(r.errOff, limit, r.errMsg)
}

// depthVisitor measures how deeply a TiDB tree nests without recursing
// past the limit: below it, it skips the children.
type depthVisitor struct {
	depth   int
	tooDeep bool
}

// Enter implements ast.Visitor.
func (v *depthVisitor) Enter(n ast.Node) (ast.Node, bool) {
	v.depth++
	if v.depth > sqlerr.MaxDepth {
		v.tooDeep = true
	}
	return n, v.tooDeep
}

// Leave implements ast.Visitor.
func (v *depthVisitor) Leave(n ast.Node) (ast.Node, bool) {
	v.depth--
	return n, true
}

// checkDepth refuses a TiDB tree that nests deeper than sqlerr.MaxDepth;
// off is where its statement starts.
func (p *stmtParser) checkDepth(n ast.Node, off int) *sqlerr.Error {
	v := &depthVisitor{}
	n.Accept(v)
	if v.tooDeep {
		return sqlerr.TooDeep(p.src.pos(off), "expressions")
	}
	return nil
}
