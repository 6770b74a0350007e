package exec

// This file holds CASE, casts, the conditional functions and the
// evaluation of the funcs registry's functions.

import (
	"github.com/streamsql/streamsql/funcs"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

func (c *compiler) compileCase(e *planner.Case) (Evaluator, error) {
	results := make([]Evaluator, len(e.Whens))
	for i, w := range e.Whens {
		ev, err := c.compile(w.Result)
		if err != nil {
			return nil, err
		}
		results[i] = ev
	}
	els := func(types.Row) types.Value { return types.NullValue }
	if e.Else != nil {
		ev, err := c.compile(e.Else)
		if err != nil {
			return nil, err
		}
		els = ev
	}
	if e.Operand != nil {
		op, err := c.compile(e.Operand)
		if err != nil {
			return nil, err
		}
		whens := make([]Evaluator, len(e.Whens))
		for i, w := range e.Whens {
			if whens[i], err = c.compile(w.Cond); err != nil {
				return nil, err
			}
		}
		return func(r types.Row) types.Value {
			v := op(r)
			if v.K != types.Null {
				for i, w := range whens {
					if x := w(r); x.K != types.Null && types.Compare(v, x) == 0 {
						return results[i](r)
					}
				}
			}
			return els(r)
		}, nil
	}
	conds := make([]boolEval, len(e.Whens))
	for i, w := range e.Whens {
		be, err := c.compileBool(w.Cond)
		if err != nil {
			return nil, err
		}
		conds[i] = be
	}
	return func(r types.Row) types.Value {
		for i, cond := range conds {
			if v, ok := cond(r); v && ok {
				return results[i](r)
			}
		}
		return els(r)
	}, nil
}

func (c *compiler) compileCast(e *planner.Cast) (Evaluator, error) {
	if e.To == types.Decimal && e.Precision > 0 {
		return c.compileDecimalFit(e)
	}
	if e.Arg.Type() == e.To {
		return c.compile(e.Arg)
	}
	if !planner.CanCast(e.Arg.Type(), e.To) {
		return nil, sqlerr.New(codeCannotCoerce, "cannot cast type %s to %s",
			strings.ToLower(e.Arg.Type().String()), strings.ToLower(e.To.String()))
	}
	if e.To == types.Float && e.Arg.Type() == types.Int {
		fe, err := c.compileFloat(e)
		return fromFloat(fe), err
	}
	x, err := c.compile(e.Arg)
	if err != nil {
		return nil, err
	}
	to, errs := e.To, c.errs
	if types.ZoneDependent(e.To) || types.ZoneDependent(e.Arg.Type()) {
		return c.compileZonedCast(x, e)
	}
	return func(r types.Row) types.Value {
		v, cerr := castValue(x(r), to)
		if cerr != nil {
			errs.record(cerr)
			return types.NullValue
		}
		return v
	}, nil
}

// castValue converts v to kind to with Postgres rules: text parses
// (timestamps via types.ParseTimestamp), DOUBLE and DECIMAL to BIGINT
// round half away from zero, booleans read t/f/true/false/yes/no/on/off/1/0;
// numbers and dates convert as castNumber and castTime say.
func castValue(v types.Value, to types.Kind) (types.Value, *sqlerr.Error) {
	if v.K == types.Null || v.K == to {
		return v, nil
	}
	if x, ok, err := castNumber(v, to); ok {
		return x, err
	}
	if x, ok, err := castTime(v, to); ok {
		return x, err
	}
	if x, ok, err := castJSONB(v, to); ok {
		return x, err
	}
	if x, ok, err := funcs.CastTime(v, to); ok {
		return x, err
	}
	if x, ok, err := castArray(v, to); ok {
		return x, err
	}
	if to == types.Bytea && v.K == types.String {
		b, err := types.ParseBytea(v.S)
		if err != nil {
			return types.NullValue, funcs.ByteaErr(err)
		}
		return b, nil
	}
	switch to {
	case types.String:
		return types.StringValue(funcs.Text(v)), nil
	case types.Int:
		switch v.K {
		case types.Float:
			if i, ok := floatToInt(v.F, nil); ok {
				return types.IntValue(i), nil
			}
			return types.NullValue, errIntRange
		case types.Bool:
			return types.IntValue(v.I), nil
		case types.String:
			if i, err := strconv.ParseInt(strings.TrimSpace(v.S), 10, 64); err == nil {
				return types.IntValue(i), nil
			}
		}
	case types.Float:
		switch v.K {
		case types.Int:
			return types.FloatValue(float64(v.I)), nil
		case types.String:
			if f, err := strconv.ParseFloat(strings.TrimSpace(v.S), 64); err == nil {
				return types.FloatValue(f), nil
			}
		}
	case types.Bool:
		switch v.K {
		case types.Int:
			return types.BoolValue(v.I != 0), nil
		case types.String:
			if b, ok := types.ParseBool(v.S); ok {
				return types.BoolValue(b), nil
			}
		}
	case types.Timestamp:
		if v.K == types.String {
			us, err := types.ParseTimestamp(v.S)
			if err != nil {
				return types.NullValue, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type timestamp: '" + v.S + "'", Err: err}
			}
			return types.TimestampValue(us), nil
		}
	case types.Interval:
		if v.K == types.String {
			iv, err := types.ParseIntervalValue(v.S, "")
			if err != nil {
				return types.NullValue, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type interval: '" + v.S + "'", Err: err}
			}
			return iv, nil
		}
	}
	if v.K == types.String {
		return types.NullValue, sqlerr.New(codeInvalidText, "invalid input syntax for type %s: '%s'", strings.ToLower(to.String()), v.S)
	}
	return types.NullValue, sqlerr.New(codeCannotCoerce, "cannot cast type %s to %s", strings.ToLower(v.K.String()), strings.ToLower(to.String()))
}

func (c *compiler) compileCoalesce(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) types.Value {
		for _, a := range args {
			if v := a(r); v.K != types.Null {
				return v
			}
		}
		return types.NullValue
	}, nil
}

