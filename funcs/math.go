package funcs

import (
	"math"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

var (
	float1 = []Sig{sig(types.Float, types.Float)}
	// floatDec1 lists the double overload first: an Int argument costs
	// the same either way and Postgres picks float8, its preferred type.
	floatDec1 = []Sig{sig(types.Float, types.Float), sig(types.Decimal, types.Decimal)}
)

// Math functions. ABS, FLOOR, CEIL, TRUNC, ROUND and SIGN keep an Int
// argument Int and a Decimal one Decimal (FLOOR, CEIL, SIGN, TRUNC(x) and
// ROUND(x) at scale 0); ROUND rounds half away from zero, ROUND(x, n) and
// TRUNC(x, n) to n decimals, and a Decimal (or Int) ROUND(x, n) or
// TRUNC(x, n) has scale n, as in Postgres. MOD is `%` on BIGINT and exact
// DECIMAL. POWER, SQRT, LN, LOG (base 10) and EXP have a double and a
// numeric overload, as in Postgres: the double ones are correctly rounded
// as the C library Postgres calls rounds them (floatmath.go), the numeric
// ones keep Postgres's digits and result scales (numeric.go). An Int
// argument takes the double overload (Postgres's preferred type), a
// Decimal one the numeric. LOG(b, x) is numeric only; a double argument
// is converted as float8::numeric does (Postgres asks for that cast).
// LOG10 is double only. A domain error (sqrt of a negative, log of zero)
// or a result out of range (beyond a double, or a double underflowing to
// zero from a non-zero argument) is a runtime error, i.e. NULL and a
// counted evaluation error in a running query.
var mathFuncs = []*Func{
	{Name: "abs", Doc: "absolute value", Strict: true, Sigs: intFlt1, Impl: num1(absInt, decimalAbs, math.Abs)},
	{Name: "floor", Doc: "the largest integer not above x", Strict: true, Sigs: intFlt1, Impl: num1(intIdentity, types.DecimalFloor, math.Floor)},
	{Name: "ceil", Doc: "the smallest integer not below x", Strict: true, Sigs: intFlt1, Aliases: []string{"ceiling"},
		Impl: num1(intIdentity, types.DecimalCeil, math.Ceil)},
	{Name: "sign", Doc: "-1, 0 or 1 by the sign of x", Strict: true, Sigs: intFlt1, Impl: num1(signInt, decimalSign, signFloat)},
	{Name: "round", Doc: "round half away from zero, to n decimals (default 0)", Strict: true, Sigs: with(intFlt1,
		sig(types.Decimal, types.Int, types.Decimal),
		sig(types.Float, types.Int, types.Float)),
		Impl: Impl{F1: num1(intIdentity, decimalScaled(types.DecimalRound), math.Round).F1, F2: round2}},
	{Name: "trunc", Doc: "truncate toward zero, to n decimals (default 0)", Strict: true, Sigs: with(intFlt1,
		sig(types.Decimal, types.Int, types.Decimal)),
		Impl: Impl{F1: num1(intIdentity, decimalScaled(types.DecimalTrunc), math.Trunc).F1, F2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			v, err := types.DecimalTrunc(a, int(clampScale(b.I)))
			return v, DecimalErr(err)
		}}},
	{Name: "mod", Doc: "remainder of a / b, with the sign of a", Strict: true, Sigs: sigs(
		sig(types.Int, types.Int, types.Int),
		sig(types.Decimal, types.Decimal, types.Decimal)),
		Impl: Impl{F2: func(a, b types.Value) (types.Value, *sqlerr.Error) {
			if a.K == types.Decimal {
				v, err := types.DecimalMod(a, b)
				return v, DecimalErr(err)
			}
			x, err := IntOp('%', a.I, b.I)
			return types.IntValue(x), err
		}}},
	{Name: "power", Doc: "a raised to the power b", Strict: true, Aliases: []string{"pow"},
		Sigs: sigs(sig(types.Float, types.Float, types.Float), sig(types.Decimal, types.Decimal, types.Decimal)), Impl: Impl{F2: power}},
	{Name: "sqrt", Doc: "square root", Strict: true, Sigs: floatDec1, Impl: fltDec1(func(x float64) (float64, *sqlerr.Error) {
		if x < 0 {
			return 0, errSqrtNeg
		}
		return math.Sqrt(x), nil
	}, numSqrt)},
	{Name: "ln", Doc: "natural logarithm", Strict: true, Sigs: floatDec1, Impl: fltDec1(logOf(lnCR), numLn)},
	{Name: "log10", Doc: "base 10 logarithm", Strict: true, Sigs: float1, Aliases: []string{"dlog10"}, Impl: flt1(logOf(log10CR))},
	{Name: "exp", Doc: "e raised to the power x", Strict: true, Sigs: floatDec1, Impl: fltDec1(func(x float64) (float64, *sqlerr.Error) {
		r := expCR(x)
		switch {
		case math.IsInf(r, 0) && !math.IsInf(x, 0):
			return 0, errFloatRange
		case r == 0 && !math.IsInf(x, 0):
			return 0, errFloatUnder
		}
		return r, nil
	}, numExp)},
	// LOG(b, x) is numeric only, as in Postgres; a double argument is
	// converted as float8::numeric converts it (Postgres asks for the cast).
	{Name: "log", Doc: "base 10 logarithm of x, or LOG(b, x) in base b", Strict: true, Sigs: with(floatDec1,
		sig(types.Decimal, types.Decimal, types.Decimal), sig(types.Decimal, types.Float, types.Decimal),
		sig(types.Float, types.Decimal, types.Decimal), sig(types.Float, types.Float, types.Decimal)),
		Impl: Impl{F1: fltDec1(logOf(log10CR), numLog10).F1, F2: logBase}},
}

