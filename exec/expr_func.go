package exec

// This file holds CASE, casts and the function table's implementations
// (string, math and time functions).

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

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
	return func(r types.Row) types.Value {
		v, cerr := castValue(x(r), to)
		if cerr != nil {
			errs.record(cerr)
			return types.NullValue
		}
		return v
	}, nil
}

// textOf formats v as a cast to VARCHAR does (booleans as true/false).
func textOf(v types.Value) string {
	if v.K == types.Bool {
		if v.I != 0 {
			return "true"
		}
		return "false"
	}
	return v.String()
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
	switch to {
	case types.String:
		return types.StringValue(textOf(v)), nil
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
			if b, ok := planner.ParseBool(v.S); ok {
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
			us, err := types.ParseInterval(v.S)
			if err != nil {
				return types.NullValue, &sqlerr.Error{Code: sqlerr.InvalidDatetime, Msg: "invalid input syntax for type interval: '" + v.S + "'", Err: err}
			}
			return types.IntervalValue(us), nil
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

// compileConcat implements CONCAT and ||: NULL when any argument is NULL
// (Flink and MySQL), other kinds formatted as text.
func (c *compiler) compileConcat(e *planner.Call) (Evaluator, error) {
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) types.Value {
		var b strings.Builder
		for _, a := range args {
			v := a(r)
			if v.K == types.Null {
				return types.NullValue
			}
			if v.K == types.String {
				b.WriteString(v.S)
			} else {
				b.WriteString(textOf(v))
			}
		}
		return types.StringValue(b.String())
	}, nil
}

// ---- Strict scalar functions --------------------------------------------

// fnImpl evaluates a strict function on non-NULL arguments; one of the
// three fields is set, by arity.
type fnImpl struct {
	f1 func(a types.Value) (types.Value, *sqlerr.Error)
	f2 func(a, b types.Value) (types.Value, *sqlerr.Error)
	f3 func(a, b, c types.Value) (types.Value, *sqlerr.Error)
}

func okv(v types.Value) (types.Value, *sqlerr.Error) { return v, nil }

func str1(f func(string) string) fnImpl {
	return fnImpl{f1: func(a types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S))) }}
}

func flt1(f func(float64) (float64, *sqlerr.Error)) fnImpl {
	return fnImpl{f1: func(a types.Value) (types.Value, *sqlerr.Error) {
		x, err := f(a.F)
		return types.FloatValue(x), err
	}}
}

// num1 is a math function of one number: fi for BIGINT, ff for DOUBLE
// and decimal1[name] for DECIMAL.
func num1(name string, fi func(int64) (int64, *sqlerr.Error), ff func(float64) float64) fnImpl {
	return fnImpl{f1: func(a types.Value) (types.Value, *sqlerr.Error) {
		switch a.K {
		case types.Int:
			x, err := fi(a.I)
			return types.IntValue(x), err
		case types.Decimal:
			x, err := decimal1[name](a)
			return x, decErr(err)
		}
		return okv(types.FloatValue(ff(a.F)))
	}}
}

func intIdentity(i int64) (int64, *sqlerr.Error) { return i, nil }

func logOf(f func(float64) float64) func(float64) (float64, *sqlerr.Error) {
	return func(x float64) (float64, *sqlerr.Error) {
		switch {
		case x == 0:
			return 0, errLogZero
		case x < 0:
			return 0, errLogNeg
		}
		return f(x), nil
	}
}

