package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/parser"
)

// ParamUses is where the Postgres parameters ($1, $2, ...) of a
// statement stand, as plain values the engine types against the catalog
// (engine/describe.go): an INSERT value's position in its row, a column
// a parameter is compared with, a function argument.
type ParamUses struct {
	Values   []ParamValue      // INSERT: a parameter as a row's value
	Tables   []string          // a query: the relations it reads, as written
	Aliases  map[string]string // a query: alias (lower case) → relation
	Compared []ParamColumn     // a query: a parameter compared with a column
	Args     []ParamArg        // a query: a parameter as a function's argument
}

// ParamValue is parameter Param standing as value Pos of an INSERT row.
type ParamValue struct{ Param, Pos int }

// ParamColumn is parameter Param compared (=, <>, <, <=, >, >=, <=>, IN,
// BETWEEN) with column Column, qualified by Table ("" when not).
type ParamColumn struct {
	Param         int
	Table, Column string
}

// ParamArg is parameter Param as argument Arg of a call of Func with
// NArgs arguments.
type ParamArg struct {
	Param, Arg, NArgs int
	Func              string
}

// InsertParams returns where the parameters of st's VALUES stand.
func InsertParams(st *parser.InsertStmt) ParamUses {
	var u ParamUses
	for _, row := range st.Rows {
		for j, ex := range row {
			if n := paramNumber(ex); n > 0 {
				u.Values = append(u.Values, ParamValue{Param: n, Pos: j})
			}
		}
	}
	return u
}

// QueryParams returns the relations q reads and what its parameters are
// compared with or passed to, in the order they stand.
func QueryParams(q *parser.QueryStmt) ParamUses {
	v := &paramVisitor{}
	q.Select.Accept(v)
	return v.u
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
type paramVisitor struct{ u ParamUses }

func (v *paramVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.TableName:
		v.u.Tables = append(v.u.Tables, x.Name.O)
	case *ast.TableSource:
		if tn, ok := x.Source.(*ast.TableName); ok && x.AsName.L != "" {
			if v.u.Aliases == nil {
				v.u.Aliases = map[string]string{}
			}
			v.u.Aliases[x.AsName.L] = tn.Name.O
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
		for i, a := range x.Args {
			if p := paramNumber(a); p > 0 {
				v.u.Args = append(v.u.Args, ParamArg{Param: p, Arg: i, NArgs: len(x.Args), Func: x.FnName.O})
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
		v.u.Compared = append(v.u.Compared, ParamColumn{Param: n, Table: c.Name.Table.O, Column: c.Name.Name.O})
	}
}
