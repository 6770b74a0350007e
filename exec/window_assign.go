package exec

import "github.com/streamsql/streamsql/types"

// WindowAssign appends window_start and window_end to each row: one copy
// per TUMBLE window, size/slide copies per HOP window. Stateless; used
// when a windowed relation is not aggregated.
type WindowAssign struct {
	timeCol     int
	size, slide int64
	out         Output
}

// NewWindowAssign returns a window assigner for TUMBLE (slide == size) or
// HOP.
func NewWindowAssign(timeCol int, size, slide int64, out Output) *WindowAssign {
	return &WindowAssign{timeCol: timeCol, size: size, slide: slide, out: out}
}

// windowStarts calls fn for each window [start, start+size) containing ts,
// in increasing start order.
func windowStarts(ts, size, slide int64, fn func(start int64)) {
	last := ts - mod(ts, slide)
	for s := last - size + slide; s <= last; s += slide {
		fn(s)
	}
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// Process implements Operator.
func (w *WindowAssign) Process(_ int, b *Batch) error {
	out := Batch{}
	for i, r := range b.Rows {
		t := r[w.timeCol]
		if t.IsNull() {
			continue
		}
		windowStarts(t.I, w.size, w.slide, func(s int64) {
			row := make(types.Row, len(r)+2)
			copy(row, r)
			row[len(r)] = types.TimestampValue(s)
			row[len(r)+1] = types.TimestampValue(s + w.size)
			out.Rows = append(out.Rows, row)
			if b.Diffs != nil {
				out.Diffs = append(out.Diffs, b.Diffs[i])
			}
			if b.WM != nil {
				out.WM = append(out.WM, b.WM[i])
			}
		})
	}
	return w.out.Emit(&out)
}

// Watermark implements Operator.
func (w *WindowAssign) Watermark(_ int, wm int64) error { return w.out.EmitWatermark(wm) }

// Tick implements Operator.
func (w *WindowAssign) Tick(int64) error { return nil }
