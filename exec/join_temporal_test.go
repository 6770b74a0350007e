package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
)

// temporalJoinBuild builds a TemporalJoin over rows (k VARCHAR, ts
// TIMESTAMP, x BIGINT) on both ports: port 1 is the table's changelog.
func temporalJoinBuild(node *planner.Join) func(instance) Operator {
	return func(in instance) Operator {
		return NewTemporalJoin(TemporalJoinConfig{ID: in.ID, Node: node, Out: in.Out, Late: in.Late, Keep: keepOf(in)})
	}
}

// TestHarnessTemporalJoin: a JOIN t FOR SYSTEM_TIME AS OF a.ts ON a.k =
// t.k, t's version time its ts. A row joins the version with the largest
// time <= its own (inclusive) once both watermarks reach it; a row with
// no version is dropped, one behind the watermarks is late; a late
// version still serves the rows to come.
func TestHarnessTemporalJoin(t *testing.T) {
	node := &planner.Join{
		Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema, Retracting: true},
		Kind: planner.TemporalJoin, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1,
	}
	runHarness(t, harnessCase{
		name:  "join/temporal",
		keys:  [][]int{{0}, {0}},
		build: temporalJoinBuild(node),
		events: []event{
			in("a", 10, 1), in("a", 5, 2), in("b", 7, 3),
			inR("a", 0, 100), inR("a", 10, 101), inR("b", 8, 102),
			wmAt(0, 12),
			wmAt(1, 12),       // joins a@10 (version @10), a@5 (@0); b@7 has none
			inR("a", 11, 103), // late, but the newest at or before 12
			in("a", 13, 4),
			in("a", 3, 5), // late: behind the watermarks' 12
			wmAt(1, 20),
			wmAt(0, 20), // joins a@13 with @11
		},
		want:    []string{"a @10 1 a @10 101", "a @5 2 a @0 100", "a @13 4 a @11 103"},
		reorder: true,
	})
}

// TestHarnessTemporalJoinLeft pads a row with no valid version.
func TestHarnessTemporalJoinLeft(t *testing.T) {
	node := &planner.Join{
		Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema, Retracting: true},
		Kind: planner.TemporalJoin, Type: planner.LeftOuterJoin, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1,
	}
	runHarness(t, harnessCase{
		name:  "join/temporal-left",
		keys:  [][]int{{0}, {0}},
		build: temporalJoinBuild(node),
		events: []event{
			in("a", 4, 1), in("a", 6, 2), inR("a", 5, 100), in("c", 6, 3),
			wmAt(0, 10), wmAt(1, 10),
		},
		want:    []string{"a @4 1 NULL NULL NULL", "a @6 2 a @5 100", "c @6 3 NULL NULL NULL"},
		reorder: true,
	})
}

// TestHarnessLookupJoin: AS OF PROCTIME(): each row joins the table's
// rows of its key as they are when it arrives; a delete (the first half
// of an upsert) stops later rows from joining the old row.
func TestHarnessLookupJoin(t *testing.T) {
	node := &planner.Join{
		Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema, Retracting: true},
		Kind: planner.LookupJoin, Type: planner.LeftOuterJoin, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: -1,
	}
	runHarness(t, harnessCase{
		name:  "join/lookup",
		keys:  [][]int{{0}, {0}},
		build: temporalJoinBuild(node),
		events: []event{
			in("a", 1, 1),
			inR("a", 0, 100),
			in("a", 2, 2),
			retract(inR("a", 0, 100)), inR("a", 0, 101),
			in("a", 3, 3),
			wmAt(0, 5),
		},
		want: []string{"a @1 1 NULL NULL NULL", "a @2 2 a @0 100", "a @3 3 a @0 101"},
	})
}

// TestHarnessTemporalJoinDelete: a TABLE's delete ends its key's
// validity at the deleted row's version time; an upsert (the old row's
// delete, then the new row) keeps the old version as history, whichever
// batches the two come in; a delete then an insert of the key before the
// watermarks move is an upsert too. A deleted key comes back with a
// later version.
func TestHarnessTemporalJoinDelete(t *testing.T) {
	node := &planner.Join{
		Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema, Retracting: true},
		Kind: planner.TemporalJoin, Type: planner.LeftOuterJoin, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1,
	}
	runHarness(t, harnessCase{
		name:  "join/temporal-delete",
		keys:  [][]int{{0}, {0}},
		build: temporalJoinBuild(node),
		events: []event{
			inR("a", 0, 100), retract(inR("a", 0, 100)), inR("a", 5, 101), // upsert: @0 stays history
			inR("c", 1, 300), inR("d", 1, 400), inR("b", 1, 200),
			in("a", 3, 1), in("a", 6, 2), in("a", 8, 3), in("b", 2, 4),
			wmAt(0, 4), wmAt(1, 5), // joins a@3 with @0
			retract(inR("a", 5, 101)),                   // delete a: none from 5s on
			retract(inR("c", 1, 300)), inR("c", 2, 301), // delete, insert: an upsert
			retract(inR("d", 1, 400)), // delete d: none from 1s on
			in("c", 6, 5), in("d", 6, 6),
			wmAt(1, 10), wmAt(0, 10), // a@6, a@8, d@6 find none; b@2 200; c@6 301
			in("d", 11, 7), inR("d", 12, 401), in("d", 13, 8),
			wmAt(1, 20), wmAt(0, 20), // d@11 before d's new version, d@13 after
		},
		want: []string{
			"a @3 1 a @0 100", "a @6 2 NULL NULL NULL", "a @8 3 NULL NULL NULL", "b @2 4 b @1 200",
			"c @6 5 c @2 301", "d @6 6 NULL NULL NULL", "d @11 7 NULL NULL NULL", "d @13 8 d @12 401",
		},
	})
}