// compileExtreme implements GREATEST and LEAST, which ignore NULLs.
func (c *compiler) compileExtreme(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	sign := 1
	if e.Fn == "least" {
		sign = -1
	}
	return func(r types.Row) types.Value {
		best := types.NullValue
		for _, a := range args {
			v := a(r)
			if v.K != types.Null && (best.K == types.Null || types.Compare(v, best)*sign > 0) {
				best = v
			}
		}
		return best
	}, nil
}

func (c *compiler) compileNullif(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) types.Value {
		a := args[0](r)
		if a.K == types.Null {
			return a
		}
		if b := args[1](r); b.K != types.Null && types.Compare(a, b) == 0 {
			return types.NullValue
		}
		return a
	}, nil
}

// ---- Registry functions -------------------------------------------------

// compileImpl compiles a function the funcs registry evaluates: its Impl,
// or the one its Prepare returns for the call's constant arguments. A
// strict function is not called when an argument is NULL; a returned
// error is counted and yields NULL.
func (c *compiler) compileImpl(e *planner.Call, f *funcs.Func) (Evaluator, error) {
	impl := f.Impl
	if f.Prepare != nil {
		consts := make([]*types.Value, len(e.Args))
		for i, a := range e.Args {
			if k, ok := a.(*planner.Const); ok {
				consts[i] = &k.V
			}
		}
		var perr *sqlerr.Error
		if impl, perr = f.Prepare(consts); perr != nil {
			return nil, perr
		}
	}
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	errs, strict := c.errs, f.Strict
	done := func(v types.Value, err *sqlerr.Error) types.Value {
		if err != nil {
			errs.record(err)
			return types.NullValue
		}
		return v
	}
	switch {
	case len(args) == 1 && impl.F1 != nil:
		g, x := impl.F1, args[0]
		return func(r types.Row) types.Value {
			a := x(r)
			if strict && a.K == types.Null {
				return a
			}
			return done(g(a))
		}, nil
	case len(args) == 2 && impl.F2 != nil:
		g, x, y := impl.F2, args[0], args[1]
		return func(r types.Row) types.Value {
			a, b := x(r), y(r)
			if strict && (a.K == types.Null || b.K == types.Null) {
				return types.NullValue
			}
			return done(g(a, b))
		}, nil
	case len(args) == 3 && impl.F3 != nil:
		g, x, y, z := impl.F3, args[0], args[1], args[2]
		return func(r types.Row) types.Value {
			a, b, cc := x(r), y(r), z(r)
			if strict && (a.K == types.Null || b.K == types.Null || cc.K == types.Null) {
				return types.NullValue
			}
			return done(g(a, b, cc))
		}, nil
	case impl.FN != nil:
		g := impl.FN
		return func(r types.Row) types.Value {
			vals := make([]types.Value, len(args))
			for i, x := range args {
				vals[i] = x(r)
				if strict && vals[i].K == types.Null {
					return types.NullValue
				}
			}
			return done(g(vals))
		}, nil
	}
	return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s does not take %d arguments", e.Fn, len(args))
}

// compileZonedCast evaluates a cast to or from TIMESTAMPTZ in the cast's
// time zone (loaded once, here).
func (c *compiler) compileZonedCast(x Evaluator, e *planner.Cast) (Evaluator, error) {
	zone := e.Zone
	if zone == "" {
		zone = "UTC"
	}
	loc, zerr := funcs.Zone(zone)
	if zerr != nil {
		return nil, zerr
	}
	to, errs := e.To, c.errs
	return func(r types.Row) types.Value {
		v := x(r)
		if v.K == types.Null {
			return v
		}
		out, _, cerr := funcs.CastZoned(v, to, loc)
		if cerr != nil {
			errs.record(cerr)
			return types.NullValue
		}
		return out
	}, nil
}
