package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// overUpdBuild builds the updating OverAggregate partitioned by k,
// ordered by ts, of sum(v), count(*) and max(v) over the frame, over an
// append-only input whose ts carries the watermark (letsGo) or over a
// retracting one.
func overUpdBuild(letsGo, rows, unbounded bool, preceding int64) func(instance) Operator {
	node := &planner.OverAggregate{Partition: []int{0}, TimeCol: 1, Rows: rows, Unbounded: unbounded, Preceding: preceding,
		Input: &planner.Scan{TimeCol: 1, Retracting: !letsGo},
		Aggs:  []planner.AggCall{{Fn: "sum", Arg: 2, T: types.Int}, {Fn: "count", Arg: -1, T: types.Int}, {Fn: "max", Arg: 2, T: types.Int}},
		Names: []string{"sum", "count", "max"}}
	return func(in instance) Operator {
		return NewOverUpdate(OverAggregateConfig{ID: in.ID, Node: node, Out: in.Out, Late: in.Late, Keep: keepOf(in),
			Store: in.Store, Budget: in.Budget}, 0)
	}
}

// TestHarnessOverUpdate: the updating form over an append-only input
// ends, whatever the arrival order within the delay, batching,
// parallelism and crashes, with the rows the EMIT ON WINDOW CLOSE form
// emits (every on-time row with its frame over all on-time rows; the
// late row dropped): out-of-order rows corrected the rows after them.
func TestHarnessOverUpdate(t *testing.T) {
	cases := []harnessCase{{
		name: "rows 1", keys: [][]int{{0}}, build: overUpdBuild(true, true, false, 1), events: overEvents, reorder: true,
		want: []string{"a @1 1 1 1 1", "b @2 10 10 1 10", "a @3 2 3 2 2", "a @3 4 6 2 4", "b @3 20 30 2 20", "a @5 8 12 2 8"},
	}, {
		name: "range 2", keys: [][]int{{0}}, build: overUpdBuild(true, false, false, 2), events: overEvents, reorder: true,
		want: []string{"a @1 1 1 1 1", "b @2 10 10 1 10", "a @3 2 7 3 4", "a @3 4 7 3 4", "b @3 20 30 2 20", "a @5 8 14 3 8"},
	}, {
		name: "range unbounded", keys: [][]int{{0}}, build: overUpdBuild(true, false, true, 0), events: overEvents, reorder: true,
		want: []string{"a @1 1 1 1 1", "b @2 10 10 1 10", "a @3 2 7 3 4", "a @3 4 7 3 4", "b @3 20 30 2 20", "a @5 8 15 4 8"},
	}, {
		name: "rows unbounded", keys: [][]int{{0}}, build: overUpdBuild(true, true, true, 0), events: overEvents, reorder: true,
		want: []string{"a @1 1 1 1 1", "b @2 10 10 1 10", "a @3 2 3 2 2", "a @3 4 7 3 4", "b @3 20 30 2 20", "a @5 8 15 4 8"},
	}}
	for _, c := range cases {
		c.spill = true
		t.Run(c.name, func(t *testing.T) { runHarness(t, c) })
	}
}

// overRetractEvents: a retracting input replaces a@2's row and deletes
// b's only row; the rows after a@2 are corrected and b leaves the view.
var overRetractEvents = []event{
	in("a", 1, 1), in("a", 2, 2), in("a", 3, 4), in("b", 1, 10),
	retract(in("a", 2, 2)), in("a", 2, 8), in("a", 4, 16), retract(in("b", 1, 10)),
}

