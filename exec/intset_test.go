package exec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIntSetAgreesWithMap adds values drawn from several distributions
// (ascending ids, recent ids out of order, sparse, negative and extreme
// values) and checks after every add that the set agrees with a map:
// what add reports, has for the value and its neighbours, the size, and
// the ascending values each lists.
func TestIntSetAgreesWithMap(t *testing.T) {
	cases := []struct {
		name string
		next func(r *rand.Rand, i int) int64
	}{
		{"ascending", func(_ *rand.Rand, i int) int64 { return int64(i) }},
		{"descending", func(_ *rand.Rand, i int) int64 { return int64(-i) }},
		{"recent ids", func(r *rand.Rand, i int) int64 { return 1000 + int64(i)/3 - r.Int64N(1000) }},
		{"dense small", func(r *rand.Rand, _ int) int64 { return r.Int64N(3000) }},
		{"sparse", func(r *rand.Rand, _ int) int64 { return r.Int64N(1 << 40) }},
		{"full range", func(r *rand.Rand, _ int) int64 { return int64(r.Uint64()) }},
		{"extremes", func(r *rand.Rand, i int) int64 {
			return []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, math.MinInt64 + 1, math.MaxInt64 - 1}[i%7] + r.Int64N(3) - 1
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var s intSet
			want := map[int64]bool{}
			for i := range 20000 {
				v := c.next(r, i)
				if got := s.add(v); got != !want[v] {
					t.Fatalf("add(%d) = %v, want %v", v, got, !want[v])
				}
				want[v] = true
				for _, x := range []int64{v - 1, v, v + 1, c.next(r, i)} {
					if s.has(x) != want[x] {
						t.Fatalf("after add(%d): has(%d) = %v, want %v", v, x, s.has(x), want[x])
					}
				}
			}
			if s.len() != len(want) {
				t.Fatalf("len = %d, want %d", s.len(), len(want))
			}
			var got []int64
			s.each(func(v int64) { got = append(got, v) })
			keys := make([]int64, 0, len(want))
			for k := range want {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(got, keys) {
				t.Fatalf("each listed %d values, want %d ascending", len(got), len(keys))
			}
			for i := range s.blocks {
				if len(s.blocks[i].buf) > maxBlockBytes {
					t.Fatalf("block %d holds %d bytes, over %d", i, len(s.blocks[i].buf), maxBlockBytes)
				}
			}
		})
	}
}

// TestIntSetSmallerThanMap checks the point of the set: recent ids take
// a few bytes each, not a map's tens.
func TestIntSetSmallerThanMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var s intSet
	for i := range 100000 {
		s.add(int64(1_000_000 + i*3 - r.IntN(500)))
	}
	if per := float64(s.bytes()) / float64(s.len()); per > 3 {
		t.Fatalf("%.1f bytes a value, want at most 3", per)
	}
}
