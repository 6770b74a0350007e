package exec

import (
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// topNRow is an input row of the window Top-N cases: (k VARCHAR,
// window_start, window_end, v BIGINT, rn placeholder BIGINT) for a
// 10-wide window starting at start.
func topNRow(k string, start, v int64) event {
	return event{row: types.Row{types.StringValue(k), types.TimestampValue(start), types.TimestampValue(start + 10),
		types.IntValue(v), types.IntValue(0)}, wm: autoWM}
}

// topNBuild builds a WindowTopN of fn over partition, ordered by v DESC.
func topNBuild(fn string, limit int64, partition []int) func(instance) Operator {
	node := &planner.WindowTopN{Fn: fn, Limit: limit, Partition: partition, Order: []planner.SortKey{{Col: 3, Desc: true}},
		RankCol: 4, RankName: "rn", StartCol: 1, EndCol: 2}
	return func(in instance) Operator {
		var keep func(types.Row) bool
		if in.Keep != nil {
			keep = func(k types.Row) bool { return in.Keep(0, k) }
		}
		return NewWindowTopN(WindowTopNConfig{ID: in.ID, Node: node, Out: in.Out, Late: in.Late, Keep: keep, Store: in.Store, Budget: in.Budget})
	}
}

// topNEvents: two windows, ties on v, a late row for the closed first
// window, and a NULL v (first under DESC, as in Postgres).
var topNEvents = []event{
	topNRow("a", 0, 5), topNRow("b", 0, 9), topNRow("c", 0, 9), topNRow("a", 0, 7),
	topNRow("d", 10, 1), topNRow("b", 0, 1),
	wmAt(0, 5),
	topNRow("e", 0, 9), topNRow("d", 10, 3),
	wmAt(0, 10),         // the first window closes
	topNRow("z", 0, 99), // late: dropped
	topNRow("f", 10, 3), {row: types.Row{types.StringValue("g"), types.TimestampValue(10), types.TimestampValue(20), types.NullValue, types.IntValue(0)}, wm: autoWM},
	wmAt(0, 25),
}

// TestHarnessWindowTopN varies delivery, parallelism and restores for the
// three ranking functions and per-key deduplication: the kept rows never
// depend on arrival order, because ties are broken by the other columns.
func TestHarnessWindowTopN(t *testing.T) {
	cases := []harnessCase{{
		name: "row_number<=2", keys: [][]int{{1, 2}}, build: topNBuild("row_number", 2, []int{1, 2}), events: topNEvents, reorder: true,
		want: []string{"b @0 @10 9 1", "c @0 @10 9 2", "g @10 @20 NULL 1", "d @10 @20 3 2"},
	}, {
		name: "rank<=2", keys: [][]int{{1, 2}}, build: topNBuild("rank", 2, []int{1, 2}), events: topNEvents, reorder: true,
		want: []string{"b @0 @10 9 1", "c @0 @10 9 1", "e @0 @10 9 1", "g @10 @20 NULL 1", "d @10 @20 3 2", "f @10 @20 3 2"},
	}, {
		name: "dense_rank<=2", keys: [][]int{{1, 2}}, build: topNBuild("dense_rank", 2, []int{1, 2}), events: topNEvents, reorder: true,
		want: []string{"b @0 @10 9 1", "c @0 @10 9 1", "e @0 @10 9 1", "a @0 @10 7 2", "g @10 @20 NULL 1", "d @10 @20 3 2", "f @10 @20 3 2"},
	}, {
		name: "dedup row_number=1 by k", keys: [][]int{{1, 2, 0}}, build: topNBuild("row_number", 1, []int{1, 2, 0}), events: topNEvents, reorder: true,
		want: []string{"a @0 @10 7 1", "b @0 @10 9 1", "c @0 @10 9 1", "e @0 @10 9 1", "d @10 @20 3 1", "f @10 @20 3 1", "g @10 @20 NULL 1"},
	}}
	for _, c := range cases {
		c.spill = true
		t.Run(c.name, func(t *testing.T) { runHarness(t, c) })
	}
}

// TestWindowTopNStateSize: the open partitions are counted and sized, and
// a closed window's are gone.
func TestWindowTopNStateSize(t *testing.T) {
	op := topNBuild("row_number", 2, []int{1, 2, 0})(instance{ID: "t/"}).(*WindowTopN)
	b := &Batch{}
	for _, e := range []event{topNRow("a", 0, 1), topNRow("a", 0, 2), topNRow("a", 0, 3), topNRow("b", 0, 1), topNRow("c", 10, 1)} {
		b.Rows = append(b.Rows, e.row)
	}
	if err := op.Process(0, b); err != nil {
		t.Fatal(err)
	}
	if s := op.stateSize(); s.Keys != 3 || s.MemoryBytes <= 0 {
		t.Fatalf("state size %+v, want 3 keys and some bytes", s)
	}
	if n := len(op.store.parts[string(state.AppendKeyCols(nil, b.Rows[0], []int{1, 2, 0}))].rows); n != 2 {
		t.Fatalf("partition a keeps %d rows, want 2", n)
	}
	if err := op.Watermark(0, 10); err != nil {
		t.Fatal(err)
	}
	if s := op.stateSize(); s.Keys != 1 {
		t.Fatalf("after the first window closed: %+v, want 1 key", s)
	}
}