// TestHarnessOverUpdateRetracting: over a retracting input the view ends
// as the frames over the final input.
func TestHarnessOverUpdateRetracting(t *testing.T) {
	cases := []harnessCase{{
		name: "rows 1", keys: [][]int{{0}}, build: overUpdBuild(false, true, false, 1), events: overRetractEvents,
		want: []string{"a @1 1 1 1 1", "a @2 8 9 2 8", "a @3 4 12 2 8", "a @4 16 20 2 16"},
	}, {
		name: "range 2", keys: [][]int{{0}}, build: overUpdBuild(false, false, false, 2), events: overRetractEvents,
		want: []string{"a @1 1 1 1 1", "a @2 8 9 2 8", "a @3 4 13 3 8", "a @4 16 28 3 16"},
	}, {
		name: "rows unbounded", keys: [][]int{{0}}, build: overUpdBuild(false, true, true, 0), events: overRetractEvents,
		want: []string{"a @1 1 1 1 1", "a @2 8 9 2 8", "a @3 4 13 3 8", "a @4 16 29 4 16"},
	}}
	for _, c := range cases {
		c.spill = true
		t.Run(c.name, func(t *testing.T) { runHarness(t, c) })
	}
}

// TestOverUpdateWallTTL: under STATE TTL on the wall clock a partition
// unchanged that long is dropped and its rows retracted.
func TestOverUpdateWallTTL(t *testing.T) {
	node := &planner.OverAggregate{Partition: []int{0}, TimeCol: 1, Rows: true, Preceding: 1, TTL: 10,
		Input: &planner.Scan{TimeCol: -1, Retracting: true},
		Aggs:  []planner.AggCall{{Fn: "count", Arg: -1, T: types.Int}}, Names: []string{"count"}}
	view := NewMaterialize("v/", nil, nil)
	op := NewOverUpdate(OverAggregateConfig{ID: "o/", Node: node, Out: Output{Op: view}}, 100)
	row := func(k string, ts int64) types.Row {
		return types.Row{types.StringValue(k), types.TimestampValue(ts), types.IntValue(0)}
	}
	step := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	step(op.Process(0, &Batch{Rows: []types.Row{row("a", 1), row("a", 2)}}))
	step(op.Tick(105))
	step(op.Process(0, &Batch{Rows: []types.Row{row("b", 1)}}))
	step(op.Tick(111)) // a: unchanged since 100
	rows, err := view.Rows()
	step(err)
	if got := fmtRows(rows); op.StateKeys() != 1 || len(got) != 1 || got[0] != "b @1 0 1" {
		t.Fatalf("after the TTL: %d partitions, view %q", op.StateKeys(), got)
	}
}

// TestOverUpdateLetsGo: over an append-only input ordered by its
// watermark column a partition keeps the rows at or above the watermark
// plus the frame's reach below it (ROWS 2: two rows; RANGE 3: the rows
// within 3 of the watermark; UNBOUNDED: none, folded into the base).
func TestOverUpdateLetsGo(t *testing.T) {
	for _, c := range []struct {
		name            string
		rows, unbounded bool
		preceding       int64
		want            int
	}{{"rows 2", true, false, 2, 2 + 3}, {"range 3", false, false, 3, 3 + 3}, {"unbounded", true, true, 0, 3}} {
		t.Run(c.name, func(t *testing.T) {
			op := overUpdBuild(true, c.rows, c.unbounded, c.preceding)(instance{ID: "o/", Out: Output{Op: NewMaterialize("v/", nil, nil)}}).(*OverUpdate)
			var b Batch
			for ts := int64(1); ts <= 20; ts++ {
				b.Rows = append(b.Rows, types.Row{types.StringValue("a"), types.TimestampValue(ts), types.IntValue(ts)})
			}
			if err := op.Process(0, &b); err != nil {
				t.Fatal(err)
			}
			if err := op.Watermark(0, 18); err != nil {
				t.Fatal(err)
			}
			if len(op.store.parts) != 1 {
				t.Fatalf("%d partitions, want 1", len(op.store.parts))
			}
			for _, p := range op.store.parts {
				if len(p.rows) != c.want {
					t.Fatalf("kept %d rows, want %d", len(p.rows), c.want)
				}
			}
		})
	}
}
