package engine

import (
	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
)

// compileComputed binds and compiles the computed columns of o; errs
// counts their runtime failures (the value is then NULL).
func compileComputed(o *catalog.Object, errs *exec.EvalErrors) ([]exec.ComputedColumn, error) {
	computed := make([]bool, len(o.Schema))
	for c, g := range o.Generated {
		computed[c] = g == catalog.GenComputed
	}
	var out []exec.ComputedColumn
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
		out = append(out, exec.ComputedColumn{Col: c, Eval: ev})
	}
	return out, nil
}
