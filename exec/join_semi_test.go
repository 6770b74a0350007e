package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// semiNode is a semi join of kind over (k VARCHAR, ts TIMESTAMP, x
// BIGINT) on l.k = r.k, with residual when given.
func semiNode(kind planner.SemiKind, residual planner.Scalar) *planner.SemiJoin {
	return &planner.SemiJoin{Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema},
		Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}, Residual: residual}
}

func semiBuild(n *planner.SemiJoin) func(instance) Operator {
	return func(in instance) Operator {
		var keep func(types.Row) bool
		if in.Keep != nil {
			keep = func(k types.Row) bool { return in.Keep(0, k) }
		}
		var residual func(types.Row) bool
		if n.Residual != nil {
			var errs EvalErrors
			f, err := CompileFilter(n.Residual, &errs)
			if err != nil {
				panic(err)
			}
			residual = f
		}
		return NewSemiJoin(SemiJoinConfig{ID: in.ID, Node: n, Residual: residual, Out: in.Out, Keep: keep,
			Store: in.Store, Budget: in.Budget})
	}
}

// delL and delR retract a row on the left and the right.
func delL(k string, ts, v int64) event { e := in(k, ts, v); e.del = true; return e }
func delR(k string, ts, v int64) event { e := inR(k, ts, v); e.del = true; return e }

// TestHarnessSemiJoin: a left row comes out once it has a match, left
// rows waiting for theirs included, once however many right rows match;
// it goes when its last match goes; NULL keys match nothing.
func TestHarnessSemiJoin(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "semi",
		keys:  [][]int{{0}, {0}},
		build: semiBuild(semiNode(planner.Semi, nil)),
		spill: true,
		events: []event{
			in("a", 1, 1), in("b", 2, 2), in("c", 3, 3), inNull(0, 4, 4),
			inR("a", 5, 0), inR("a", 6, 0), inR("b", 7, 0), inNull(1, 8, 0),
			in("a", 9, 5), delR("b", 7, 0), delR("a", 5, 0),
			in("d", 10, 6), inR("d", 11, 0), delL("d", 10, 6),
		},
		want:    []string{"a @1 1", "a @9 5"},
		reorder: false,
	})
}

// TestHarnessAntiJoin: NOT EXISTS keeps a left row while nothing
// matches; a NULL key never matches, so its row stays.
func TestHarnessAntiJoin(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "anti",
		keys:  [][]int{{0}, {0}},
		build: semiBuild(semiNode(planner.Anti, nil)),
		spill: true,
		events: []event{
			in("a", 1, 1), in("b", 2, 2), in("c", 3, 3), inNull(0, 4, 4),
			inR("a", 5, 0), inR("a", 6, 0), inR("b", 7, 0), inNull(1, 8, 0),
			in("a", 9, 5), delR("b", 7, 0), delR("a", 5, 0),
		},
		want: []string{"b @2 2", "c @3 3", "NULL @4 4"},
	})
}

// TestHarnessAntiJoinResidual: a right row matches only when x differs
// (a correlated condition beyond the key).
func TestHarnessAntiJoinResidual(t *testing.T) {
	ne := &planner.Call{Fn: "<>", T: types.Bool, Args: []planner.Scalar{
		&planner.ColRef{Index: 2, T: types.Int}, &planner.ColRef{Index: 5, T: types.Int}}}
	runHarness(t, harnessCase{
		name:  "anti-residual",
		keys:  [][]int{{0}, {0}},
		build: semiBuild(semiNode(planner.Anti, ne)),
		spill: true,
		events: []event{
			in("a", 1, 1), in("a", 2, 2), inR("a", 3, 1), in("b", 4, 1), inR("b", 5, 1), inR("b", 6, 2),
		},
		want: []string{"a @1 1"},
	})
}

