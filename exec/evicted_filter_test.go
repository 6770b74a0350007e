package exec

import (
	"hash/maphash"
	"strconv"
	"testing"
)

// TestEvictedFilter: every key added is found (no false negatives) as
// the filter grows through several parts, and keys never added are
// mostly not (false positives well under 1%).
func TestEvictedFilter(t *testing.T) {
	seed := maphash.MakeSeed()
	h := func(prefix string, i int) uint64 { return maphash.String(seed, prefix+strconv.Itoa(i)) }
	for _, n := range []int{0, 1, evictedFirstKeys, 5 * evictedFirstKeys} {
		var f evictedFilter
		for i := range n {
			f.add(h("in", i))
			f.add(h("in", i)) // again: counted once
		}
		for i := range n {
			if !f.has(h("in", i)) {
				t.Fatalf("%d keys: key %d added but not found", n, i)
			}
		}
		fp := 0
		const probes = 20000
		for i := range probes {
			if f.has(h("out", i)) {
				fp++
			}
		}
		if n == 0 && (fp > 0 || f.bytes() != 0) {
			t.Fatalf("an empty filter holds %d bytes and finds %d keys", f.bytes(), fp)
		}
		if rate := float64(fp) / probes; rate > 0.01 {
			t.Fatalf("%d keys: %.1f%% false positives", n, rate*100)
		}
	}
}
