package exec

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// regularNode is a regular join of typ over two retracting inputs (k
// VARCHAR, ts TIMESTAMP, x BIGINT) on l.k = r.k.
func regularNode(typ planner.JoinType) *planner.Join {
	return &planner.Join{
		Left: &planner.Scan{Out: joinSchema, Retracting: true}, Right: &planner.Scan{Out: joinSchema, Retracting: true},
		Kind: planner.Unbounded, Type: typ, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: -1, RightTime: -1,
	}
}

// delNull retracts a row with a NULL key on port.
func delNull(port int, ts, v int64) event {
	e := inNull(port, ts, v)
	e.del = true
	return e
}

// TestHarnessRegularJoinRetract: a delete removes one stored copy of its
// row (a second equal row keeps joining) and retracts the pairs it
// formed; a delete of a row never stored changes nothing.
func TestHarnessRegularJoinRetract(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "join/regular-retract",
		keys:  [][]int{{0}, {0}},
		build: joinBuild(regularNode(planner.InnerJoin)),
		events: []event{
			in("a", 1, 1), in("a", 1, 1), inR("a", 2, 2), inR("b", 3, 3), in("b", 4, 4),
			delL("a", 1, 1), // one of two equal copies
			delR("b", 3, 3), // its pair goes
			delR("c", 9, 9), // never stored: ignored
			inR("a", 5, 5), delR("a", 2, 2), inNull(0, 6, 6), delNull(0, 6, 6),
		},
		want: []string{"a @1 1 a @5 5"},
	})
}

// TestHarnessRegularLeftJoinRetract: a left row's padded row is replaced
// by its first match and comes back when its last match leaves; a left
// row that leaves takes its padded row or its pairs with it.
func TestHarnessRegularLeftJoinRetract(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "join/regular-left-retract",
		keys:  [][]int{{0}, {0}},
		build: joinBuild(regularNode(planner.LeftOuterJoin)),
		events: []event{
			in("a", 1, 1), in("b", 2, 2), in("c", 3, 3),
			inR("a", 4, 4), inR("a", 5, 5), inR("b", 6, 6),
			delR("a", 4, 4), // a keeps one match
			delR("b", 6, 6), // b's last match leaves: padded again
			delL("c", 3, 3), // c leaves padded
			inR("c", 7, 7), delL("a", 1, 1), in("a", 8, 8),
			inNull(0, 9, 9), inNull(0, 10, 10), delNull(0, 10, 10), // a NULL key's padded row comes and goes
		},
		want: []string{"a @8 8 a @5 5", "b @2 2 NULL NULL NULL", "NULL @9 9 NULL NULL NULL"},
	})
}

// TestHarnessRegularFullJoinRetract: both sides are preserved; a row's
// padding follows its matches as rows of either side come and go.
func TestHarnessRegularFullJoinRetract(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "join/regular-full-retract",
		keys:  [][]int{{0}, {0}},
		build: joinBuild(regularNode(planner.FullOuterJoin)),
		events: []event{
			in("a", 1, 1), inR("a", 2, 2), inR("a", 3, 3), in("b", 4, 4), inR("c", 5, 5),
			delR("a", 2, 2), delR("a", 3, 3), // a's left row padded again
			in("c", 6, 6), delL("c", 6, 6), // c's right row matched, then padded again
			delL("b", 4, 4), in("d", 7, 7), inR("d", 8, 8), delR("d", 8, 8), inR("d", 8, 9),
		},
		want: []string{"a @1 1 NULL NULL NULL", "NULL NULL NULL c @5 5", "d @7 7 d @8 9"},
	})
}

// TestJoinRetractSpillAgrees: random inserts and deletes into a regular
// FULL join with a budget of two rows per side (so deletes find their
// rows in the spill area or the checkpoint), checkpointed and restored at
// random, give what the same join gives in memory, and that is the full
// join of the rows left on each side.
func TestJoinRetractSpillAgrees(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		joinRetractSpill(t, planner.FullOuterJoin, seed)
		joinRetractSpill(t, planner.LeftOuterJoin, seed)
	}
}

func joinRetractSpill(t *testing.T, typ planner.JoinType, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	node := regularNode(typ)
	spillOut, memOut := NewMaterialize("s/", nil, nil), NewMaterialize("m/", nil, nil)
	build := func() *Join {
		return NewJoin(JoinConfig{ID: "j/", Node: node, Out: Output{Op: spillOut}, Late: &lateness.Counters{}, Store: st, Budget: 2})
	}
	spill := build()
	mem := NewJoin(JoinConfig{ID: "j/", Node: node, Out: Output{Op: memOut}, Late: &lateness.Counters{}})
	var stored [2][]types.Row
	var id uint64
	for step := 0; step < 300; step++ {
		port := rng.Intn(2)
		var b *Batch
		if r := rng.Intn(10); r < 4 && len(stored[port]) > 0 {
			i := rng.Intn(len(stored[port]))
			b = &Batch{Rows: []types.Row{stored[port][i]}, Diffs: []int8{-1}}
			stored[port] = slices.Delete(stored[port], i, i+1)
		} else if r < 9 {
			// few distinct rows, so equal rows are stored more than once
			row := types.Row{types.StringValue(string(rune('a' + rng.Intn(5)))), types.TimestampValue(0), types.IntValue(rng.Int63n(3))}
			stored[port] = append(stored[port], row)
			b = &Batch{Rows: []types.Row{row}, Diffs: []int8{1}}
		} else {
			id++
			checkpointAll(t, st, id, spill)
			spill = build()
			if err := spill.Restore(st); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for _, j := range []*Join{spill, mem} {
			c := &Batch{Rows: []types.Row{b.Rows[0].Clone()}, Diffs: b.Diffs}
			if err := j.Process(port, c); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		}
		got, err := spillOut.Rows()
		if err != nil {
			t.Fatal(err)
		}
		inMem, _ := memOut.Rows()
		want := fmtRows(outerJoinOf(node, stored))
		if g, m := fmtRows(got), fmtRows(inMem); !slices.Equal(g, want) || !slices.Equal(m, want) {
			t.Fatalf("%v seed %d step %d: spilling join holds %v, in memory %v, want %v", typ, seed, step, g, m, want)
		}
	}
}

// outerJoinOf is the batch answer: n's join of the rows of each side.
func outerJoinOf(n *planner.Join, sides [2][]types.Row) []types.Row {
	var out []types.Row
	matched := [2][]bool{make([]bool, len(sides[0])), make([]bool, len(sides[1]))}
	for li, l := range sides[0] {
		for ri, r := range sides[1] {
			if l[0].S == r[0].S {
				out = append(out, append(l.Clone(), r...))
				matched[0][li], matched[1][ri] = true, true
			}
		}
	}
	for side := 0; side < 2; side++ {
		if !n.Type.Preserves(side) {
			continue
		}
		for i, r := range sides[side] {
			if !matched[side][i] {
				row := make(types.Row, 6)
				copy(row[3*side:], r)
				out = append(out, row)
			}
		}
	}
	return out
}