var fnImpls = map[string]fnImpl{
	"lower": str1(strings.ToLower),
	"upper": str1(strings.ToUpper),
	"length": {f1: func(a types.Value) (types.Value, *sqlerr.Error) {
		return okv(types.IntValue(int64(utf8.RuneCountInString(a.S))))
	}},
	"substr": {
		f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			return okv(types.StringValue(substr(a.S, b.I, math.MaxInt64)))
		},
		f3: func(a, b, c types.Value) (types.Value, *sqlerr.Error) {
			if c.I < 0 {
				return types.NullValue, errNegSubstr
			}
			return okv(types.StringValue(substr(a.S, b.I, c.I)))
		},
	},
	"trim":  trimFn(strings.Trim),
	"ltrim": trimFn(strings.TrimLeft),
	"rtrim": trimFn(strings.TrimRight),
	"replace": {f3: func(a, b, c types.Value) (types.Value, *sqlerr.Error) {
		if b.S == "" {
			return a, nil
		}
		return okv(types.StringValue(strings.ReplaceAll(a.S, b.S, c.S)))
	}},
	"strpos": {f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
		i := strings.Index(a.S, b.S)
		if i < 0 {
			return okv(types.IntValue(0))
		}
		return okv(types.IntValue(int64(utf8.RuneCountInString(a.S[:i])) + 1))
	}},
	"split_part": {f3: splitPart},
	"left": {f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
		n := int64(utf8.RuneCountInString(a.S))
		k := b.I
		if k < 0 {
			k = max(n+k, 0)
		}
		return okv(types.StringValue(substr(a.S, 1, k)))
	}},
	"right": {f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
		n := int64(utf8.RuneCountInString(a.S))
		k := b.I
		if k < 0 {
			k = max(n+k, 0)
		}
		k = min(k, n)
		return okv(types.StringValue(substr(a.S, n-k+1, k)))
	}},
	"abs": num1("abs", func(i int64) (int64, *sqlerr.Error) {
		if i == math.MinInt64 {
			return 0, errIntRange
		}
		if i < 0 {
			return -i, nil
		}
		return i, nil
	}, math.Abs),
	"floor": num1("floor", intIdentity, math.Floor),
	"ceil":  num1("ceil", intIdentity, math.Ceil),
	"sign": num1("sign", func(i int64) (int64, *sqlerr.Error) { return int64(cmp3Int(i, 0)), nil }, func(f float64) float64 {
		switch {
		case f > 0:
			return 1
		case f < 0:
			return -1
		}
		return f
	}),
	"round": {
		f1: num1("round", intIdentity, math.Round).f1,
		f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			if a.K == types.Decimal {
				return decimalRound2(a, b)
			}
			p := math.Pow10(int(max(min(b.I, 400), -400)))
			x := math.Round(a.F*p) / p
			if math.IsInf(x, 0) || math.IsNaN(x) {
				x = a.F
			}
			return okv(types.FloatValue(x))
		},
	},
	"power": {f2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
		switch {
		case a.F == 0 && b.F < 0:
			return types.NullValue, errPowZeroNeg
		case a.F < 0 && b.F != math.Trunc(b.F):
			return types.NullValue, errPowComplex
		}
		return okv(types.FloatValue(math.Pow(a.F, b.F)))
	}},
	"sqrt": flt1(func(x float64) (float64, *sqlerr.Error) {
		if x < 0 {
			return 0, errSqrtNeg
		}
		return math.Sqrt(x), nil
	}),
	"ln":    flt1(logOf(math.Log)),
	"log10": flt1(logOf(math.Log10)),
	"exp":   flt1(func(x float64) (float64, *sqlerr.Error) { return math.Exp(x), nil }),
	"log": {
		f1: flt1(logOf(math.Log10)).f1,
		f2: func(b, x types.Value) (types.Value, *sqlerr.Error) {
			lb, err := logOf(math.Log)(b.F)
			if err != nil {
				return types.NullValue, err
			}
			lx, err := logOf(math.Log)(x.F)
			if err != nil {
				return types.NullValue, err
			}
			if lb == 0 {
				return types.NullValue, errDivZero
			}
			return okv(types.FloatValue(lx / lb))
		},
	},
	"to_timestamp": {f1: func(a types.Value) (types.Value, *sqlerr.Error) {
		f := math.Round(a.F * 1e6)
		if math.IsNaN(f) || f < -9.2e18 || f > 9.2e18 {
			return types.NullValue, errTSRange
		}
		return okv(types.TimestampValue(int64(f)))
	}},
}

func trimFn(f func(string, string) string) fnImpl {
	return fnImpl{
		f1: func(a types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S, " "))) },
		f2: func(a, b types.Value) (types.Value, *sqlerr.Error) { return okv(types.StringValue(f(a.S, b.S))) },
	}
}

// substr returns count runes of s from 1-based position start, as
// Postgres's SUBSTR does (a start below 1 eats into the count).
func substr(s string, start, count int64) string {
	end := int64(math.MaxInt64)
	if start <= 0 || count < math.MaxInt64-start { // start + count does not overflow
		end = start + count
	}
	start = max(start, 1)
	if end <= start {
		return ""
	}
	from, to := -1, len(s)
	pos := int64(1)
	for i := range s {
		if pos == start {
			from = i
		}
		if pos == end {
			to = i
			break
		}
		pos++
	}
	if from < 0 {
		return ""
	}
	return s[from:to]
}

func splitPart(a, b, c types.Value) (types.Value, *sqlerr.Error) {
	n := c.I
	if n == 0 {
		return types.NullValue, errSplitZero
	}
	var parts []string
	if b.S == "" {
		parts = []string{a.S}
		if a.S == "" {
			parts = nil
		}
	} else {
		parts = strings.Split(a.S, b.S)
	}
	idx := n - 1
	if n < 0 {
		idx = int64(len(parts)) + n
	}
	if idx < 0 || idx >= int64(len(parts)) {
		return okv(types.StringValue(""))
	}
	return okv(types.StringValue(parts[idx]))
}

