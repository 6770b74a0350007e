package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// BindComputed binds the expression of computed column col of a source
// (`name VARCHAR AS (payload->>'name')`), parsed as `SELECT expression`,
// over the source's row and casts it to the column's type. It may read
// the source's other columns, not the computed ones (computed[i] marks
// them): the reader fills every computed column from the row as read.
func BindComputed(q *parser.QueryStmt, schema types.Schema, computed []bool, col int) (Scalar, error) {
	sel, ok := q.Select.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return nil, sqlerr.New(sqlerr.SyntaxError, "the expression of column %s is not one expression", schema[col].Name)
	}
	e := sel.Fields.Fields[0].Expr
	s, err := BindScalar(e, newRelScope("", schema))
	if err != nil {
		return nil, &sqlerr.Error{Code: sqlerr.Code(err), Msg: "column " + schema[col].Name, Err: err}
	}
	used := map[int]bool{}
	ColumnsUsed(s, used)
	for c := range used {
		if computed[c] {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "column %s: the expression reads computed column %s; computed columns read only input columns", schema[col].Name, schema[c].Name)
		}
	}
	c := schema[col]
	if s, err = castTo(e, s, c.Type); err != nil {
		return nil, &sqlerr.Error{Code: sqlerr.Code(err), Msg: "column " + c.Name, Err: err}
	}
	if c.Type == types.Decimal && c.Precision > 0 {
		return fitDecimal(s, c.Precision, c.Scale)
	}
	return s, nil
}