// fltDec1 is a function of one double (ff) or one numeric (fd).
func fltDec1(ff func(float64) (float64, *sqlerr.Error), fd func(types.Value) (types.Value, *sqlerr.Error)) Impl {
	return Impl{F1: func(a types.Value) (types.Value, *sqlerr.Error) {
		if a.K == types.Decimal {
			return fd(a)
		}
		x, err := ff(a.F)
		return types.FloatValue(x), err
	}}
}

func flt1(f func(float64) (float64, *sqlerr.Error)) Impl {
	return Impl{F1: func(a types.Value) (types.Value, *sqlerr.Error) {
		x, err := f(a.F)
		return types.FloatValue(x), err
	}}
}

// num1 is a math function of one number: fi for BIGINT, fd for DECIMAL
// and ff for DOUBLE.
func num1(fi func(int64) (int64, *sqlerr.Error), fd func(types.Value) (types.Value, error), ff func(float64) float64) Impl {
	return Impl{F1: func(a types.Value) (types.Value, *sqlerr.Error) {
		switch a.K {
		case types.Int:
			x, err := fi(a.I)
			return types.IntValue(x), err
		case types.Decimal:
			x, err := fd(a)
			return x, DecimalErr(err)
		}
		return okv(types.FloatValue(ff(a.F)))
	}}
}

func decimalAbs(v types.Value) (types.Value, error) { return types.DecimalAbs(v), nil }

func intIdentity(i int64) (int64, *sqlerr.Error) { return i, nil }

func absInt(i int64) (int64, *sqlerr.Error) {
	if i == math.MinInt64 {
		return 0, ErrIntRange
	}
	if i < 0 {
		return -i, nil
	}
	return i, nil
}

func signInt(i int64) (int64, *sqlerr.Error) {
	switch {
	case i > 0:
		return 1, nil
	case i < 0:
		return -1, nil
	}
	return 0, nil
}

func signFloat(f float64) float64 {
	switch {
	case f > 0:
		return 1
	case f < 0:
		return -1
	}
	return f
}

func decimalSign(v types.Value) (types.Value, error) {
	return types.DecimalFromInt(int64(types.Compare(v, types.DecimalFromInt(0)))), nil
}

