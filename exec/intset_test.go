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

// TestIntSetBlocksRoundTrip: appendBlocks' form loads back the same
// values, into an empty set as they are and into a set holding others by
// adding them; a truncated form is an error, and flipped bytes an error
// or a set, never a panic.
func TestIntSetBlocksRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 100, 5000} {
		var s intSet
		for s.len() < n {
			s.add(r.Int64N(int64(n)*40) - int64(n)*20)
		}
		s.add(math.MaxInt64)
		s.add(math.MinInt64)
		form := string(s.appendBlocks(nil))
		var empty, held intSet
		held.add(12345678901)
		if err := empty.loadBlocks(form); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if err := held.loadBlocks(form); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		var want, got, gotHeld []int64
		s.each(func(v int64) { want = append(want, v) })
		empty.each(func(v int64) { got = append(got, v) })
		held.each(func(v int64) {
			if v != 12345678901 {
				gotHeld = append(gotHeld, v)
			}
		})
		if !slices.Equal(got, want) || !slices.Equal(gotHeld, want) || empty.len() != s.len() || held.len() != s.len()+1 {
			t.Fatalf("n=%d: loaded %d and %d values, want %d", n, len(got), len(gotHeld), len(want))
		}
		empty.add(math.MaxInt64 - 5) // a loaded block grows out of the shared copy
		if !empty.has(math.MaxInt64-5) || !empty.has(want[len(want)/2]) {
			t.Fatalf("n=%d: add after load lost a value", n)
		}
		for cut := range len(form) {
			var x intSet
			if x.loadBlocks(form[:cut]) == nil {
				t.Fatalf("n=%d: the form cut at %d of %d bytes loaded", n, cut, len(form))
			}
		}
		for i := range 200 {
			b := []byte(form)
			b[r.IntN(len(b))] ^= byte(1 + i%255)
			var x intSet
			_ = x.loadBlocks(string(b)) // must not panic
		}
	}
}
