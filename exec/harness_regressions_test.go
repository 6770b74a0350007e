package exec

import (
	"testing"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

func TestHarnessRegressionSessionPurgeLeak(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "session/three-groups-same-end",
		keys:  [][]int{{0}},
		build: windowAgg(planner.WindowSpec{Kind: "session", Gap: 10}, planner.Contract{Policy: lateness.Drop, Emit: "on_window_close"}),
		events: []event{
			in("a", 0, 1), in("b", 0, 1), in("c", 0, 1),
			wmAt(0, 11),   // past 10: fires and purges all three sessions [0,10)
			in("b", 5, 1), // opens b [5,15): on time
			wmAt(0, 20),
		},
		want: []string{"a @0 @10 1 1 1 1 f1 1", "b @0 @10 1 1 1 1 f1 1", "c @0 @10 1 1 1 1 f1 1", "b @5 @15 1 1 1 1 f1 1"},
	})
}

func TestHarnessRegressionSessionBridgeEarlyFire(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "session/bridge-fired-and-open",
		keys:  [][]int{{0}},
		build: windowAgg(planner.WindowSpec{Kind: "session", Gap: 10}, planner.Contract{Lateness: 20, Policy: lateness.Drop, Emit: "on_window_close"}),
		events: []event{
			in("a", 0, 1), in("a", 12, 2),
			wmAt(0, 11),   // past 10: fires a [0,10)
			in("a", 9, 3), // bridges [0,10) and [12,22) into [0,22): open until 22
			wmAt(0, 15),
		},
		want: []string{"a @0 @10 1 1 1 1 f1 1"},
	})
}

func TestHarnessRegressionMaterializeInsertThenDelete(t *testing.T) {
	runHarness(t, harnessCase{
		name:   "materialize/insert-then-delete",
		build:  func(in instance) Operator { return newUpsertView(in) },
		events: []event{in("a", 0, 1), retract(in("a", 0, 1))},
		want:   nil,
		serial: true,
	})
}

func TestHarnessRegressionAggregateNegativeTime(t *testing.T) {
	node := &planner.Aggregate{GroupCols: []int{0}, Aggs: allAggs[:2], TTL: 10}
	runHarness(t, harnessCase{
		name:   "aggregate/ttl-before-epoch",
		keys:   [][]int{{0}},
		build:  aggregateBuild(node),
		events: []event{in("a", -5, 1), wmAt(0, 5)}, // last update -5: gone at -5 + 10
		want:   nil,
	})
}

var _ = types.MinTime

// TestHarnessRegressionSessionTouchAtWatermark: a row exactly at a
// session's end touches it and is on time while the watermark equals its
// time, so the session must still be open to take it (difftest seed 98).
func TestHarnessRegressionSessionTouchAtWatermark(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "session/touch-at-watermark",
		keys:  [][]int{{0}},
		build: windowAgg(planner.WindowSpec{Kind: "session", Gap: 10}, planner.Contract{Policy: lateness.Drop, Emit: "on_window_close"}),
		events: []event{
			in("a", 0, 1),
			wmAt(0, 10),    // reaches the end of [0,10): not closed yet
			in("a", 10, 2), // touches it: [0,20)
			wmAt(0, 30),
		},
		want: []string{"a @0 @20 2 3 1 2 f1.5 2"},
	})
}
