package exec

import (
	"math"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// unionSink records what a Union emits.
type unionSink struct {
	rows []int64
	wm   []int64 // each row's WM
	wms  []int64 // watermarks, in order
}

func (s *unionSink) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		s.rows = append(s.rows, r[0].I)
		w := int64(math.MinInt64)
		if b.WM != nil {
			w = b.WM[i]
		}
		s.wm = append(s.wm, w)
	}
	return nil
}
func (s *unionSink) Watermark(_ int, wm int64) error { s.wms = append(s.wms, wm); return nil }
func (s *unionSink) Tick(int64) error                { return nil }

// TestUnionWatermarkIsMinimum checks that a Union forwards every row of
// every port, emits the minimum of its ports' watermarks only when it
// advances, and lowers each row's WM to that minimum.
func TestUnionWatermarkIsMinimum(t *testing.T) {
	sink := &unionSink{}
	u := NewUnion(2, Output{Op: sink})
	row := func(v int64) types.Row { return types.Row{types.IntValue(v)} }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(u.Watermark(0, 100))
	if len(sink.wms) != 0 {
		t.Fatalf("watermark %v emitted before port 1 had one", sink.wms)
	}
	must(u.Process(0, &Batch{Rows: []types.Row{row(1), row(2)}, WM: []int64{100, 120}}))
	must(u.Watermark(1, 50))
	must(u.Process(1, &Batch{Rows: []types.Row{row(3)}, WM: []int64{60}}))
	must(u.Process(0, &Batch{Rows: []types.Row{row(4)}, WM: []int64{130}}))
	must(u.Watermark(1, 40)) // never backwards
	must(u.Watermark(1, 200))
	must(u.Watermark(0, 130))
	if want := []int64{1, 2, 3, 4}; !slices.Equal(sink.rows, want) {
		t.Fatalf("rows %v, want %v", sink.rows, want)
	}
	if want := []int64{math.MinInt64, math.MinInt64, 60, 50}; !slices.Equal(sink.wm, want) {
		t.Fatalf("row watermarks %v, want %v", sink.wm, want)
	}
	if want := []int64{50, 100, 130}; !slices.Equal(sink.wms, want) {
		t.Fatalf("watermarks %v, want %v", sink.wms, want)
	}
}
