package engine

import (
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// computedCol is one compiled computed column of a source
// (`name VARCHAR AS (payload->>'name')`).
type computedCol struct {
	col  int
	eval exec.Evaluator
}

// compileComputed binds and compiles the computed columns of o; errs
// counts their runtime failures (the value is then NULL).
func compileComputed(o *catalog.Object, errs *exec.EvalErrors) ([]computedCol, error) {
	computed := make([]bool, len(o.Schema))
	for c, g := range o.Generated {
		computed[c] = g == catalog.GenComputed
	}
	var out []computedCol
	for c, is := range computed {
		if !is {
			continue
		}
		if c >= len(o.Exprs) {
			return nil, sqlerr.New(sqlerr.InvalidObjectDef, "column %s of %s has no expression", o.Schema[c].Name, o.Name)
		}
		q, err := parser.ParseExpr(o.Exprs[c])
		if err != nil {
			return nil, err
		}
		s, err := planner.BindComputed(q, o.Schema, computed, c)
		if err != nil {
			return nil, err
		}
		ev, err := exec.CompileScalar(s, errs)
		if err != nil {
			return nil, &sqlerr.Error{Code: sqlerr.Code(err), Msg: "column " + o.Schema[c].Name, Err: err}
		}
		out = append(out, computedCol{col: c, eval: ev})
	}
	return out, nil
}

// fillComputed sets the computed columns of rows from their input
// columns, on copies (rows are immutable once emitted).
func (r *reader) fillComputed(rows []types.Row) []types.Row {
	if len(r.computed) == 0 {
		return rows
	}
	out := make([]types.Row, len(rows))
	for i, src := range rows {
		row := src.Clone()
		for _, c := range r.computed {
			row[c.col] = c.eval(row)
		}
		out[i] = row
	}
	return out
}
