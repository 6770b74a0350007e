package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
)

// TestProcessingNanos: a node's own time is what its inputs' emits took
// less what its own emits took; a leaf has none; it never goes negative.
func TestProcessingNanos(t *testing.T) {
	ops := []*OpStats{newOpStats(&planner.Materialize{}), newOpStats(&planner.Join{}), newOpStats(&planner.Scan{}), newOpStats(&planner.Scan{})}
	ops[0].Children = []int{1}
	ops[1].Children = []int{2, 3}
	ops[1].down.Store(40) // the view store took 40
	ops[2].down.Store(70) // the join, with the view store's part, on the left's rows
	ops[3].down.Store(30)
	for i, want := range []int64{40, 60, 0, 0} {
		if got := ProcessingNanos(ops, i); got != want {
			t.Errorf("ProcessingNanos(%d) = %d, want %d", i, got, want)
		}
	}
	ops[1].down.Store(200) // clocks of concurrent instances can overlap
	if got := ProcessingNanos(ops, 1); got != 0 {
		t.Errorf("ProcessingNanos with more downstream than input time = %d, want 0", got)
	}
}
