package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// overBuild builds an OverAggregate partitioned by k, ordered by ts, of
// sum(v), count(*) and max(v) over the frame.
func overBuild(rows, unbounded bool, preceding, ttl int64) func(instance) Operator {
	node := &planner.OverAggregate{Partition: []int{0}, TimeCol: 1, Rows: rows, Unbounded: unbounded, Preceding: preceding, TTL: ttl,
		Aggs:  []planner.AggCall{{Fn: "sum", Arg: 2, T: types.Int}, {Fn: "count", Arg: -1, T: types.Int}, {Fn: "max", Arg: 2, T: types.Int}},
		Names: []string{"sum", "count", "max"}}
	return func(in instance) Operator {
		return NewOverAggregate(OverAggregateConfig{ID: in.ID, Node: node, Out: in.Out, Late: in.Late, Keep: keepOf(in),
			Store: in.Store, Budget: in.Budget})
	}
}

// overEvents: two partitions, peers at ts 3 in a, a late row for a once
// the watermark has passed 2, and a row exactly on the watermark (b at
// 3, on time).
var overEvents = []event{
	in("a", 1, 1), in("a", 3, 2), in("b", 2, 10), in("a", 3, 4),
	wmAt(0, 3), // passes a@1 and b@2
	in("a", 5, 8), in("a", 2, 100), in("b", 3, 20),
	wmAt(0, 10),
}

// TestHarnessOverAggregate varies delivery, parallelism, checkpoints and
// crashes for ROWS, RANGE and UNBOUNDED frames: every row comes out once,
// with its frame's aggregates, whatever the arrival order between
// watermarks (peers are ordered by their other columns).
func TestHarnessOverAggregate(t *testing.T) {
	cases := []harnessCase{{
		name: "rows 1", keys: [][]int{{0}}, build: overBuild(true, false, 1, 0), events: overEvents, reorder: true,
		want: []string{"a @1 1 1 1 1", "b @2 10 10 1 10", "a @3 2 3 2 2", "a @3 4 6 2 4", "b @3 20 30 2 20", "a @5 8 12 2 8"},
	}, {
		name: "range 2", keys: [][]int{{0}}, build: overBuild(false, false, 2, 0), events: overEvents, reorder: true,
		want: []string{"a @1 1 1 1 1", "b @2 10 10 1 10", "a @3 2 7 3 4", "a @3 4 7 3 4", "b @3 20 30 2 20", "a @5 8 14 3 8"},
	}, {
		name: "range unbounded", keys: [][]int{{0}}, build: overBuild(false, true, 0, 0), events: overEvents, reorder: true,
		want: []string{"a @1 1 1 1 1", "b @2 10 10 1 10", "a @3 2 7 3 4", "a @3 4 7 3 4", "b @3 20 30 2 20", "a @5 8 15 4 8"},
	}, {
		name: "rows unbounded", keys: [][]int{{0}}, build: overBuild(true, true, 0, 0), events: overEvents, reorder: true,
		want: []string{"a @1 1 1 1 1", "b @2 10 10 1 10", "a @3 2 3 2 2", "a @3 4 7 3 4", "b @3 20 30 2 20", "a @5 8 15 4 8"},
	}}
	for _, c := range cases {
		c.spill = true
		t.Run(c.name, func(t *testing.T) { runHarness(t, c) })
	}
}

// TestOverAggregateTTL: under STATE TTL a partition idle that long in
// event time is dropped, and a key that comes back starts a fresh frame.
func TestOverAggregateTTL(t *testing.T) {
	runHarness(t, harnessCase{
		name: "ttl", keys: [][]int{{0}}, build: overBuild(false, true, 0, 10), spill: true,
		events: []event{in("a", 1, 1), in("a", 2, 2), wmAt(0, 5), in("b", 30, 0), wmAt(0, 25), in("a", 26, 4), wmAt(0, 40)},
		want:   []string{"a @1 1 1 1 1", "a @2 2 3 2 2", "a @26 4 4 1 4", "b @30 0 0 1 0"},
	})
}

// TestOverAggregateStateSize: the partitions are counted and sized.
func TestOverAggregateStateSize(t *testing.T) {
	op := overBuild(true, false, 2, 0)(instance{ID: "o/"}).(*OverAggregate)
	b := &Batch{}
	for _, e := range []event{in("a", 1, 1), in("a", 2, 2), in("b", 1, 1)} {
		b.Rows = append(b.Rows, e.row)
	}
	if err := op.Process(0, b); err != nil {
		t.Fatal(err)
	}
	if s := op.stateSize(); s.Keys != 2 || s.MemoryBytes <= 0 {
		t.Fatalf("state size %+v, want 2 keys and some bytes", s)
	}
}
