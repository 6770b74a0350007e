package exec

import (
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// TestTimerBucketsAgreeWithSortedList pushes entries at random times
// (within and across buckets, some behind the watermark, negative ones
// too), takes what random watermarks reach and prunes at random, checking
// against a plain list that due returns exactly the entries at or before
// the watermark, in time order (unless anyOrder), and that Len counts
// what is left.
func TestTimerBucketsAgreeWithSortedList(t *testing.T) {
	for _, anyOrder := range []bool{false, true} {
		t.Run("anyOrder="+strconv.FormatBool(anyOrder), func(t *testing.T) { checkTimerBuckets(t, anyOrder) })
	}
}

func checkTimerBuckets(t *testing.T, anyOrder bool) {
	for seed := int64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var tb timerBuckets
		var ref []expiryItem
		wm := int64(-3 << bucketShift)
		for step := 0; step < 3000; step++ {
			switch r := rng.Intn(20); {
			case r < 14:
				at := wm + rng.Int63n(5<<bucketShift) - (1 << bucketShift)
				if rng.Intn(4) == 0 {
					at = wm + rng.Int63n(16) // many in the watermark's bucket
				}
				it := expiryItem{at: at, key: strconv.Itoa(step)}
				tb.push(it)
				ref = append(ref, it)
			case r < 19:
				jump := int64(1 << (bucketShift - 2))
				if rng.Intn(5) == 0 {
					jump = 3 << bucketShift // pass whole buckets
				}
				wm += rng.Int63n(jump)
				got := tb.due(wm, nil, anyOrder)
				var want []expiryItem
				ref = slices.DeleteFunc(ref, func(it expiryItem) bool {
					if it.at <= wm {
						want = append(want, it)
						return true
					}
					return false
				})
				if !anyOrder && !slices.IsSortedFunc(got, func(a, b expiryItem) int { return int(a.at - b.at) }) {
					t.Fatalf("seed %d step %d: due out of time order", seed, step)
				}
				if !sameItems(got, want) {
					t.Fatalf("seed %d step %d: due(%d) gave %d entries, want %d", seed, step, wm, len(got), len(want))
				}
			default:
				odd := func(it expiryItem) bool { n, _ := strconv.Atoi(it.key); return n%3 != 0 }
				tb.filter(odd)
				ref = slices.DeleteFunc(ref, func(it expiryItem) bool { return !odd(it) })
			}
			if tb.Len() != len(ref) {
				t.Fatalf("seed %d step %d: Len %d, want %d", seed, step, tb.Len(), len(ref))
			}
		}
	}
}

// sameItems reports whether a and b hold the same entries, in any order.
func sameItems(a, b []expiryItem) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[expiryItem]int{}
	for _, it := range a {
		seen[it]++
	}
	for _, it := range b {
		if seen[it] == 0 {
			return false
		}
		seen[it]--
	}
	return true
}
