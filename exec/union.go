package exec

import (
	"math"
	"slices"
)

// Union is UNION ALL: it forwards every batch of every input port
// downstream unchanged, and emits as its watermark the minimum of its
// inputs' watermarks, whenever that minimum advances. State: none (the
// per-port watermarks are re-learnt on restart, when every source
// re-announces its restored watermark before new rows arrive).
//
// A row's WM (the watermark in force when it arrived, which lateness is
// judged against) is lowered to the minimum of its own and the other
// inputs' watermarks: downstream, the union's watermark is what decides
// whether a window has fired, not the watermark of the row's own source.
type Union struct {
	wms  []int64 // per input port
	last int64   // the watermark last emitted
	out  Output
}

// NewUnion returns a union of n input ports feeding out.
func NewUnion(n int, out Output) *Union {
	u := &Union{wms: make([]int64, n), last: math.MinInt64, out: out}
	for i := range u.wms {
		u.wms[i] = math.MinInt64
	}
	return u
}

// Process implements Operator.
func (u *Union) Process(port int, b *Batch) error {
	others := u.othersMin(port)
	if b.WM == nil && others == math.MaxInt64 {
		return u.out.Emit(b)
	}
	wm := make([]int64, len(b.Rows))
	for i := range wm {
		w := u.wms[port]
		if b.WM != nil {
			w = b.WM[i]
		}
		wm[i] = min(w, others)
	}
	return u.out.Emit(&Batch{Rows: b.Rows, Diffs: b.Diffs, WM: wm})
}

// othersMin is the minimum watermark of the ports other than port
// (math.MaxInt64 when there are none).
func (u *Union) othersMin(port int) int64 {
	m := int64(math.MaxInt64)
	for i, w := range u.wms {
		if i != port {
			m = min(m, w)
		}
	}
	return m
}

// Watermark implements Operator: it records port's watermark and emits
// the minimum over the ports when it moved forward.
func (u *Union) Watermark(port int, wm int64) error {
	if wm <= u.wms[port] {
		return nil
	}
	u.wms[port] = wm
	m := slices.Min(u.wms)
	if m <= u.last {
		return nil
	}
	u.last = m
	return u.out.EmitWatermark(m)
}

// Tick implements Operator: a union has no clock of its own.
func (u *Union) Tick(int64) error { return nil }
