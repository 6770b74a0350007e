package exec

import "github.com/streamsql/streamsql/types"

// Filter keeps rows whose predicate is true (NULL is false). Stateless.
type Filter struct {
	pred func(types.Row) bool
	out  Output
	buf  Batch
}

// NewFilter returns a filter over pred.
func NewFilter(pred func(types.Row) bool, out Output) *Filter {
	return &Filter{pred: pred, out: out}
}

// Process implements Operator.
func (f *Filter) Process(_ int, b *Batch) error {
	f.buf.Rows = f.buf.Rows[:0]
	f.buf.Diffs = f.buf.Diffs[:0]
	f.buf.WM = f.buf.WM[:0]
	for i, r := range b.Rows {
		if !f.pred(r) {
			continue
		}
		f.buf.Rows = append(f.buf.Rows, r)
		if b.Diffs != nil {
			f.buf.Diffs = append(f.buf.Diffs, b.Diffs[i])
		}
		if b.WM != nil {
			f.buf.WM = append(f.buf.WM, b.WM[i])
		}
	}
	out := Batch{Rows: f.buf.Rows}
	if b.Diffs != nil {
		out.Diffs = f.buf.Diffs
	}
	if b.WM != nil {
		out.WM = f.buf.WM
	}
	return f.out.Emit(&out)
}

// Watermark implements Operator.
func (f *Filter) Watermark(_ int, wm int64) error { return f.out.EmitWatermark(wm) }

// Tick implements Operator.
func (f *Filter) Tick(int64) error { return nil }
