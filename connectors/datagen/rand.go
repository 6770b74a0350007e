package datagen

import (
	"math"
	"math/bits"
)

// golden is the splitmix64 increment (2^64 / φ).
const golden = 0x9E3779B97F4A7C15

// mix64 is the splitmix64 finalizer: a bijection on uint64 that scatters
// nearby inputs across the whole range.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// eventRand is the tiny PRNG of one event. It is splitmix64 started from a
// state derived from (stream seed, event number), so any event can be
// generated without generating the events before it: Open at any offset is
// O(1) and every event is the same whichever way it is reached.
type eventRand struct{ s uint64 }

// newEventRand returns the PRNG of event n in the stream whose mixed seed is
// seed.
func newEventRand(seed uint64, n int64) eventRand {
	return eventRand{s: mix64(seed ^ uint64(n)*golden)}
}

// next returns 64 random bits.
func (r *eventRand) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// intn returns a uniform integer in [0, k) for k > 0 (Lemire's
// multiply-shift; the bias is below 2^-40 for the bounds used here).
func (r *eventRand) intn(k uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), k)
	return hi
}

// float returns a uniform float64 in [0, 1).
func (r *eventRand) float() float64 {
	return float64(r.next()>>11) * 0x1p-53
}

// Price exponent tables: 10^(6u) = 2^(u·6·log2 10) = 2^i · 2^(j/4096) · 2^r
// for the integer part i, the first 12 fractional bits j and a remainder
// r < 2^-12, whose power is a three-term series (relative error < 1e-12).
// This is exact to the cent for every price and several times faster than
// math.Pow or math.Exp.
const priceFracBits = 12

var (
	priceLog2Span = 6 * math.Log2(10) // ≈ 19.93
	pricePow2Int  [21]float64         // 2^i · 100 (the ·100 of cents folded in)
	pricePow2Frac [1 << priceFracBits]float64
)

func init() {
	for i := range pricePow2Int {
		pricePow2Int[i] = math.Ldexp(100, i)
	}
	for j := range pricePow2Frac {
		pricePow2Frac[j] = math.Exp2(float64(j) / (1 << priceFracBits))
	}
}

// price returns round(10^(6u) · 100) for u uniform in [0, 1): prices from
// 1.00 to 1,000,000.00 in cents, log-uniform, as the reference does.
func (r *eventRand) price() int64 { return priceAt(r.float()) }

// priceAt returns round(10^(6u) · 100) for u in [0, 1).
func priceAt(u float64) int64 {
	x := u * priceLog2Span
	i := int(x)
	f := (x - float64(i)) * (1 << priceFracBits)
	j := int(f)
	t := (f - float64(j)) * (math.Ln2 / (1 << priceFracBits))
	v := pricePow2Int[i] * pricePow2Frac[j] * (1 + t + t*t*0.5)
	return int64(v + 0.5)
}
