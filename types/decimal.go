package types

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// A Decimal value is exact, as Postgres's numeric: its number is a
// coefficient divided by 10^Scale, and Scale is also how many digits after
// the point it prints (0.10 has coefficient 10 and scale 2). The
// coefficient is I when it fits an int64 (S is then ""), the fast path
// that money sums stay on; a larger one is S, in base 10 with an optional
// leading '-'. The forms are canonical: a coefficient that fits an int64
// is never held in S, so two Values of one number and scale are ==.

// Decimal limits, those of Postgres's numeric.
const (
	// MaxDecimalPrecision is the largest p of DECIMAL(p, s).
	MaxDecimalPrecision = 1000
	// MaxRoundScale is the largest scale division and ROUND produce
	// (Postgres's NUMERIC_MAX_DISPLAY_SCALE).
	MaxRoundScale = 1000
	// maxDecimalScale bounds any value's scale (NUMERIC_DSCALE_MAX).
	maxDecimalScale = 16383
	// maxDecimalDigits bounds a value's digits before the point.
	maxDecimalDigits = 131072
	// minDivDigits is how many significant digits a quotient has at
	// least (NUMERIC_MIN_SIG_DIGITS).
	minDivDigits = 16
)

// DecimalError is a failed decimal operation or conversion. Code is its
// SQLSTATE: 22003 out of range, 22P02 bad text, 22012 division by zero.
type DecimalError struct {
	Code, Msg string
}

// Error returns the message.
func (e *DecimalError) Error() string { return e.Msg }

// SQLState returns the SQLSTATE code.
func (e *DecimalError) SQLState() string { return e.Code }

// Decimal errors that carry no detail.
var (
	ErrDecimalOverflow = &DecimalError{Code: "22003", Msg: "value overflows numeric format"}
	ErrDecimalDivZero  = &DecimalError{Code: "22012", Msg: "division by zero"}
)

