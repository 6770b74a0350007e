package exec

import (
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// resetter is an accumulator that can be emptied in place, as if new:
// one whose state is plain values (count, sum, min, max, avg), so a
// row it encoded earlier shares nothing it will change. The local window
// phase recycles such accumulators from batch to batch instead of
// allocating them per (group, window).
type resetter interface {
	reset()
}

// encodeAppender is an accumulator that appends its encode row to dst,
// allocating nothing itself.
type encodeAppender interface {
	appendEncode(dst types.Row) types.Row
}

func (a *countAcc) reset()  { a.n = 0 }
func (a *sumAcc) reset()    { *a = sumAcc{t: a.t} }
func (a *minMaxAcc) reset() { a.v = types.NullValue }
func (a *avgAcc) reset()    { *a = avgAcc{dec: sumAcc{t: a.dec.t}} }

func (a *countAcc) appendEncode(dst types.Row) types.Row {
	return append(dst, types.IntValue(a.n))
}

func (a *minMaxAcc) appendEncode(dst types.Row) types.Row { return append(dst, a.v) }

// resettable reports whether every accumulator of calls is a resetter.
func resettable(calls []planner.AggCall) bool {
	for _, a := range newAccs(calls) {
		if _, ok := a.(resetter); !ok {
			return false
		}
	}
	return true
}

// reset empties every accumulator of a; each must be a resetter.
func (a accs) reset() {
	for _, x := range a {
		x.(resetter).reset()
	}
}

// appendEncode appends every accumulator's encode row to dst.
func (a accs) appendEncode(dst types.Row) types.Row {
	for _, x := range a {
		if e, ok := x.(encodeAppender); ok {
			dst = e.appendEncode(dst)
			continue
		}
		dst = append(dst, x.encode()...)
	}
	return dst
}
