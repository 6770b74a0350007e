package types

import (
	"math"
	"testing"
)

// TestHashValuesEqualKeys: the exchange routes rows by HashValues, so keys
// that are equal (0 and -0, NaNs of any bits) must hash alike.
func TestHashValuesEqualKeys(t *testing.T) {
	otherNaN := math.Float64frombits(0xfff8000000000000)
	for _, pair := range [][2]float64{{0, math.Copysign(0, -1)}, {math.NaN(), otherNaN}} {
		a := Row{StringValue("k"), FloatValue(pair[0])}
		b := Row{StringValue("k"), FloatValue(pair[1])}
		if HashValues(a, []int{0, 1}) != HashValues(b, []int{0, 1}) {
			t.Errorf("HashValues of %v and %v differ", pair[0], pair[1])
		}
	}
	if HashValues(Row{FloatValue(1)}, []int{0}) == HashValues(Row{FloatValue(2)}, []int{0}) {
		t.Error("HashValues of 1 and 2 are equal")
	}
}
