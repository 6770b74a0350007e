package funcs

import (
	"math"
	"math/big"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// The NUMERIC overloads of LN, LOG, EXP, SQRT and POWER. Each computes
// with math/big far beyond the digits it keeps and rounds half away from
// zero to the result scale Postgres 15 chooses: enough for at least
// NUMERIC_MIN_SIG_DIGITS (16) significant digits, estimated from the
// argument's magnitude as Postgres estimates it, never less than an
// argument's scale and at most 1000. So ln(2.0) prints
// 0.6931471805599453 and sqrt(2.0) 1.414213562373095, as in Postgres.

const (
	minSigDigits   = 16   // NUMERIC_MIN_SIG_DIGITS
	maxResultScale = 2000 // NUMERIC_MAX_RESULT_SCALE
	// expLimit bounds |x| for exp(x) (NUMERIC_MAX_RESULT_SCALE * 3): a
	// larger x overflows, a smaller one underflows to zero.
	expLimit = 3 * maxResultScale
	// exactPowDigits bounds the digits of base^n that POWER computes
	// exactly; larger powers go through big.Float.
	exactPowDigits = 4000
	// maxNumericDigits is how many digits numeric holds before the point.
	maxNumericDigits = 131072
)

var (
	decOne       = types.DecimalFromInt(1)
	decZero      = types.DecimalFromInt(0)
	decPointNine = types.DecimalValue(9, 1)
	decOnePtOne  = types.DecimalValue(11, 1)
	bigTen       = big.NewInt(10)
)

// resultScale clamps a wanted scale to [0, 1000] after raising it to
// each of the arguments' scales.
func resultScale(r int, args ...types.Value) int {
	for _, a := range args {
		r = max(r, int(a.Scale))
	}
	return min(max(r, 0), types.MaxRoundScale)
}

// bitsFor is a big.Float precision for digits decimal digits and a guard.
func bitsFor(digits int) uint { return uint(float64(max(digits, 0))*math.Log2(10)) + 64 }

func decSign(v types.Value) int { return types.DecimalCmp(v, decZero) }

// sigDigits returns |v|'s digits without leading or trailing zeros and
// the power of ten of the first ("" for zero).
func sigDigits(v types.Value) (string, int) {
	c := types.DecimalBigCoef(v, int(v.Scale))
	d := c.Abs(c).String()
	if d == "0" {
		return "", 0
	}
	return strings.TrimRight(d, "0"), len(d) - 1 - int(v.Scale)
}

// nbaseHead returns the weight of v's first base-10000 digit (the
// groups Postgres stores, aligned on the point), that digit, and the
// next one when v has more (zero weight for zero).
func nbaseHead(v types.Value) (weight, first, second int, more bool) {
	d, e := sigDigits(v)
	if d == "" {
		return 0, 0, 0, false
	}
	weight = floorDiv(e, 4)
	n := e - 4*weight + 1 // decimal digits in the first group
	first = digitsAt(d, 0, n)
	if len(d) > n {
		second, more = digitsAt(d, n, 4), true
	}
	return weight, first, second, more
}

// digitsAt reads cnt decimal digits of d from from, zeros past its end.
func digitsAt(d string, from, cnt int) int {
	x := 0
	for i := from; i < from+cnt; i++ {
		x *= 10
		if i < len(d) {
			x += int(d[i] - '0')
		}
	}
	return x
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// lnWeight estimates the power of ten of ln(v)'s leading digit as
// Postgres's estimate_ln_dweight does: from v - 1 near 1, else from v's
// first two base-10000 digits in double precision.
func lnWeight(v types.Value) int {
	if decSign(v) <= 0 {
		return 0
	}
	if types.DecimalCmp(v, decPointNine) >= 0 && types.DecimalCmp(v, decOnePtOne) <= 0 {
		x, _ := types.DecimalSub(v, decOne)
		_, e := sigDigits(x)
		return e
	}
	w, d0, d1, more := nbaseHead(v)
	digits, dweight := float64(d0), w*4
	if more {
		digits, dweight = digits*10000+float64(d1), dweight-4
	}
	l := math.Log(digits) + float64(dweight)*math.Ln10
	return int(math.Log10(math.Abs(l)))
}

// toBig converts a Decimal to a big.Float of precision prec.
func toBig(v types.Value, prec uint) *big.Float {
	r := new(big.Rat).SetFrac(types.DecimalBigCoef(v, int(v.Scale)), new(big.Int).Exp(bigTen, big.NewInt(int64(v.Scale)), nil))
	return new(big.Float).SetPrec(prec).SetRat(r)
}

// fromBig rounds f half away from zero to a Decimal of scale digits.
func fromBig(f *big.Float, scale int) (types.Value, *sqlerr.Error) {
	r, _ := f.Rat(nil)
	n := new(big.Int).Mul(r.Num(), new(big.Int).Exp(bigTen, big.NewInt(int64(scale)), nil))
	v, err := types.DecimalFromBig(divRound(n, r.Denom()), scale)
	return v, DecimalErr(err)
}

// divRound divides rounding half away from zero (d > 0).
func divRound(n, d *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(n, d, new(big.Int))
	if m.Sign() != 0 && new(big.Int).Lsh(m.Abs(m), 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(int64(n.Sign())))
	}
	return q
}

// lnBig returns ln(x) for x > 0, to about x's precision: x = m·2^e with
// m in [1/√2, √2), ln x = e·ln 2 + 2·atanh((m-1)/(m+1)).
func lnBig(x *big.Float) *big.Float {
	prec := x.Prec() + 32
	m := new(big.Float).SetPrec(prec)
	e := x.MantExp(m)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	z := new(big.Float).SetPrec(prec).Sub(m, one)
	z.Quo(z, new(big.Float).SetPrec(prec).Add(m, one))
	r := atanh2(z)
	if e != 0 {
		l2 := ln2(prec + 32)
		r.Add(r, l2.Mul(l2, new(big.Float).SetInt64(int64(e))))
	}
	return r
}

// ln2 is ln 2 to prec bits.
func ln2(prec uint) *big.Float {
	third := new(big.Float).SetPrec(prec).SetInt64(1)
	return atanh2(third.Quo(third, new(big.Float).SetInt64(3)))
}

// atanh2 returns 2·atanh(z) for |z| <= 1/3 at z's precision.
func atanh2(z *big.Float) *big.Float {
	prec := z.Prec()
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum := new(big.Float).SetPrec(prec).Set(z)
	term := new(big.Float).SetPrec(prec).Set(z)
	t := new(big.Float).SetPrec(prec)
	for k := int64(3); sum.Sign() != 0; k += 2 {
		term.Mul(term, z2)
		t.Quo(term, new(big.Float).SetInt64(k))
		if t.Sign() == 0 || t.MantExp(nil) < sum.MantExp(nil)-int(prec)-4 {
			break
		}
		sum.Add(sum, t)
	}
	return sum.SetMantExp(sum, 1)
}

// expBig returns e^x to prec bits of relative precision (|x| < 6000):
// x = n·ln 2 + r, e^r from its series after halving r, squared back.
func expBig(x *big.Float, prec uint) *big.Float {
	const halvings = 20
	wp := prec + 64 + halvings
	xf, _ := x.Float64()
	n := int64(math.Round(xf / math.Ln2))
	r := ln2(wp + 16)
	r.Mul(r, new(big.Float).SetInt64(n))
	r.Sub(new(big.Float).SetPrec(wp+16).Set(x), r)
	r.SetPrec(wp).SetMantExp(r, -halvings)
	sum := new(big.Float).SetPrec(wp).SetInt64(1)
	term := new(big.Float).SetPrec(wp).SetInt64(1)
	for i := int64(1); ; i++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(i))
		if term.Sign() == 0 || term.MantExp(nil) < -int(wp)-4 {
			break
		}
		sum.Add(sum, term)
	}
	for i := 0; i < halvings; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(n))
}