// TestHarnessNotIn: NOT IN's NULL rule. Every left row qualifies while
// the right side is empty (one with a NULL key too); a NULL on the right
// removes every row, and its retraction brings back those without a
// match; a NULL left row goes once any right row is there.
func TestHarnessNotIn(t *testing.T) {
	nullR := inNull(1, 5, 0)
	delNullR := nullR
	delNullR.del = true
	runHarness(t, harnessCase{
		name:   "not-in",
		keys:   [][]int{{}, {}},
		serial: true,
		build:  semiBuild(semiNode(planner.NullAwareAnti, nil)),
		spill:  true,
		events: []event{
			in("a", 1, 1), in("b", 2, 2), inNull(0, 3, 3),
			inR("a", 4, 0), nullR, in("c", 6, 4), delNullR,
			inR("b", 7, 0), delR("a", 4, 0),
		},
		want: []string{"a @1 1", "c @6 4"},
	})
}

// TestHarnessNotInNullRight: while the right side holds a NULL no left
// row qualifies, whatever its key.
func TestHarnessNotInNullRight(t *testing.T) {
	runHarness(t, harnessCase{
		name:   "not-in-null-right",
		keys:   [][]int{{}, {}},
		serial: true,
		build:  semiBuild(semiNode(planner.NullAwareAnti, nil)),
		spill:  true,
		events: []event{
			in("a", 1, 1), inNull(0, 3, 3), inR("a", 4, 0), inNull(1, 5, 0), in("c", 6, 4), delR("a", 4, 0),
		},
		want: []string{},
	})
}

// TestRunQuerySemiJoin: the ad-hoc executor runs the streaming operator
// over the snapshots.
func TestRunQuerySemiJoin(t *testing.T) {
	rows := map[string][]types.Row{
		"l": {{types.StringValue("a"), types.TimestampValue(1), types.IntValue(1)}, {types.StringValue("b"), types.TimestampValue(2), types.IntValue(2)}},
		"r": {{types.StringValue("a"), types.TimestampValue(3), types.IntValue(0)}},
	}
	n := &planner.SemiJoin{Left: &planner.Scan{Name: "l", Out: joinSchema, Cols: []int{0, 1, 2}},
		Right: &planner.Scan{Name: "r", Out: joinSchema, Cols: []int{0, 1, 2}}, Kind: planner.Semi, LeftKeys: []int{0}, RightKeys: []int{0}}
	got, err := RunQuery(n, func(s *planner.Scan) ([]types.Row, error) { return rows[s.Name], nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0][2].I != 1 {
		t.Fatalf("got %v, want the row a 1", got)
	}
}

// TestHarnessSemiJoinTTL: with STATE TTL 10 on event time a left row is
// forgotten once the right watermark passes its time + 10, a right row
// once the left watermark does; forgetting emits nothing, so a left row
// already out stays, and one forgotten before its match never comes out.
func TestHarnessSemiJoinTTL(t *testing.T) {
	n := semiNode(planner.Semi, nil)
	n.TTL, n.LeftTime, n.RightTime = 10, 1, 1
	runHarness(t, harnessCase{
		name:  "semi-ttl",
		keys:  [][]int{{0}, {0}},
		build: semiBuild(n),
		spill: true,
		events: []event{
			in("a", 1, 1), in("b", 5, 2), inR("c", 5, 0),
			wmAt(1, 12), // forgets a@1 (1 + 10 < 12), keeps b@5
			inR("a", 12, 0), inR("b", 12, 0),
			wmAt(0, 16), // forgets c@5 on the right
			in("c", 16, 3),
			delR("b", 12, 0), // b@5 goes with its last match
		},
		want: []string{},
	})
}

// TestHarnessAntiJoinTTL: an anti join's left row that was retracted
// when its match came stays retracted after the match is forgotten.
func TestHarnessAntiJoinTTL(t *testing.T) {
	n := semiNode(planner.Anti, nil)
	n.TTL, n.LeftTime, n.RightTime = 10, 1, 1
	runHarness(t, harnessCase{
		name:  "anti-ttl",
		keys:  [][]int{{0}, {0}},
		build: semiBuild(n),
		spill: true,
		events: []event{
			in("a", 1, 1), in("b", 2, 2), inR("a", 3, 0),
			wmAt(0, 20), // forgets the right row a@3
			in("d", 20, 4),
			wmAt(1, 40), // forgets every left row
			inR("d", 41, 0),
		},
		want: []string{"b @2 2", "d @20 4"},
	})
}
