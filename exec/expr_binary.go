package exec

// This file holds the one shape every strict operator closure shares:
// evaluate the left operand, stop at NULL, evaluate the right one, stop
// at NULL, apply the operator. The typed families (BIGINT and DOUBLE
// arithmetic) and the Value families (DECIMAL, timestamp and date
// arithmetic) all build their closures here.

import (
	"errors"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// strictTyped is the closure of a strict binary operator over typed
// operands (ok false for NULL): NULL when either operand is NULL, else
// op's result, or NULL with op's error counted in errs. T is int64 or
// float64, which the compiler instantiates separately, so nothing goes
// through a dictionary; op is the operator itself (funcs.IntArith), one
// indirect call per row.
func strictTyped[T int64 | float64](l, r func(types.Row) (T, bool), errs *EvalErrors, op func(a, b T) (T, *sqlerr.Error)) func(types.Row) (T, bool) {
	return func(row types.Row) (T, bool) {
		a, ok := l(row)
		if !ok {
			return 0, false
		}
		b, ok := r(row)
		if !ok {
			return 0, false
		}
		x, err := op(a, b)
		if err != nil {
			errs.record(err)
			return 0, false
		}
		return x, true
	}
}

// strictValue is the closure of a strict binary operator over Values:
// NULL when either operand is NULL, else op's result, or NULL with op's
// error counted in errs. op may be a types function as it is
// (types.DecimalAdd), so a row makes one indirect call into it.
func strictValue(l, r Evaluator, errs *EvalErrors, op func(a, b types.Value) (types.Value, error)) Evaluator {
	return func(row types.Row) types.Value {
		a := l(row)
		if a.K == types.Null {
			return a
		}
		b := r(row)
		if b.K == types.Null {
			return b
		}
		v, err := op(a, b)
		if err != nil {
			errs.recordErr(err)
			return types.NullValue
		}
		return v
	}
}

// strictUnary is strictValue for one operand.
func strictUnary(x Evaluator, errs *EvalErrors, op func(a types.Value) (types.Value, error)) Evaluator {
	return func(row types.Row) types.Value {
		a := x(row)
		if a.K == types.Null {
			return a
		}
		v, err := op(a)
		if err != nil {
			errs.recordErr(err)
			return types.NullValue
		}
		return v
	}
}

// recordErr counts a runtime error that may not carry a SQLSTATE yet (a
// types.DecimalError).
func (e *EvalErrors) recordErr(err error) {
	var se *sqlerr.Error
	if errors.As(err, &se) {
		e.record(se)
		return
	}
	e.record(decErr(err))
}

// operands compiles the two operands of a binary call with compile
// (c.compile, c.compileInt, c.compileBool, ...).
func operands[T any](e *planner.Call, compile func(planner.Scalar) (T, error)) (l, r T, err error) {
	if l, err = compile(e.Args[0]); err != nil {
		return l, r, err
	}
	r, err = compile(e.Args[1])
	return l, r, err
}