// logArg refuses the logarithm of zero or of a negative number (2201E).
func logArg(v types.Value) *sqlerr.Error {
	switch decSign(v) {
	case 0:
		return errLogZero
	case -1:
		return errLogNeg
	}
	return nil
}

// numLn is LN(numeric).
func numLn(a types.Value) (types.Value, *sqlerr.Error) {
	if err := logArg(a); err != nil {
		return types.NullValue, err
	}
	w := lnWeight(a)
	rs := resultScale(minSigDigits-w, a)
	return fromBig(lnBig(toBig(a, bitsFor(rs+max(w, 0)+40))), rs)
}

// numLog10 is LOG(numeric), which Postgres defines as LOG(10, x).
func numLog10(a types.Value) (types.Value, *sqlerr.Error) { return numLog(types.DecimalFromInt(10), a) }

// numLog is LOG(b, x) on numerics: ln x / ln b at a scale for 16
// significant digits of the quotient.
func numLog(b, x types.Value) (types.Value, *sqlerr.Error) {
	if err := logArg(b); err != nil {
		return types.NullValue, err
	}
	if err := logArg(x); err != nil {
		return types.NullValue, err
	}
	wb, wx := lnWeight(b), lnWeight(x)
	rs := resultScale(minSigDigits-(wx-wb), b, x)
	prec := bitsFor(rs + abs(wb) + abs(wx) + 40)
	lb := lnBig(toBig(b, prec))
	if lb.Sign() == 0 {
		return types.NullValue, ErrDivZero
	}
	lx := lnBig(toBig(x, prec))
	return fromBig(lx.Quo(lx, lb), rs)
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// numExp is EXP(numeric).
func numExp(a types.Value) (types.Value, *sqlerr.Error) {
	x := types.DecimalToFloat(a)
	val := min(max(x*math.Log10E, -maxResultScale), maxResultScale)
	rs := resultScale(minSigDigits-int(val), a)
	return expAt(a, x, rs)
}

// expAt is e^a at scale rs; x is a as a double.
func expAt(a types.Value, x float64, rs int) (types.Value, *sqlerr.Error) {
	if math.Abs(x) >= expLimit {
		if x > 0 {
			return types.NullValue, ErrDecOverflow
		}
		return types.DecimalValue(0, rs), nil
	}
	prec := bitsFor(rs + int(x*math.Log10E) + 40)
	return fromBig(expBig(toBig(a, prec+32), prec), rs)
}

// numSqrt is SQRT(numeric): the square root of the coefficient scaled to
// one digit beyond the result scale, rounded on that digit (exact).
func numSqrt(a types.Value) (types.Value, *sqlerr.Error) {
	if decSign(a) < 0 {
		return types.NullValue, errSqrtNeg
	}
	w, _, _, _ := nbaseHead(a)
	rs := resultScale(minSigDigits-((w+1)*4/2-1), a)
	n := types.DecimalBigCoef(a, 2*(rs+1)) // rs >= a's scale
	q := n.Sqrt(n)
	last := new(big.Int)
	q.QuoRem(q, bigTen, last)
	if last.Int64() >= 5 {
		q.Add(q, big.NewInt(1))
	}
	v, err := types.DecimalFromBig(q, rs)
	return v, DecimalErr(err)
}