// compileStrict compiles a strict function from fnImpls: NULL in, NULL
// out; a returned error is counted and yields NULL.
func (c *compiler) compileStrict(e *planner.Call) (Evaluator, error) {
	impl, found := fnImpls[e.Fn]
	if !found {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s is not implemented in exec", e.Fn)
	}
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	errs := c.errs
	done := func(v types.Value, err *sqlerr.Error) types.Value {
		if err != nil {
			errs.record(err)
			return types.NullValue
		}
		return v
	}
	switch {
	case len(args) == 1 && impl.f1 != nil:
		f, x := impl.f1, args[0]
		return func(r types.Row) types.Value {
			a := x(r)
			if a.K == types.Null {
				return a
			}
			return done(f(a))
		}, nil
	case len(args) == 2 && impl.f2 != nil:
		f, x, y := impl.f2, args[0], args[1]
		return func(r types.Row) types.Value {
			a, b := x(r), y(r)
			if a.K == types.Null || b.K == types.Null {
				return types.NullValue
			}
			return done(f(a, b))
		}, nil
	case len(args) == 3 && impl.f3 != nil:
		f, x, y, z := impl.f3, args[0], args[1], args[2]
		return func(r types.Row) types.Value {
			a, b, cc := x(r), y(r), z(r)
			if a.K == types.Null || b.K == types.Null || cc.K == types.Null {
				return types.NullValue
			}
			return done(f(a, b, cc))
		}, nil
	}
	return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s does not take %d arguments", e.Fn, len(args))
}

// ---- EXTRACT and DATE_TRUNC ---------------------------------------------

func tsFloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func tsFloorMod(a, b int64) int64 { return a - tsFloorDiv(a, b)*b }

func tsUTC(us int64) time.Time { return time.UnixMicro(us).UTC() }

// extractFn returns the field extractor for a normalised unit.
func extractFn(unit string) func(us int64) types.Value {
	switch unit {
	case "microseconds":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(us, types.Minute)) }
	case "milliseconds":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(us, types.Minute) / types.Millisecond) }
	case "second":
		return func(us int64) types.Value {
			return types.FloatValue(float64(tsFloorMod(us, types.Minute)) / float64(types.Second))
		}
	case "minute":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(us, types.Hour) / types.Minute) }
	case "hour":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(us, types.Day) / types.Hour) }
	case "day":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Day())) }
	case "dow":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Weekday())) }
	case "isodow":
		return func(us int64) types.Value { return types.IntValue(tsFloorMod(tsFloorDiv(us, types.Day)+3, 7) + 1) }
	case "doy":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).YearDay())) }
	case "week":
		return func(us int64) types.Value { _, w := tsUTC(us).ISOWeek(); return types.IntValue(int64(w)) }
	case "isoyear":
		return func(us int64) types.Value { y, _ := tsUTC(us).ISOWeek(); return types.IntValue(int64(y)) }
	case "month":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Month())) }
	case "quarter":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Month()-1)/3 + 1) }
	case "year":
		return func(us int64) types.Value { return types.IntValue(int64(tsUTC(us).Year())) }
	case "epoch":
		return func(us int64) types.Value { return types.FloatValue(float64(us) / float64(types.Second)) }
	}
	return nil
}

// truncFn returns the DATE_TRUNC function for a normalised unit; weeks
// start on Monday.
func truncFn(unit string) func(us int64) int64 {
	step := func(d int64) func(int64) int64 {
		return func(us int64) int64 { return us - tsFloorMod(us, d) }
	}
	switch unit {
	case "microseconds":
		return func(us int64) int64 { return us }
	case "milliseconds":
		return step(types.Millisecond)
	case "second":
		return step(types.Second)
	case "minute":
		return step(types.Minute)
	case "hour":
		return step(types.Hour)
	case "day":
		return step(types.Day)
	case "week":
		return func(us int64) int64 {
			d := tsFloorDiv(us, types.Day)
			return (d - tsFloorMod(d+3, 7)) * types.Day
		}
	case "month", "quarter", "year":
		return func(us int64) int64 {
			t := tsUTC(us)
			m := t.Month()
			switch unit {
			case "quarter":
				m = (m-1)/3*3 + 1
			case "year":
				m = 1
			}
			return time.Date(t.Year(), m, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
		}
	}
	return nil
}

func (c *compiler) compileTimeUnit(e *planner.Call) (Evaluator, error) {
	k, isConst := e.Args[0].(*planner.Const)
	if !isConst || k.V.K != types.String {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "the unit of %s must be a constant string", e.Fn)
	}
	unit := planner.NormalizeUnit(k.V.S)
	x, err := c.compile(e.Args[1])
	if err != nil {
		return nil, err
	}
	if e.Fn == "extract" {
		f := extractFn(unit)
		if f == nil {
			return nil, sqlerr.New(codeInvalidArgument, "unit '%s' not supported by EXTRACT", k.V.S)
		}
		return func(r types.Row) types.Value {
			v := x(r)
			if v.K == types.Null {
				return v
			}
			return f(v.I)
		}, nil
	}
	f := truncFn(unit)
	if f == nil {
		return nil, sqlerr.New(codeInvalidArgument, "unit '%s' not supported by DATE_TRUNC", k.V.S)
	}
	return func(r types.Row) types.Value {
		v := x(r)
		if v.K == types.Null {
			return v
		}
		return types.TimestampValue(f(v.I))
	}, nil
}