// decimalScaled applies a (value, scale) decimal function at scale 0.
func decimalScaled(f func(types.Value, int) (types.Value, error)) func(types.Value) (types.Value, error) {
	return func(v types.Value) (types.Value, error) { return f(v, 0) }
}

func clampScale(n int64) int64 { return max(min(n, types.MaxRoundScale), -types.MaxRoundScale) }

// round2 is ROUND(x, n): a Decimal at scale max(n, 0), a double rounded
// half away from zero.
func round2(a, b types.Value) (types.Value, *sqlerr.Error) {
	if a.K == types.Decimal {
		v, err := types.DecimalRound(a, int(clampScale(b.I)))
		return v, DecimalErr(err)
	}
	p := math.Pow10(int(max(min(b.I, 400), -400)))
	x := math.Round(a.F*p) / p
	if math.IsInf(x, 0) || math.IsNaN(x) {
		x = a.F
	}
	return okv(types.FloatValue(x))
}

func power(a, b types.Value) (types.Value, *sqlerr.Error) {
	if a.K == types.Decimal {
		return numPower(a, b)
	}
	switch {
	case a.F == 0 && b.F < 0:
		return types.NullValue, errPowZeroNeg
	case a.F < 0 && b.F != math.Trunc(b.F):
		return types.NullValue, errPowComplex
	}
	r := powCR(a.F, b.F)
	switch {
	case math.IsInf(r, 0) && !math.IsInf(a.F, 0) && !math.IsInf(b.F, 0):
		return types.NullValue, errFloatRange
	case r == 0 && a.F != 0:
		return types.NullValue, errFloatUnder
	}
	return okv(types.FloatValue(r))
}

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

// logBase is LOG(b, x) on numerics, a double argument converted first.
func logBase(b, x types.Value) (types.Value, *sqlerr.Error) {
	b, err := asNumeric(b)
	if err != nil {
		return types.NullValue, err
	}
	if x, err = asNumeric(x); err != nil {
		return types.NullValue, err
	}
	return numLog(b, x)
}

// asNumeric converts a double to numeric as Postgres's float8::numeric.
func asNumeric(v types.Value) (types.Value, *sqlerr.Error) {
	if v.K != types.Float {
		return v, nil
	}
	d, err := types.DecimalFromFloat(v.F)
	return d, DecimalErr(err)
}

// IntOp applies an arithmetic operator to two BIGINTs (IntArith).
func IntOp(op byte, a, b int64) (int64, *sqlerr.Error) { return IntArith(op)(a, b) }

// IntArith returns the BIGINT operator op ('+', '-', '*', '/' or '%')
// with Postgres semantics: overflow is an error, `/` truncates toward
// zero and `%` takes the sign of the dividend. Compiled expressions call
// the returned function directly, one call per row.
func IntArith(op byte) func(a, b int64) (int64, *sqlerr.Error) {
	switch op {
	case '+':
		return intAdd
	case '-':
		return intSub
	case '*':
		return intMul
	case '/':
		return intDiv
	}
	return intMod
}

func intAdd(a, b int64) (int64, *sqlerr.Error) {
	s := a + b
	if (s > a) != (b > 0) {
		return 0, ErrIntRange
	}
	return s, nil
}

func intSub(a, b int64) (int64, *sqlerr.Error) {
	d := a - b
	if (d < a) != (b > 0) {
		return 0, ErrIntRange
	}
	return d, nil
}

func intMul(a, b int64) (int64, *sqlerr.Error) {
	m := a * b
	if a != 0 && (m/a != b || (a == -1 && b == math.MinInt64)) {
		return 0, ErrIntRange
	}
	return m, nil
}

func intDiv(a, b int64) (int64, *sqlerr.Error) {
	if b == 0 {
		return 0, ErrDivZero
	}
	if a == math.MinInt64 && b == -1 {
		return 0, ErrIntRange
	}
	return a / b, nil
}

func intMod(a, b int64) (int64, *sqlerr.Error) {
	if b == 0 {
		return 0, ErrDivZero
	}
	if b == -1 {
		return 0, nil
	}
	return a % b, nil
}
