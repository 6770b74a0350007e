package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// BindValue binds one expression of an INSERT's VALUES (an element of
// parser.InsertStmt.Rows): constants only, no columns, no aggregates.
// params are the values of the statement's $n parameters.
func BindValue(ex ast.ExprNode, params []types.Value) (Scalar, error) {
	return bindWithParams(ex, valuesScope{}, params)
}

// bindWithParams is BindScalar with the statement's $n values.
func bindWithParams(ex ast.ExprNode, scope Scope, params []types.Value) (Scalar, error) {
	b := &binder{scope: scope, params: params}
	s, err := b.bind(ex)
	if err != nil {
		return nil, err
	}
	return b.zoned(s)
}

// valuesScope is the scope of INSERT VALUES: constants only.
type valuesScope struct{}

func (valuesScope) Resolve(_, column string) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.UndefinedColumn, "column %q cannot be used in VALUES", column)
}

func (valuesScope) Aggregate(*ast.AggregateFuncExpr) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in VALUES")
}

// BindExpr binds the one expression of q, `SELECT expression` as
// parser.ParseExpr returns it, over a row of schema (its columns by
// name, no aggregates).
func BindExpr(q *parser.QueryStmt, schema types.Schema) (Scalar, error) {
	sel, ok := q.Select.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 || sel.Fields.Fields[0].Expr == nil {
		return nil, sqlerr.New(sqlerr.SyntaxError, "expected one expression")
	}
	return BindScalar(sel.Fields.Fields[0].Expr, newRelScope("", schema))
}

// BindRowExpr binds an expression of DELETE's or UPDATE's WHERE or SET
// over one row of table (its columns by name, qualified by the table's
// name or not; no aggregates); params are the statement's $n values.
func BindRowExpr(ex ast.ExprNode, table string, schema types.Schema, params []types.Value) (Scalar, error) {
	return bindWithParams(ex, newRelScope(table, schema), params)
}

// BindRowFilter is BindRowExpr for a DELETE's or UPDATE's WHERE: no
// WHERE (nil) binds to nil, every row.
func BindRowFilter(where ast.ExprNode, table string, schema types.Schema, params []types.Value) (Scalar, error) {
	if where == nil {
		return nil, nil
	}
	return BindRowExpr(where, table, schema, params)
}
