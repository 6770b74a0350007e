package engine

import (
	"context"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Describe returns the columns a statement would return, without running
// it (nil for statements that return no rows): a wire server's answer to
// Describe. Queries are planned, not executed; SHOW, DESCRIBE and EXPLAIN
// are read-only and run. The text must be one statement with parameters
// already replaced (by NULL, say).
func (e *Engine) Describe(ctx context.Context, sql string) (types.Schema, error) {
	stmts, err := parser.Parse(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, sqlerr.New(sqlerr.SyntaxError, "cannot describe %d statements at once", len(stmts))
	}
	if err := e.mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	switch st := stmts[0].(type) {
	case *parser.QueryStmt:
		n, err := planner.BuildQuery(st, e.queryResolver(), true, e.timeZone())
		if err != nil {
			return nil, err
		}
		return n.Schema(), nil
	case *parser.ShowStmt, *parser.DescribeStmt, *parser.ExplainStmt:
		res, err := e.execStmt(ctx, st)
		if err != nil {
			return nil, err
		}
		return res.Schema, nil
	}
	return nil, nil
}

// ParamKinds infers the kinds of the Postgres parameters ($1, $2, ...) of
// one statement from where they stand: an INSERT value takes its target
// column's kind, a parameter compared with a column (=, <>, <, <=, >, >=,
// IN, BETWEEN) takes that column's kind, an argument of a SQL function
// its parameter's. Parameters it cannot place are
// absent from the map (the caller treats them as text, which compares
// with any column). Errors are swallowed: the statement's own execution
// reports them, and so does a ctx that ends while it waits for the engine.
func (e *Engine) ParamKinds(ctx context.Context, sql string) map[int]types.Kind {
	out := map[int]types.Kind{}
	stmts, err := parser.Parse(sql)
	if err != nil || len(stmts) != 1 {
		return out
	}
	if e.mu.LockContext(ctx) != nil {
		return out
	}
	defer e.mu.Unlock()
	switch st := stmts[0].(type) {
	case *parser.InsertStmt:
		o, ok := e.cat.Get(st.Table)
		if !ok {
			return out
		}
		cols := o.InputColumns()
		if len(st.Columns) > 0 {
			cols = nil
			for _, c := range st.Columns {
				cols = append(cols, o.Schema.Index(c))
			}
		}
		for _, row := range st.Rows {
			for j, ex := range row {
				if n := paramNumber(ex); n > 0 && j < len(cols) && cols[j] >= 0 {
					out[n] = o.Schema[cols[j]].Type
				}
			}
		}
	case *parser.QueryStmt:
		v := &paramVisitor{e: e, out: out}
		st.Select.Accept(v)
		v.resolve()
	case *parser.ExplainStmt:
		if q, ok := st.Stmt.(*parser.QueryStmt); ok {
			v := &paramVisitor{e: e, out: out}
			q.Select.Accept(v)
			v.resolve()
		}
	}
	return out
}

// paramNumber returns n for the column reference "$n" (TiDB reads a
// Postgres parameter as a column name), else 0.
func paramNumber(ex ast.ExprNode) int {
	c, ok := ex.(*ast.ColumnNameExpr)
	if !ok || c.Name.Table.L != "" {
		return 0
	}
	s := c.Name.Name.O
	if len(s) < 2 || s[0] != '$' {
		return 0
	}
	n := 0
	for _, r := range s[1:] {
		if r < '0' || r > '9' || n > 1<<20 {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// paramVisitor collects the tables a query reads and the column each
// parameter is compared with.
type paramVisitor struct {
	e       *Engine
	out     map[int]types.Kind
	tables  []string
	aliases map[string]string // alias → table name
	pairs   []paramPair
}

type paramPair struct {
	param int
	col   *ast.ColumnName
}

func (v *paramVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.TableName:
		v.tables = append(v.tables, x.Name.O)
	case *ast.TableSource:
		if tn, ok := x.Source.(*ast.TableName); ok && x.AsName.L != "" {
			if v.aliases == nil {
				v.aliases = map[string]string{}
			}
			v.aliases[x.AsName.L] = tn.Name.O
		}
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ:
			v.pair(x.L, x.R)
			v.pair(x.R, x.L)
		}
	case *ast.PatternInExpr:
		for _, item := range x.List {
			v.pair(item, x.Expr)
		}
	case *ast.BetweenExpr:
		v.pair(x.Left, x.Expr)
		v.pair(x.Right, x.Expr)
	case *ast.FuncCallExpr:
		// an argument of a SQL function takes its parameter's type
		if f, ok := v.e.cat.Function(x.FnName.O); ok && len(x.Args) == len(f.Params) {
			for i, a := range x.Args {
				if p := paramNumber(a); p > 0 {
					v.out[p] = f.Params[i].Type
				}
			}
		}
	}
	return n, false
}

func (v *paramVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func (v *paramVisitor) pair(p, col ast.ExprNode) {
	n := paramNumber(p)
	c, ok := col.(*ast.ColumnNameExpr)
	if n > 0 && ok && paramNumber(col) == 0 {
		v.pairs = append(v.pairs, paramPair{param: n, col: c.Name})
	}
}

// resolve finds each compared column in the schemas of the tables read
// (first match by name; a qualifier naming a table narrows the search).
func (v *paramVisitor) resolve() {
	for _, p := range v.pairs {
		qual := p.col.Table.O
		if a, ok := v.aliases[p.col.Table.L]; ok {
			qual = a
		}
		for _, t := range v.tables {
			if qual != "" && !strings.EqualFold(qual, t) {
				continue
			}
			o, ok := v.e.cat.Get(t)
			if !ok {
				continue
			}
			if i := o.Schema.Index(p.col.Name.O); i >= 0 {
				v.out[p.param] = o.Schema[i].Type
				break
			}
		}
	}
}
