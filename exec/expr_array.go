package exec

import (
	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// compileArray compiles ARRAY[...] (the call "array"): the array of its
// arguments' values, of the element kind the binder gave the call, which
// an array of NULLs needs.
func (c *compiler) compileArray(e *planner.Call) (Evaluator, error) {
	elems := make([]Evaluator, len(e.Args))
	for i, a := range e.Args {
		ev, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		elems[i] = ev
	}
	elem := e.T.Elem()
	return func(r types.Row) types.Value {
		vals := make([]types.Value, len(elems))
		for i, ev := range elems {
			vals[i] = ev(r)
		}
		return types.ArrayValue(elem, vals)
	}, nil
}

// castArray converts text to an array (its {…} form) and an array to an
// array of another element kind, element by element; ok is false for
// other conversions.
func castArray(v types.Value, to types.Kind) (types.Value, bool, *sqlerr.Error) {
	switch {
	case to.IsArray() && v.K == types.String:
		a, err := funcs.ParseArray(v.S, to.Elem())
		return a, true, err
	case to.IsArray() && v.K.IsArray():
		elems := types.ArrayElems(v)
		for i, x := range elems {
			y, err := castValue(x, to.Elem())
			if err != nil {
				return types.NullValue, true, err
			}
			elems[i] = y
		}
		return types.ArrayValue(to.Elem(), elems), true, nil
	}
	return v, false, nil
}