// pow10 holds the powers of ten that fit an int64.
var pow10 = func() [19]int64 {
	var p [19]int64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// DecimalValue returns the Decimal coef / 10^scale (scale at most 16383).
func DecimalValue(coef int64, scale int) Value {
	return Value{K: Decimal, Scale: uint16(scale), I: coef}
}

// DecimalFromInt returns i as a Decimal of scale 0.
func DecimalFromInt(i int64) Value { return DecimalValue(i, 0) }

// DecimalFromBig returns coef / 10^scale in canonical form, refusing
// values beyond numeric's limits (ErrDecimalOverflow).
func DecimalFromBig(coef *big.Int, scale int) (Value, error) { return decimalFromBig(coef, scale) }

func decimalFromBig(coef *big.Int, scale int) (Value, error) {
	if scale > maxDecimalScale {
		return NullValue, ErrDecimalOverflow
	}
	if coef.IsInt64() {
		return DecimalValue(coef.Int64(), scale), nil
	}
	s := coef.String()
	if n := len(strings.TrimPrefix(s, "-")); n-scale > maxDecimalDigits {
		return NullValue, ErrDecimalOverflow
	}
	return Value{K: Decimal, Scale: uint16(scale), S: s}, nil
}

// DecimalBigCoef returns v's coefficient at scale (>= v's own) as a new
// big.Int: v is DecimalBigCoef(v, s) / 10^s.
func DecimalBigCoef(v Value, scale int) *big.Int { return rescaleBig(v, scale) }

// bigCoef returns the coefficient of a Decimal as a big.Int.
func (v Value) bigCoef() *big.Int {
	if v.S == "" {
		return big.NewInt(v.I)
	}
	b, _ := new(big.Int).SetString(v.S, 10)
	return b
}

// coefDigits returns the coefficient's absolute value in base 10.
func (v Value) coefDigits() string {
	if v.S != "" {
		return strings.TrimPrefix(v.S, "-")
	}
	u := uint64(v.I)
	if v.I < 0 {
		u = -u
	}
	return strconv.FormatUint(u, 10)
}

// decimalSign is -1, 0 or 1.
func (v Value) decimalSign() int {
	switch {
	case v.S != "" && v.S[0] == '-':
		return -1
	case v.S != "":
		return 1
	case v.I < 0:
		return -1
	case v.I > 0:
		return 1
	}
	return 0
}

// appendDecimal appends a Decimal's Postgres text: every scale digit
// shown, no exponent.
func appendDecimal(dst []byte, v Value) []byte {
	if v.decimalSign() < 0 {
		dst = append(dst, '-')
	}
	d := v.coefDigits()
	s := int(v.Scale)
	if s == 0 {
		return append(dst, d...)
	}
	if len(d) <= s {
		dst = append(dst, '0', '.')
		for i := len(d); i < s; i++ {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	}
	dst = append(dst, d[:len(d)-s]...)
	dst = append(dst, '.')
	return append(dst, d[len(d)-s:]...)
}

// FormatDecimal prints a Decimal as Postgres prints a numeric.
func FormatDecimal(v Value) string { return string(appendDecimal(nil, v)) }

// AppendDecimal appends FormatDecimal(v) to dst.
func AppendDecimal(dst []byte, v Value) []byte { return appendDecimal(dst, v) }

// ParseDecimal reads numeric text as Postgres does: optional spaces and
// sign, digits with an optional point, an optional exponent (1.5e3). The
// scale is the digits after the point less the exponent, at least 0, so
// "0.10" keeps scale 2.
func ParseDecimal(s string) (Value, error) {
	t := strings.TrimSpace(s)
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	mant, exp := t, 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		e, err := strconv.Atoi(t[i+1:])
		if err != nil || e > MaxDecimalPrecision || e < -MaxDecimalPrecision {
			return NullValue, badDecimal(s)
		}
		mant, exp = t[:i], e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return NullValue, badDecimal(s)
	}
	scale := len(frac) - exp
	if scale < 0 {
		digits += strings.Repeat("0", -scale)
		scale = 0
	}
	if len(digits) <= 18 {
		n, _ := strconv.ParseInt(digits, 10, 64)
		if neg {
			n = -n
		}
		if scale > maxDecimalScale {
			return NullValue, ErrDecimalOverflow
		}
		return DecimalValue(n, scale), nil
	}
	b, _ := new(big.Int).SetString(digits, 10)
	if neg {
		b.Neg(b)
	}
	return decimalFromBig(b, scale)
}

func badDecimal(s string) error {
	return &DecimalError{Code: "22P02", Msg: "invalid input syntax for type numeric: \"" + s + "\""}
}

// rescale returns v's coefficient at scale s >= v.Scale (exact).
func rescaleBig(v Value, s int) *big.Int {
	b := v.bigCoef()
	if d := s - int(v.Scale); d > 0 {
		b.Mul(b, bigPow10(d))
	}
	return b
}

func bigPow10(n int) *big.Int {
	if n < len(pow10) {
		return big.NewInt(pow10[n])
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// mulPow10 returns x * 10^n when it fits an int64.
func mulPow10(x int64, n int) (int64, bool) {
	if n == 0 {
		return x, true
	}
	if n >= len(pow10) {
		return 0, x == 0
	}
	return mul64(x, pow10[n])
}

func mul64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(abs64(a)), uint64(abs64(b)))
	if hi != 0 || lo > math.MaxInt64 || a == math.MinInt64 || b == math.MinInt64 {
		return 0, false
	}
	if (a < 0) != (b < 0) {
		return -int64(lo), true
	}
	return int64(lo), true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// align returns a's and b's coefficients at their common scale when both
// fit an int64.
func align(a, b Value) (x, y int64, scale int, ok bool) {
	if a.S != "" || b.S != "" {
		return 0, 0, 0, false
	}
	x, y, scale = a.I, b.I, int(a.Scale)
	switch {
	case a.Scale < b.Scale:
		x, ok = mulPow10(a.I, int(b.Scale-a.Scale))
		scale = int(b.Scale)
	case a.Scale > b.Scale:
		y, ok = mulPow10(b.I, int(a.Scale-b.Scale))
	default:
		ok = true
	}
	return x, y, scale, ok
}

// DecimalAdd returns a + b at scale max(a's, b's).
func DecimalAdd(a, b Value) (Value, error) {
	if x, y, s, ok := align(a, b); ok {
		if z := x + y; (z > x) == (y > 0) {
			return DecimalValue(z, s), nil
		}
	}
	s := int(max(a.Scale, b.Scale))
	return decimalFromBig(new(big.Int).Add(rescaleBig(a, s), rescaleBig(b, s)), s)
}

// DecimalSub returns a - b at scale max(a's, b's).
func DecimalSub(a, b Value) (Value, error) { return DecimalAdd(a, DecimalNeg(b)) }

// DecimalNeg returns -v.
func DecimalNeg(v Value) Value {
	if v.S == "" && v.I != math.MinInt64 {
		v.I = -v.I
		return v
	}
	n, _ := decimalFromBig(new(big.Int).Neg(v.bigCoef()), int(v.Scale))
	return n
}

// DecimalAbs returns |v|.
func DecimalAbs(v Value) Value {
	if v.decimalSign() < 0 {
		return DecimalNeg(v)
	}
	return v
}

// DecimalMul returns a * b at scale a's + b's, as Postgres does.
func DecimalMul(a, b Value) (Value, error) {
	s := int(a.Scale) + int(b.Scale)
	if a.S == "" && b.S == "" && s <= maxDecimalScale {
		if z, ok := mul64(a.I, b.I); ok {
			return DecimalValue(z, s), nil
		}
	}
	return decimalFromBig(new(big.Int).Mul(a.bigCoef(), b.bigCoef()), s)
}

// DecimalDiv returns a / b rounded half away from zero at Postgres's
// division scale (see DivScale).
func DecimalDiv(a, b Value) (Value, error) {
	if b.decimalSign() == 0 {
		return NullValue, ErrDecimalDivZero
	}
	rs := DivScale(a, b)
	// a/b at scale rs is round(ca * 10^(rs + sb - sa) / cb); rs >= sa.
	shift := rs + int(b.Scale) - int(a.Scale)
	if a.S == "" && b.S == "" {
		if n, ok := mulPow10(a.I, shift); ok {
			return DecimalValue(divRound64(n, b.I), rs), nil
		}
	}
	n := a.bigCoef()
	n.Mul(n, bigPow10(shift))
	return decimalFromBig(divRoundBig(n, b.bigCoef()), rs)
}

// divRound64 divides rounding half away from zero (d != 0).
func divRound64(n, d int64) int64 {
	if n == math.MinInt64 && d == -1 {
		return n // unreachable through DecimalDiv's shifts; keep total
	}
	q, r := n/d, n%d
	if r != 0 && uint64(abs64(r)) >= uint64(abs64(d))-uint64(abs64(r)) {
		if (n < 0) != (d < 0) {
			q--
		} else {
			q++
		}
	}
	return q
}

func divRoundBig(n, d *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(n, d, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	r2 := new(big.Int).Abs(r)
	r2.Lsh(r2, 1)
	if r2.CmpAbs(d) >= 0 {
		if (n.Sign() < 0) != (d.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// DivScale is the scale of a / b, Postgres's select_div_scale: enough
// for at least 16 significant digits of the quotient, and no less than
// either operand's scale; at most 1000. Like Postgres it estimates the
// quotient's magnitude from the operands' leading base-10000 digits, so
// results print digit for digit as Postgres prints them.
func DivScale(a, b Value) int {
	w1, d1 := nbaseLead(a)
	w2, d2 := nbaseLead(b)
	qw := w1 - w2
	if d1 <= d2 {
		qw--
	}
	rs := minDivDigits - qw*4
	rs = max(rs, int(a.Scale), int(b.Scale), 0)
	return min(rs, MaxRoundScale)
}

// nbaseLead returns the weight and value of v's first non-zero digit in
// base 10000 (the digit groups Postgres stores, aligned on the point);
// 0, 0 for zero.
func nbaseLead(v Value) (weight, digit int) {
	d := strings.TrimLeft(v.coefDigits(), "0")
	if d == "" {
		return 0, 0
	}
	e := len(d) - 1 - int(v.Scale) // power of ten of the leading digit
	weight = floorDiv(e, 4)
	n := e - 4*weight + 1 // digits of the leading group
	for i := 0; i < n; i++ {
		digit *= 10
		if i < len(d) {
			digit += int(d[i] - '0')
		}
	}
	return weight, digit
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// DecimalMod returns a % b (the sign of a) at scale max(a's, b's), as
// Postgres's numeric mod.
func DecimalMod(a, b Value) (Value, error) {
	if b.decimalSign() == 0 {
		return NullValue, ErrDecimalDivZero
	}
	if x, y, s, ok := align(a, b); ok {
		if y == -1 {
			return DecimalValue(0, s), nil
		}
		return DecimalValue(x%y, s), nil
	}
	s := int(max(a.Scale, b.Scale))
	return decimalFromBig(new(big.Int).Rem(rescaleBig(a, s), rescaleBig(b, s)), s)
}

// DecimalRound rounds v half away from zero to scale digits after the
// point (a negative scale rounds before it) and returns it at scale
// max(scale, 0): ROUND(1.5, 3) is 1.500, as in Postgres.
func DecimalRound(v Value, scale int) (Value, error) {
	scale = min(scale, MaxRoundScale)
	out := max(scale, 0)
	d := int(v.Scale) - scale // digits to drop
	if d <= 0 {
		if n, ok := mulPow10(v.I, out-int(v.Scale)); ok && v.S == "" {
			return DecimalValue(n, out), nil
		}
		return decimalFromBig(rescaleBig(v, out), out)
	}
	var q *big.Int
	if v.S == "" && d < len(pow10) {
		q = big.NewInt(divRound64(v.I, pow10[d]))
	} else {
		q = divRoundBig(v.bigCoef(), bigPow10(d))
	}
	if scale < 0 {
		q.Mul(q, bigPow10(-scale))
	}
	return decimalFromBig(q, out)
}

// DecimalTrunc truncates v toward zero to scale digits after the point
// (before it when negative) and returns it at scale max(scale, 0), as
// Postgres's trunc(numeric, int).
func DecimalTrunc(v Value, scale int) (Value, error) {
	scale = min(scale, MaxRoundScale)
	d := int(v.Scale) - scale // digits to drop
	if d <= 0 {
		return DecimalRound(v, scale)
	}
	q := new(big.Int).Quo(v.bigCoef(), bigPow10(d))
	if scale < 0 {
		q.Mul(q, bigPow10(-scale))
	}
	return decimalFromBig(q, max(scale, 0))
}

// DecimalFloor returns the largest integer <= v, at scale 0.
func DecimalFloor(v Value) (Value, error) { return decimalToward(v, -1) }

// DecimalCeil returns the smallest integer >= v, at scale 0.
func DecimalCeil(v Value) (Value, error) { return decimalToward(v, 1) }

func decimalToward(v Value, dir int) (Value, error) {
	if v.Scale == 0 {
		return v, nil
	}
	q, r := new(big.Int).QuoRem(v.bigCoef(), bigPow10(int(v.Scale)), new(big.Int))
	if r.Sign() != 0 && r.Sign() == dir {
		q.Add(q, big.NewInt(int64(dir)))
	}
	return decimalFromBig(q, 0)
}

// DecimalFit coerces v to DECIMAL(precision, scale) as Postgres's
// apply_typmod does: it rounds to scale, then refuses (22003) a value
// with more than precision - scale digits before the point. Precision 0
// means unconstrained: v is returned as is.
func DecimalFit(v Value, precision, scale int) (Value, error) {
	if precision <= 0 {
		return v, nil
	}
	r, err := DecimalRound(v, scale)
	if err != nil {
		return NullValue, err
	}
	if intDigits(r) > precision-scale {
		msg := "numeric field overflow: a field with precision " + strconv.Itoa(precision) + ", scale " + strconv.Itoa(scale) +
			" must round to an absolute value less than "
		if precision == scale {
			msg += "1"
		} else {
			msg += "10^" + strconv.Itoa(precision-scale)
		}
		return NullValue, &DecimalError{Code: "22003", Msg: msg}
	}
	return r, nil
}

// intDigits counts v's significant digits before the point.
func intDigits(v Value) int {
	d := strings.TrimLeft(v.coefDigits(), "0")
	return max(len(d)-int(v.Scale), 0)
}

// DecimalCmp orders two Decimals numerically (1.0 equals 1.00).
func DecimalCmp(a, b Value) int {
	if x, y, _, ok := align(a, b); ok {
		return cmpInt(x, y)
	}
	sa, sb := a.decimalSign(), b.decimalSign()
	if sa != sb {
		return cmpInt(int64(sa), int64(sb))
	}
	s := int(max(a.Scale, b.Scale))
	return rescaleBig(a, s).Cmp(rescaleBig(b, s))
}

// DecimalNormalize drops v's trailing fractional zeros (1.50 becomes
// 1.5): equal numbers then have one form, for hashing and keys.
func DecimalNormalize(v Value) Value {
	if v.S == "" {
		for v.Scale > 0 && v.I%10 == 0 {
			v.I /= 10
			v.Scale--
		}
		if v.I == 0 {
			v.Scale = 0
		}
		return v
	}
	b := v.bigCoef()
	ten, r := big.NewInt(10), new(big.Int)
	s := int(v.Scale)
	for s > 0 {
		q, m := new(big.Int).QuoRem(b, ten, r)
		if m.Sign() != 0 {
			break
		}
		b, s = q, s-1
	}
	n, _ := decimalFromBig(b, s)
	return n
}

// DecimalToFloat returns the double nearest to v.
func DecimalToFloat(v Value) float64 {
	if v.S == "" && v.I > -1<<53 && v.I < 1<<53 && v.Scale <= 22 {
		return float64(v.I) / math.Pow10(int(v.Scale)) // both exact: one rounding
	}
	f, _ := strconv.ParseFloat(FormatDecimal(v), 64)
	return f
}

// DecimalFromFloat converts a double as Postgres's float8 to numeric
// does: through its 15 significant digits (0.1 + 0.2 becomes 0.3). NaN
// and infinities are refused.
func DecimalFromFloat(f float64) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return NullValue, &DecimalError{Code: "22003", Msg: "cannot convert " + FormatFloat(f) + " to numeric"}
	}
	return ParseDecimal(strconv.FormatFloat(f, 'g', 15, 64))
}

// DecimalToInt rounds v half away from zero to a BIGINT, refusing values
// out of its range (22003).
func DecimalToInt(v Value) (int64, error) {
	r, err := DecimalRound(v, 0)
	if err != nil || r.S != "" {
		return 0, &DecimalError{Code: "22003", Msg: "bigint out of range"}
	}
	return r.I, nil
}
