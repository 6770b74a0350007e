package exec

// This file holds DECIMAL and DATE evaluation: exact decimal arithmetic
// (types/decimal.go has the rules), the casts to and from both, and date
// arithmetic.

import (
	"github.com/streamsql/streamsql/funcs"
	"math"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Preallocated decimal and date errors.
var (
	errDateRange = sqlerr.New(funcs.CodeTimestampRange, "date out of range")
)

// decErr turns a types.DecimalError into a *sqlerr.Error.
func decErr(err error) *sqlerr.Error { return funcs.DecimalErr(err) }

// asDec reads an Int or Decimal value as a Decimal.
func asDec(v types.Value) types.Value {
	if v.K == types.Int {
		return types.DecimalFromInt(v.I)
	}
	return v
}

// decimalOps are the binary operators on Decimals.
var decimalOps = map[string]func(a, b types.Value) (types.Value, error){
	"+": types.DecimalAdd, "-": types.DecimalSub, "*": types.DecimalMul,
	"/": types.DecimalDiv, "%": types.DecimalMod,
}

// compileDecimalArith evaluates + - * / % and unary minus on Decimals.
func (c *compiler) compileDecimalArith(e *planner.Call) (Evaluator, error) {
	if ev := decimalConstCol(e, c.errs); ev != nil {
		return ev, nil
	}
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	for i, a := range e.Args {
		args[i] = decimalOperand(args[i], a.Type())
	}
	if e.Fn == "neg" {
		return strictUnary(args[0], c.errs, func(v types.Value) (types.Value, error) { return types.DecimalNeg(v), nil }), nil
	}
	return strictValue(args[0], args[1], c.errs, decimalOps[e.Fn]), nil
}

// decimalOperand converts a BIGINT operand of DECIMAL arithmetic (the
// operators take mixed numbers uncast) as it is read.
func decimalOperand(ev Evaluator, k types.Kind) Evaluator {
	if k != types.Int {
		return ev
	}
	return func(r types.Row) types.Value { return asDec(ev(r)) }
}

// decimalConstCol specialises `decimal constant * BIGINT column` (Nexmark
// q1's `0.908 * price`, where the binder casts price to DECIMAL) into one
// closure on the int64 fast path; an overflow falls back to the general
// multiplication.
func decimalConstCol(e *planner.Call, errs *EvalErrors) Evaluator {
	if e.Fn != "*" || len(e.Args) != 2 {
		return nil
	}
	k, ok := e.Args[0].(*planner.Const)
	x := e.Args[1]
	if !ok {
		k, ok = e.Args[1].(*planner.Const)
		x = e.Args[0]
	}
	cast, isCast := x.(*planner.Cast)
	if !ok || !isCast || k.V.K != types.Decimal || k.V.S != "" || cast.Precision != 0 {
		return nil
	}
	col, isCol := cast.Arg.(*planner.ColRef)
	if !isCol || col.T != types.Int {
		return nil
	}
	i, kv := col.Index, k.V
	return func(r types.Row) types.Value {
		if uint(i) >= uint(len(r)) || r[i].K == types.Null {
			return types.NullValue
		}
		p := kv.I * r[i].I
		if kv.I == 0 || (p/kv.I == r[i].I && !(kv.I == -1 && r[i].I == math.MinInt64)) {
			return types.DecimalValue(p, int(kv.Scale))
		}
		v, err := types.DecimalMul(kv, types.DecimalFromInt(r[i].I))
		if err != nil {
			errs.record(decErr(err))
			return types.NullValue
		}
		return v
	}
}

// compileDecimalFit evaluates CAST(x AS DECIMAL(p, s)): convert, round
// to s, refuse values beyond p (22003).
func (c *compiler) compileDecimalFit(e *planner.Cast) (Evaluator, error) {
	x, err := c.compile(e.Arg)
	if err != nil {
		return nil, err
	}
	p, s, errs := e.Precision, e.Scale, c.errs
	return func(r types.Row) types.Value {
		v, cerr := castValue(x(r), types.Decimal)
		if cerr == nil && v.K != types.Null {
			var err error
			if v, err = types.DecimalFit(v, p, s); err != nil {
				cerr = decErr(err)
			}
		}
		if cerr != nil {
			errs.record(cerr)
			return types.NullValue
		}
		return v
	}, nil
}

// castNumber converts between BIGINT, DOUBLE and DECIMAL and from text to
// DECIMAL; ok is false for other conversions. DECIMAL to BIGINT rounds
// half away from zero; DOUBLE to DECIMAL goes through 15 significant
// digits, as Postgres's float8 to numeric.
func castNumber(v types.Value, to types.Kind) (types.Value, bool, *sqlerr.Error) {
	var out types.Value
	var err error
	switch {
	case to == types.Decimal && v.K == types.Int:
		out = types.DecimalFromInt(v.I)
	case to == types.Decimal && v.K == types.Float:
		out, err = types.DecimalFromFloat(v.F)
	case to == types.Decimal && v.K == types.String:
		out, err = types.ParseDecimal(v.S)
	case to == types.Int && v.K == types.Decimal:
		var i int64
		i, err = types.DecimalToInt(v)
		out = types.IntValue(i)
	case to == types.Float && v.K == types.Decimal:
		out = types.FloatValue(types.DecimalToFloat(v))
	default:
		return v, false, nil
	}
	if err != nil {
		return types.NullValue, true, decErr(err)
	}
	return out, true, nil
}

// castTime converts between TIMESTAMP and DATE (a timestamp's date is its
// day) and from text to DATE; ok is false for other conversions.
func castTime(v types.Value, to types.Kind) (types.Value, bool, *sqlerr.Error) {
	switch {
	case to == types.Date && v.K == types.Timestamp:
		return types.DateValue(types.TimestampToDate(v.I)), true, nil
	case to == types.Date && v.K == types.String:
		d, err := types.ParseDate(v.S)
		if err != nil {
			return types.NullValue, true, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type date: '" + v.S + "'", Err: err}
		}
		return types.DateValue(d), true, nil
	case to == types.Timestamp && v.K == types.Date:
		us, ok := types.DateToTimestamp(v.I)
		if !ok {
			return types.NullValue, true, errTSRange
		}
		return types.TimestampValue(us), true, nil
	}
	return v, false, nil
}

// compileDateArith evaluates date ± integer (a date), date − date (the
// integer days between) and date + time (a timestamp).
func (c *compiler) compileDateArith(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	out, op := e.T, e.Fn[0]
	if out == types.Timestamp { // date + time
		return strictValue(args[0], args[1], c.errs, func(a, b types.Value) (types.Value, error) {
			if a.K == types.Time {
				a, b = b, a
			}
			us, ok := types.DateToTimestamp(a.I)
			if !ok || us > math.MaxInt64-b.I {
				return types.NullValue, errTSRange
			}
			return types.TimestampValue(us + b.I), nil
		}), nil
	}
	return strictValue(args[0], args[1], c.errs, func(a, b types.Value) (types.Value, error) {
		x, err := funcs.IntOp(op, a.I, b.I)
		switch {
		case err != nil:
			return types.NullValue, err
		case out == types.Date && (x > maxDateDays || x < -maxDateDays):
			return types.NullValue, errDateRange
		}
		return types.Value{K: out, I: x}, nil
	}), nil
}

// maxDateDays bounds a date's days so it still converts to a timestamp.
const maxDateDays = math.MaxInt64 / types.Day

// isDateArith reports whether e is arithmetic on a date operand.
func isDateArith(e *planner.Call) bool {
	for _, a := range e.Args {
		if a.Type() == types.Date {
			return true
		}
	}
	return false
}
