package planner

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
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
	Limits   []int             // a query: a parameter as a LIMIT or OFFSET (a bigint)
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

// RowParams returns where the parameters of a DELETE's WHERE or an
// UPDATE's SET and WHERE stand: compared with a column of the table, or
// assigned to one (Compared too: it takes that column's type).
func RowParams(st parser.Stmt) ParamUses {
	v := &paramVisitor{}
	var where ast.ExprNode
	switch s := st.(type) {
	case *parser.DeleteStmt:
		v.u.Tables, where = []string{s.Table}, s.Where
	case *parser.UpdateStmt:
		v.u.Tables, where = []string{s.Table}, s.Where
		for i, ex := range s.Values {
			if n := paramNumber(ex); n > 0 && i < len(s.Columns) {
				v.u.Compared = append(v.u.Compared, ParamColumn{Param: n, Column: s.Columns[i]})
			} else if ex != nil {
				ex.Accept(v)
			}
		}
	}
	if where != nil {
		where.Accept(v)
	}
	return v.u
}

// QueryParams returns the relations q reads and what its parameters are
// compared with or passed to, in the order they stand.
func QueryParams(q *parser.QueryStmt) ParamUses {
	v := &paramVisitor{}
	q.Select.Accept(v)
	return v.u
}

// paramNumber returns n for the parameter $n (parser.ParamExpr), else 0.
func paramNumber(ex ast.ExprNode) int {
	if p, ok := ex.(*parser.ParamExpr); ok {
		return p.N
	}
	return 0
}

// ParamResolver is a Resolver that also holds the values of a
// statement's parameters ($1 is Params()[0]): the engine's Execute of a
// prepared statement plans with one, the way FunctionResolver brings
// the SQL functions. A parameter binds to a constant of its value's
// kind; without a value it is an error (undefined_parameter), as in a
// view's body.
type ParamResolver interface {
	Resolver
	Params() []types.Value
}

// paramsOf returns the parameter values cat holds, or nil.
func paramsOf(cat Resolver) []types.Value {
	if p, ok := cat.(ParamResolver); ok {
		return p.Params()
	}
	return nil
}

// bindParam binds $n to the constant params[n-1].
func bindParam(p *parser.ParamExpr, params []types.Value) (Scalar, error) {
	if p.N < 1 || p.N > len(params) {
		return nil, sqlerr.New(sqlerr.UndefinedParameter, "there is no parameter $%d", p.N)
	}
	return &Const{V: params[p.N-1]}, nil
}

// limitValue reads a LIMIT or OFFSET: an integer constant or a
// parameter holding one; a NULL parameter means none (null: -1 for
// LIMIT, 0 for OFFSET), as in Postgres.
func (b *builder) limitValue(e ast.ExprNode, null int64) (int64, error) {
	p, ok := e.(*parser.ParamExpr)
	if !ok {
		return intLiteral(e)
	}
	s, err := bindParam(p, b.params)
	if err != nil {
		return 0, err
	}
	v := s.(*Const).V
	switch v.K {
	case types.Null:
		return null, nil
	case types.Int:
		if v.I < 0 {
			return 0, sqlerr.New(sqlerr.InvalidRowCount, "LIMIT must not be negative")
		}
		return v.I, nil
	case types.String:
		n, err := strconv.ParseInt(strings.TrimSpace(v.S), 10, 64)
		if err != nil || n < 0 {
			return 0, sqlerr.New(sqlerr.InvalidTextRepr, "invalid input syntax for type bigint: %q", v.S)
		}
		return n, nil
	}
	return 0, sqlerr.New(sqlerr.DatatypeMismatch, "argument of LIMIT must be type bigint, not type %s", kindName(v.K))
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
	case *ast.Limit:
		for _, e := range []ast.ExprNode{x.Count, x.Offset} {
			if p := paramNumber(e); p > 0 {
				v.u.Limits = append(v.u.Limits, p)
			}
		}
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

// MaxParam returns the highest $n a query, INSERT, DELETE, UPDATE or
// EXPLAIN of one holds (0: none); the wire server asks for that many
// values.
func MaxParam(s parser.Stmt) int {
	v := &maxParamVisitor{}
	var exprs []ast.ExprNode
	switch st := s.(type) {
	case *parser.QueryStmt:
		st.Select.Accept(v)
	case *parser.InsertStmt:
		if st.Query != nil {
			return MaxParam(st.Query)
		}
		for _, row := range st.Rows {
			exprs = append(exprs, row...)
		}
	case *parser.DeleteStmt:
		exprs = append(exprs, st.Where)
	case *parser.UpdateStmt:
		exprs = append(append(exprs, st.Values...), st.Where)
	case *parser.ExplainStmt:
		if st.Stmt != nil {
			return MaxParam(st.Stmt)
		}
	}
	for _, ex := range exprs {
		if ex != nil {
			ex.Accept(v)
		}
	}
	return v.max
}

type maxParamVisitor struct{ max int }

func (v *maxParamVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if p, ok := n.(*parser.ParamExpr); ok {
		v.max = max(v.max, p.N)
	}
	return n, false
}

func (v *maxParamVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
