package parser

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// createFunction parses CREATE [OR REPLACE] FUNCTION name(params) RETURNS
// type, its options (LANGUAGE SQL, IMMUTABLE, PARALLEL ...) in any order,
// and a body: AS $$ SELECT expr $$ (or AS 'SELECT expr') or RETURN expr.
// TiDB knows none of it; the body's expression is parsed as a query
// `SELECT expr` over tokens that keep their script offsets, so errors
// inside a $$ body point into the user's text.
func (p *stmtParser) createFunction(c *cursor) (Stmt, *sqlerr.Error) {
	s := &CreateFunctionStmt{StmtBase: p.base(c.toks)}
	p.inFunction = true
	c.next()
	s.OrReplace = c.accept("OR", "REPLACE")
	if err := c.expect("FUNCTION"); err != nil {
		return nil, err
	}
	var err *sqlerr.Error
	if s.Name, _, err = c.name("a function name"); err != nil {
		return nil, err
	}
	if s.Params, err = c.funcParams(); err != nil {
		return nil, err
	}
	if err := c.expect("RETURNS"); err != nil {
		return nil, err
	}
	if s.Returns, err = c.typeName(); err != nil {
		return nil, err
	}
	for !c.atEOF() {
		t := c.peek(0)
		switch {
		case t.is("LANGUAGE"):
			c.next()
			l := c.next()
			if !l.is("SQL") && !(l.kind == tString && strings.EqualFold(l.val(), "sql")) {
				return nil, p.src.unsupported(l.off, "LANGUAGE "+l.val())
			}
		case t.is("IMMUTABLE"):
			c.next()
		case t.is("STABLE") || t.is("VOLATILE"):
			return nil, p.src.unsupported(t.off, strings.ToUpper(t.text)+" functions (a SQL function is inlined: it must be IMMUTABLE)")
		case t.is("STRICT") || c.peek(0).is("RETURNS") && c.peek(1).is("NULL"):
			return nil, p.src.unsupported(t.off, "STRICT (a SQL function is inlined and runs on NULL input)")
		case t.is("CALLED"):
			if !c.accept("CALLED", "ON", "NULL", "INPUT") {
				return nil, c.errAt(c.peek(1), "expected CALLED ON NULL INPUT")
			}
		case t.is("PARALLEL"):
			c.next()
			if v := c.next(); !v.is("SAFE") && !v.is("RESTRICTED") && !v.is("UNSAFE") {
				return nil, c.errAt(v, "expected SAFE, RESTRICTED or UNSAFE")
			}
		case t.is("AS"):
			c.next()
			if s.Body != nil {
				return nil, c.errAt(t, "the function has two bodies")
			}
			if err := p.stringBody(c, s); err != nil {
				return nil, err
			}
		case t.is("RETURN"):
			if s.Body != nil {
				return nil, c.errAt(t, "the function has two bodies")
			}
			c.next()
			if c.atEOF() {
				return nil, c.errAt(c.peek(0), "expected an expression after RETURN")
			}
			if err := p.exprBody(s, c.toks[c.i:], "SELECT "); err != nil {
				return nil, err
			}
			c.i = len(c.toks)
		default:
			return nil, c.errAt(t, "expected LANGUAGE, IMMUTABLE, AS or RETURN")
		}
	}
	if s.Body == nil {
		return nil, c.errAt(c.peek(0), "expected the function body: AS $$ SELECT expression $$ or RETURN expression")
	}
	return s, nil
}

