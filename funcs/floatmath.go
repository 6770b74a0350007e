package funcs

import "math"

// Correctly rounded EXP, LN, LOG10 and POWER on doubles. Postgres calls
// the C library's exp, log, log10 and pow, which glibc rounds correctly
// (to within 0.52 ulp, in practice always); Go's math.Exp and math.Pow are
// off by an ulp now and then (math.Exp(1.5) is one ulp above e^1.5), which
// shows in a double's shortest text form. So the functions here compute in
// double-double arithmetic (about 106 bits) and round once.

// dd is an unevaluated sum hi + lo with |lo| at most half an ulp of hi.
type dd struct{ hi, lo float64 }

// twoSum returns a + b exactly as a normalised dd.
func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

// quickTwoSum is twoSum for |a| >= |b|.
func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(x, y dd) dd {
	s := twoSum(x.hi, y.hi)
	t := twoSum(x.lo, y.lo)
	s = quickTwoSum(s.hi, s.lo+t.hi)
	return quickTwoSum(s.hi, s.lo+t.lo)
}

func ddMul(x, y dd) dd {
	p := x.hi * y.hi
	e := math.FMA(x.hi, y.hi, -p)
	return quickTwoSum(p, e+(x.hi*y.lo+x.lo*y.hi))
}

func ddMulF(x dd, f float64) dd { return ddMul(x, dd{f, 0}) }

func ddScale(x dd, k int) dd { return dd{math.Ldexp(x.hi, k), math.Ldexp(x.lo, k)} }

// ddLn2 and ddInvLn10 are ln 2 and 1/ln 10 to 106 bits.
var (
	ddLn2     = dd{0x1.62e42fefa39efp-01, 0x1.abc9e3b39803fp-56}
	ddInvLn10 = dd{0x1.bcb7b1526e50ep-02, 0x1.95355baaafad3p-57}
)

// ddExp is e^x for |x| below about 709.8 (the caller handles the rest):
// x = k ln2 + r with |r| <= ln2/2, e^(r/256) by its Taylor series, squared
// eight times, then scaled by 2^k.
func ddExp(x dd) dd {
	k := math.Round(x.hi / math.Ln2)
	r := ddAdd(x, ddMulF(dd{-ddLn2.hi, -ddLn2.lo}, k))
	r = ddScale(r, -8)
	sum, term := dd{1, 0}, dd{1, 0}
	for n := 1; n <= 12; n++ {
		term = ddDivF(ddMul(term, r), float64(n))
		sum = ddAdd(sum, term)
	}
	for range 8 {
		sum = ddMul(sum, sum)
	}
	return ddScale(sum, int(k))
}

// ddDivF is t / n: a first quotient, then the remainder (exact in its high
// part) divided again.
func ddDivF(t dd, n float64) dd {
	q := t.hi / n
	p := q * n
	rem := ((t.hi - p) - math.FMA(q, n, -p)) + t.lo
	return quickTwoSum(q, rem/n)
}

// ddLn is ln x for a finite x > 0: near 1 by the series of ln(1+u) on the
// exact u = x - 1, elsewhere one Newton step from math.Log,
// y + x·e^-y - 1, whose error is the square of math.Log's.
func ddLn(x float64) dd {
	if u := x - 1; math.Abs(u) < 0x1p-10 {
		// ln(1+u) = u - u²/2 + u³/3 - ...; 12 terms reach 2^-120.
		sum, pow := dd{0, 0}, dd{1, 0}
		for n := 1; n <= 12; n++ {
			pow = ddMulF(pow, u)
			t := ddDivF(pow, float64(n))
			if n%2 == 0 {
				t = dd{-t.hi, -t.lo}
			}
			sum = ddAdd(sum, t)
		}
		return sum
	}
	y := math.Log(x)
	t := ddAdd(ddMulF(ddExp(dd{-y, 0}), x), dd{-1, 0})
	// ln(x) = y + ln(1 + t) = y + t - t²/2 (t is about 2^-52)
	t = ddAdd(t, dd{-t.hi * t.hi / 2, 0})
	return ddAdd(dd{y, 0}, t)
}

// expCR is e^x correctly rounded (glibc's exp); overflow gives +Inf and
// underflow 0, as the C function does.
func expCR(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.Exp(x)
	case x > 709.8:
		return math.Inf(1)
	case x < -745.2:
		return 0
	case x < -708:
		return math.Exp(x) // subnormal results: the scaling would round twice
	}
	return ddExp(dd{x, 0}).hi
}

// lnCR is ln x correctly rounded for x > 0.
func lnCR(x float64) float64 {
	if math.IsInf(x, 1) || math.IsNaN(x) || x <= 0 {
		return math.Log(x)
	}
	return ddLn(x).hi
}

// log10CR is log10 x correctly rounded for x > 0 (exact for powers of ten).
func log10CR(x float64) float64 {
	if math.IsInf(x, 1) || math.IsNaN(x) || x <= 0 {
		return math.Log10(x)
	}
	return ddMul(ddLn(x), ddInvLn10).hi
}

// powCR is a^b correctly rounded where the result is finite and non-zero
// and the inputs are finite; the special cases (zero, infinities, NaN,
// a negative base with an integral exponent's sign) are math.Pow's, which
// follows C's pow.
func powCR(a, b float64) float64 {
	if a == 0 || b == 0 || a == 1 || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) ||
		(a < 0 && b != math.Trunc(b)) {
		return math.Pow(a, b)
	}
	neg := a < 0 && math.Mod(b, 2) != 0
	l := ddMulF(ddLn(math.Abs(a)), b)
	var r float64
	switch {
	case l.hi > 709.8:
		r = math.Inf(1)
	case l.hi < -745.2:
		r = 0
	case l.hi < -708:
		r = math.Pow(math.Abs(a), b)
	default:
		r = ddExp(l).hi
	}
	if neg {
		return -r
	}
	return r
}
