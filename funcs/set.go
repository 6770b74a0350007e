package funcs

import (
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// SetImpl evaluates a set-returning function on its argument values and
// returns the rows of its set, one value each (a function of one output
// column). A Strict one is not called when an argument is NULL: the set
// is then empty, as in Postgres.
type SetImpl func(args []types.Value) ([]types.Value, *sqlerr.Error)

// ReturnsSet reports whether f is a set-returning function: one call
// yields zero or more rows (pg_proc's proretset).
func (f *Func) ReturnsSet() bool { return f.Set != nil }

// MaxSetRows bounds the rows one call of a set-returning function may
// yield (generate_series with a huge range); past it the call fails with
// program_limit_exceeded instead of exhausting memory.
const MaxSetRows = 1 << 24

// CodeProgramLimit is program_limit_exceeded.
const CodeProgramLimit = "54000"

var (
	errStepZero    = sqlerr.New(sqlerr.InvalidParameter, "step size cannot equal zero")
	errElemsScalar = sqlerr.New(sqlerr.InvalidParameter, "cannot extract elements from a scalar")
	errElemsObject = sqlerr.New(sqlerr.InvalidParameter, "cannot extract elements from an object")
	errSetTooLarge = sqlerr.New(CodeProgramLimit, "set-returning function would return more than 16777216 rows")
)

// setFuncs are the set-returning functions. The planner binds them in
// FROM (with LATERAL and WITH ORDINALITY) and in a SELECT list (Postgres
// 10's ProjectSet: the calls of one list run in lockstep), and exec's
// ProjectSet expands them; anywhere else a call is refused.
var setFuncs = []*Func{
	{Name: "unnest", Doc: "the elements of an array, one row each (NULL elements included)", Strict: true,
		Sigs: sigs(sig(AnyArray, AnyElement)), Set: unnest},
	{Name: "jsonb_array_elements", Doc: "the elements of a JSON array as jsonb, one row each (column `value`)", Strict: true,
		Sigs: sigs(sig(types.JSONB, types.JSONB)), Set: jsonArrayElements(false)},
	{Name: "jsonb_array_elements_text", Doc: "the elements of a JSON array as text (JSON null as NULL), one row each (column `value`)", Strict: true,
		Sigs: sigs(sig(types.JSONB, types.String)), Set: jsonArrayElements(true)},
	{Name: "generate_series", Doc: "start, start + step, ... up to stop (step 1 when omitted; for timestamps an interval)", Strict: true,
		Sigs: sigs(sig(types.Int, types.Int, types.Int), sig(types.Int, types.Int, types.Int, types.Int),
			sig(types.Timestamp, types.Timestamp, types.Interval, types.Timestamp)),
		Set: generateSeries},
}

// SetColumn is the name Postgres gives the output column of f when the
// FROM item has no column aliases: `value` for the JSON element
// functions (their OUT parameter), the table alias otherwise.
func SetColumn(f *Func, alias string) string {
	switch f.Name {
	case "jsonb_array_elements", "jsonb_array_elements_text":
		return "value"
	}
	return alias
}

func unnest(a []types.Value) ([]types.Value, *sqlerr.Error) {
	return types.ArrayElems(a[0]), nil
}

// jsonArrayElements is jsonb_array_elements (text false) and
// jsonb_array_elements_text.
func jsonArrayElements(text bool) SetImpl {
	return func(a []types.Value) ([]types.Value, *sqlerr.Error) {
		j := types.JSONOf(a[0])
		switch j.Kind {
		case types.JSONArray:
		case types.JSONObject:
			return nil, errElemsObject
		default:
			return nil, errElemsScalar
		}
		out := make([]types.Value, len(j.Elems))
		for i, e := range j.Elems {
			v, err := jsonResult(e, text)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

func generateSeries(a []types.Value) ([]types.Value, *sqlerr.Error) {
	if a[0].K == types.Timestamp {
		return timestampSeries(a[0].I, a[1].I, a[2])
	}
	step := int64(1)
	if len(a) > 2 {
		step = a[2].I
	}
	if step == 0 {
		return nil, errStepZero
	}
	var out []types.Value
	for v := a[0].I; (step > 0 && v <= a[1].I) || (step < 0 && v >= a[1].I); v += step {
		if len(out) == MaxSetRows {
			return nil, errSetTooLarge
		}
		out = append(out, types.IntValue(v))
		if next := v + step; (step > 0) != (next > v) {
			break // the next value would overflow: the series ends here
		}
	}
	return out, nil
}

// timestampSeries is generate_series over timestamps: each row is the
// previous one plus the interval (calendar arithmetic for months and
// days), as Postgres adds it step by step.
func timestampSeries(start, stop int64, step types.Value) ([]types.Value, *sqlerr.Error) {
	sign := intervalSign(step)
	if sign == 0 {
		return nil, errStepZero
	}
	var out []types.Value
	for v := start; (sign > 0 && v <= stop) || (sign < 0 && v >= stop); {
		if len(out) == MaxSetRows {
			return nil, errSetTooLarge
		}
		out = append(out, types.TimestampValue(v))
		next, err := types.TimestampAddInterval(v, step)
		if err != nil {
			return nil, ErrTSRange
		}
		v = next
	}
	return out, nil
}

// intervalSign is the sign of an interval as Postgres compares it with
// zero: months as 30 days, days as 24 hours.
func intervalSign(step types.Value) int {
	return types.IntervalCmp(step, types.IntervalOf(0, 0, 0))
}
