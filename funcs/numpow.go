package funcs

import (
	"math"
	"math/big"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// numPower is POWER(numeric, numeric). An integral exponent that fits
// an int32 multiplies (scale max(16, a's scale), as Postgres 15's
// power_var_int); any other is e^(b·ln a) at a scale for 16 significant
// digits of the estimated result, at least either argument's scale.
func numPower(a, b types.Value) (types.Value, *sqlerr.Error) {
	sa, sb := decSign(a), decSign(b)
	bInt := isIntegral(b)
	switch {
	case sa == 0 && sb < 0:
		return types.NullValue, errPowZeroNeg
	case sa < 0 && !bInt:
		return types.NullValue, errPowComplex
	}
	if bInt {
		if n, err := types.DecimalToInt(b); err == nil && n >= math.MinInt32 && n <= math.MaxInt32 {
			return powerInt(a, n)
		}
	}
	if sa == 0 {
		return types.DecimalValue(0, minSigDigits), nil
	}
	return powerReal(a, b)
}

// isIntegral reports whether a Decimal has no fractional part.
func isIntegral(v types.Value) bool {
	d, e := sigDigits(v)
	return d == "" || len(d)-1 <= e
}

// powerInt is a^n for an int32 n.
func powerInt(a types.Value, n int64) (types.Value, *sqlerr.Error) {
	rs := resultScale(minSigDigits, a)
	if n == 0 {
		v, err := types.DecimalRound(decOne, rs)
		return v, DecimalErr(err)
	}
	if decSign(a) == 0 {
		return types.DecimalValue(0, rs), nil
	}
	d, e := sigDigits(a)
	f := float64(n) * (math.Log10(float64(digitsAt(d, 0, 17))) - 16 + float64(e))
	switch {
	case f > maxNumericDigits:
		return types.NullValue, ErrDecOverflow
	case f+1 < -float64(rs):
		return types.DecimalValue(0, rs), nil
	}
	c := types.DecimalBigCoef(a, int(a.Scale))
	neg := n < 0
	m := n
	if neg {
		m = -n
	}
	if digits := int64(len(c.String())) * m; digits <= exactPowDigits {
		p := new(big.Int).Exp(c, big.NewInt(m), nil)
		scale := int(a.Scale) * int(m)
		if !neg {
			v, err := types.DecimalFromBig(p, scale)
			if err != nil {
				return types.NullValue, DecimalErr(err)
			}
			v, err = types.DecimalRound(v, rs)
			return v, DecimalErr(err)
		}
		num := new(big.Int).Exp(bigTen, big.NewInt(int64(scale+rs)), nil)
		if p.Sign() < 0 {
			num.Neg(num)
			p.Neg(p)
		}
		v, err := types.DecimalFromBig(divRound(num, p), rs)
		return v, DecimalErr(err)
	}
	prec := bitsFor(rs+int(f)+40) + uint(64)
	x := toBig(a, prec)
	r := new(big.Float).SetPrec(prec).SetInt64(1)
	for i := 62; i >= 0; i-- {
		r.Mul(r, r)
		if m&(1<<i) != 0 {
			r.Mul(r, x)
		}
	}
	if neg {
		r.Quo(new(big.Float).SetPrec(prec).SetInt64(1), r)
	}
	return fromBig(r, rs)
}

// powerReal is a^b = e^(b·ln a) for a > 0 and a non-integral (or huge)
// b, with Postgres's result scale and overflow limits.
func powerReal(a, b types.Value) (types.Value, *sqlerr.Error) {
	lnA, _ := lnBig(toBig(a, 128)).Float64()
	val := lnA * types.DecimalToFloat(b)
	if math.Abs(val) > expLimit*3.01 || math.IsNaN(val) {
		if val > 0 {
			return types.NullValue, ErrDecOverflow
		}
		return types.DecimalValue(0, types.MaxRoundScale), nil
	}
	w := val * math.Log10E
	rs := resultScale(minSigDigits-int(w), a, b)
	switch {
	case val >= expLimit:
		return types.NullValue, ErrDecOverflow
	case val <= -expLimit:
		return types.DecimalValue(0, rs), nil
	}
	sig := max(rs+int(w), 0)
	prec := bitsFor(sig + 48 + max(-lnWeight(a), 0))
	x := lnBig(toBig(a, prec))
	x.Mul(x, toBig(b, prec))
	return fromBig(expBig(x, bitsFor(sig+40)), rs)
}