// funcParams parses the parenthesised parameter list: each `[name] type`.
func (c *cursor) funcParams() ([]FuncParam, *sqlerr.Error) {
	if err := c.expectOp("("); err != nil {
		return nil, err
	}
	var out []FuncParam
	if c.acceptOp(")") {
		return out, nil
	}
	for {
		t := c.peek(0)
		prm := FuncParam{Pos: c.p.src.pos(t.off)}
		c.accept("IN")
		// `name type` or a bare type: try the first, fall back to the second.
		at := c.i
		name, _, err := c.name("a parameter name")
		if err == nil {
			prm.Type, err = c.typeName()
		}
		if err != nil {
			c.i = at
			var err2 *sqlerr.Error
			if prm.Type, err2 = c.typeName(); err2 != nil {
				return nil, furthest(err, err2)
			}
			name = ""
		}
		prm.Name = name
		out = append(out, prm)
		if c.acceptOp(")") {
			return out, nil
		}
		if err := c.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// furthest returns the error further into the text.
func furthest(a, b *sqlerr.Error) *sqlerr.Error {
	if b.Pos.Offset > a.Pos.Offset {
		return b
	}
	return a
}

// typeName parses a type as a column's.
func (c *cursor) typeName() (types.Column, *sqlerr.Error) {
	var col ColumnDef
	if err := c.columnType(&col); err != nil {
		return types.Column{}, err
	}
	return types.Column{Type: col.Type, Precision: col.Precision, Scale: col.Scale}, nil
}

// stringBody parses the string after AS: a dollar-quoted string, or a
// '...' string without doubled quotes (its text is then the script's,
// so positions inside it hold). The text must be one SELECT.
func (p *stmtParser) stringBody(c *cursor, s *CreateFunctionStmt) *sqlerr.Error {
	t := c.next()
	var off int
	switch {
	case t.kind == tDollar:
		off = t.off + len(dollarOpen(t.text))
	case t.kind == tString && !t.isEString() && !strings.Contains(t.text[1:len(t.text)-1], "''"):
		off = t.off + 1
	case t.kind == tString:
		return p.src.unsupported(t.off, "a quoted function body with escapes (write it as $$ ... $$)")
	default:
		return c.errAt(t, "expected the function body as $$ SELECT expression $$")
	}
	body := t.val()
	lx := lex(body)
	if lx.errOff >= 0 {
		lx.errOff += off
		return lx.err(p.src, t.end)
	}
	toks := lx.toks
	for i := range toks {
		toks[i].off += off
		toks[i].end += off
	}
	if n := len(toks); n > 0 && toks[n-1].isOp(";") {
		toks = toks[:n-1]
	}
	if len(toks) == 0 {
		return p.src.syntaxErr(t.off, t.end, "the function body is empty")
	}
	for _, b := range toks {
		if b.isOp(";") {
			return &sqlerr.Error{Code: sqlerr.FeatureNotSupport, Pos: p.src.pos(b.off),
				Msg: fmt.Sprintf("a SQL function body of more than one statement is not supported (line %d, column %d)", p.src.pos(b.off).Line, p.src.pos(b.off).Col)}
		}
	}
	if !toks[0].is("SELECT") {
		return p.src.unsupported(toks[0].off, "a SQL function body other than SELECT expression")
	}
	return p.exprBody(s, toks, "")
}

// exprBody parses toks as the body: prefix "SELECT " for a RETURN
// expression, "" for a body that is a SELECT. It refuses what is not one
// scalar expression of the parameters.
func (p *stmtParser) exprBody(s *CreateFunctionStmt, toks []token, prefix string) *sqlerr.Error {
	end := toks[len(toks)-1].end
	q, err := p.parseQueryPrefixed(toks, end, prefix)
	if err != nil {
		return err
	}
	if err := p.checkBody(q, toks, end); err != nil {
		return err
	}
	if f := q.Select.(*ast.SelectStmt).Fields.Fields[0]; prefix != "" && f.AsName.O != "" {
		return p.src.syntaxErr(topLevel(toks, "AS"), end, "RETURN takes an expression, without an alias")
	}
	s.Body = q
	s.BodyPos = p.src.pos(toks[0].off)
	s.BodyText = strings.TrimPrefix(q.Restore(), "SELECT ")
	return nil
}

// bodyClauses are the clauses a scalar function body may not have, with
// the keyword that starts each.
var bodyClauses = []struct {
	kw  string
	has func(*ast.SelectStmt) bool
}{
	{"FROM", func(s *ast.SelectStmt) bool { return s.From != nil }},
	{"WHERE", func(s *ast.SelectStmt) bool { return s.Where != nil }},
	{"GROUP", func(s *ast.SelectStmt) bool { return s.GroupBy != nil }},
	{"HAVING", func(s *ast.SelectStmt) bool { return s.Having != nil }},
	{"WINDOW", func(s *ast.SelectStmt) bool { return len(s.WindowSpecs) > 0 }},
	{"ORDER", func(s *ast.SelectStmt) bool { return s.OrderBy != nil }},
	{"LIMIT", func(s *ast.SelectStmt) bool { return s.Limit != nil }},
	{"DISTINCT", func(s *ast.SelectStmt) bool { return s.Distinct }},
}

// checkBody refuses a body that is not `SELECT expression` of one scalar
// expression: clauses, several columns, aggregates, window functions and
// subqueries (the function is inlined into the expression that calls it).
func (p *stmtParser) checkBody(q *QueryStmt, toks []token, end int) *sqlerr.Error {
	sel, ok := q.Select.(*ast.SelectStmt)
	if !ok || sel.With != nil {
		return p.src.unsupported(toks[0].off, "a SQL function body other than SELECT expression")
	}
	for _, cl := range bodyClauses {
		if cl.has(sel) {
			return p.src.unsupported(topLevel(toks, cl.kw), cl.kw+" in a SQL function body (only scalar expressions of the parameters are supported)")
		}
	}
	if sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.Fields.Fields[0].WildCard != nil {
		pos := p.src.pos(toks[0].off)
		return &sqlerr.Error{Code: sqlerr.InvalidFunctionDef, Pos: pos,
			Msg: fmt.Sprintf("a SQL function body returns one column (line %d, column %d)", pos.Line, pos.Col)}
	}
	v := &bodyVisitor{}
	sel.Fields.Fields[0].Expr.Accept(v)
	if v.what != "" {
		return p.src.unsupported(callAt(toks, v.fn), v.what+" in a SQL function body")
	}
	return nil
}

// topLevel returns the offset of keyword kw outside parentheses in toks,
// or of the first token.
func topLevel(toks []token, kw string) int {
	depth := 0
	for _, t := range toks {
		switch {
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			depth--
		case depth == 0 && t.is(kw):
			return t.off
		}
	}
	return toks[0].off
}

// callAt returns the offset of the call of fn (a name followed by "("),
// or of `(SELECT` when fn is "", or of the first token.
func callAt(toks []token, fn string) int {
	for i := 0; i+1 < len(toks); i++ {
		if fn != "" && toks[i].is(fn) && toks[i+1].isOp("(") {
			return toks[i].off
		}
		if fn == "" && toks[i].isOp("(") && (toks[i+1].is("SELECT") || toks[i+1].is("WITH")) {
			return toks[i].off
		}
	}
	return toks[0].off
}

// bodyVisitor finds the first aggregate, window function or subquery.
type bodyVisitor struct {
	what string // what was found, "" when nothing
	fn   string // the function's name, "" for a subquery
}

// Enter implements ast.Visitor.
func (v *bodyVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if v.what != "" {
		return n, true
	}
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		v.what, v.fn = "aggregate function "+x.F, x.F
	case *ast.WindowFuncExpr:
		v.what, v.fn = "window function "+x.Name, x.Name
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		v.what = "a subquery"
	}
	return n, v.what != ""
}

// Leave implements ast.Visitor.
func (v *bodyVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// dropFunction parses DROP FUNCTION [IF EXISTS] name [(types)].
func (p *stmtParser) dropFunction(c *cursor) (Stmt, *sqlerr.Error) {
	s := &DropFunctionStmt{StmtBase: p.base(c.toks)}
	c.i += 2
	s.IfExists = c.accept("IF", "EXISTS")
	var err *sqlerr.Error
	if s.Name, _, err = c.name("a function name"); err != nil {
		return nil, err
	}
	if c.peek(0).isOp("(") {
		prms, err := c.funcParams()
		if err != nil {
			return nil, err
		}
		s.Args = []types.Column{}
		for _, prm := range prms {
			s.Args = append(s.Args, prm.Type)
		}
	}
	return s, c.done()
}
