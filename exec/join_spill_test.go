package exec

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestJoinSpillAgreesWithMemory feeds the same random rows and
// watermarks, with checkpoints and (lazy) restores at random points, to
// a join limited to two rows per side in memory (whole keys leave memory;
// their expiry lives in the stored timers) and to an unlimited one, for
// an interval join, a window join and a STATE TTL join. Their outputs
// must agree at every step, and the spilling join must hold no more than
// its budget (plus one batch) in memory, and nothing once both inputs'
// watermarks reach a bounded input's end.
func TestJoinSpillAgreesWithMemory(t *testing.T) {
	scan := func() *planner.Scan { return &planner.Scan{Out: joinSchema} }
	nodes := map[string]*planner.Join{
		"interval": intervalNode(-5, 10, false, true, nil),
		"window": {Left: scan(), Right: scan(), Kind: planner.WindowJoin, LeftKeys: []int{0, 1}, RightKeys: []int{0, 1},
			LeftTime: 1, RightTime: 1, WindowSize: 10},
		"ttl": {Left: scan(), Right: scan(), Kind: planner.Unbounded, LeftKeys: []int{0}, RightKeys: []int{0},
			LeftTime: 1, RightTime: 1, TTL: 15},
	}
	for name, node := range nodes {
		for seed := int64(1); seed <= 6; seed++ {
			joinSpillAgrees(t, name, node, node, seed)
		}
	}
}

// TestJoinScannedSideAgreesWithIndexed runs the same random rows,
// watermarks, checkpoints and restores through an interval join whose
// left, then right, side is scanned (time buckets of 3 over an interval
// of 15, so a probe spans several buckets; whole buckets spill under a
// budget of two rows) and through the indexed join in memory: they must
// emit the same rows at every step, late rows included.
func TestJoinScannedSideAgreesWithIndexed(t *testing.T) {
	indexed := intervalNode(-5, 10, false, true, nil)
	for side := 0; side < 2; side++ {
		node := scannedNode(side)
		if got := planner.ScannedSide(node); got != side {
			t.Fatalf("ScannedSide = %d, want %d", got, side)
		}
		for seed := int64(1); seed <= 8; seed++ {
			joinSpillAgrees(t, fmt.Sprintf("scan side %d", side), node, indexed, seed)
		}
	}
}

// scannedNode is intervalNode(-5, 10) with the other side than side a
// per-window maximum's shape (a TUMBLE WindowAggregate with no group key
// under a projection that gives it joinSchema), so side is scanned.
func scannedNode(side int) *planner.Join {
	n := intervalNode(-5, 10, false, true, nil)
	wa := &planner.WindowAggregate{Input: &planner.Scan{Out: joinSchema},
		Window: planner.WindowSpec{Kind: "tumble", TimeCol: 1, Size: 10}, Names: []string{"window_start", "window_end"}}
	p := &planner.Project{Input: wa, Names: []string{"k", "ts", "x"}}
	for i, c := range joinSchema {
		p.Exprs = append(p.Exprs, &planner.ColRef{Index: min(i, 1), Name: c.Name, T: c.Type})
	}
	if side == 0 {
		n.Right = p
	} else {
		n.Left = p
	}
	return n
}

func joinSpillAgrees(t *testing.T, name string, node, memNode *planner.Join, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spillOut, memOut := NewMaterialize("s/", nil, nil), NewMaterialize("m/", nil, nil)
	build := func() *Join {
		return NewJoin(JoinConfig{ID: "j/", Node: node, Out: Output{Op: spillOut}, Late: &lateness.Counters{}, Store: st, Budget: 2})
	}
	spill := build()
	mem := NewJoin(JoinConfig{ID: "j/", Node: memNode, Out: Output{Op: memOut}, Late: &lateness.Counters{}})
	wm := [2]int64{types.MinTime, types.MinTime}
	clock := int64(0)
	var id uint64
	for step := 0; step <= 400; step++ {
		feed := func(do func(j *Join) error) {
			for _, j := range []*Join{spill, mem} {
				if err := do(j); err != nil {
					t.Fatalf("%s seed %d step %d: %v", name, seed, step, err)
				}
			}
		}
		switch r := rng.Intn(10); {
		case step == 400: // the end of bounded inputs: every window closes, every row expires
			for port := 0; port < 2; port++ {
				feed(func(j *Join) error { return j.Watermark(port, math.MaxInt64) })
			}
			for side := 0; side < 2; side++ {
				if n, m := spill.storedRows(side), mem.storedRows(side); n+m > 0 {
					t.Fatalf("%s seed %d: side %d holds %d and %d rows after the inputs' end", name, seed, side, n, m)
				}
			}
		case r < 7:
			port := rng.Intn(2)
			ts := clock - rng.Int63n(12)
			if node.Kind == planner.WindowJoin {
				ts -= ((ts % 10) + 10) % 10 // a window start
			}
			row := types.Row{types.StringValue(string(rune('a' + rng.Intn(6)))), types.TimestampValue(ts), types.IntValue(int64(step))}
			feed(func(j *Join) error { return j.Process(port, &Batch{Rows: []types.Row{row.Clone()}}) })
			clock += rng.Int63n(3)
		case r < 9:
			port := rng.Intn(2)
			if w := clock - rng.Int63n(8); w > wm[port] {
				wm[port] = w
				feed(func(j *Join) error { return j.Watermark(port, w) })
			}
		default:
			id++
			checkpointAll(t, st, id, spill)
			if rng.Intn(2) == 0 { // restart from that checkpoint; the engine re-sends the watermarks
				spill = build()
				if err := spill.Restore(st); err != nil {
					t.Fatal(err)
				}
				resendWatermarks(t, spill, wm)
			}
		}
		sameViews(t, fmt.Sprintf("%s seed %d step %d", name, seed, step), "join", spillOut, memOut)
		for side := 0; side < 2; side++ {
			if n := spill.storedRows(side); n > 3 {
				t.Fatalf("%s seed %d step %d: side %d holds %d rows in memory, budget 2", name, seed, step, side, n)
			}
		}
	}
}

// TestJoinSpilledKeysSurviveCompaction: with a budget of two rows per
// side, thousands of keys leave memory changed (into the spill area)
// before any checkpoint, so the list of changed keys compacts while most
// of its keys are out of memory. Those keys are still changed: the
// checkpoint must write every one, and a join restored from it must
// still join every stored row.
func TestJoinSpilledKeysSurviveCompaction(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	node := intervalNode(0, 10, false, false, nil)
	build := func(out *Materialize) *Join {
		return NewJoin(JoinConfig{ID: "j/", Node: node, Out: Output{Op: out}, Late: &lateness.Counters{}, Store: st, Budget: 2})
	}
	const keys = 5000
	j := build(NewMaterialize("a/", nil, nil))
	for i := 0; i < keys; i++ {
		row := types.Row{types.StringValue(fmt.Sprintf("k%d", i)), types.TimestampValue(100), types.IntValue(int64(i))}
		if err := j.Process(0, &Batch{Rows: []types.Row{row}}); err != nil {
			t.Fatal(err)
		}
	}
	checkpointAll(t, st, 1, j)
	out := NewMaterialize("b/", nil, nil)
	j = build(out)
	if err := j.Restore(st); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < keys; i++ {
		row := types.Row{types.StringValue(fmt.Sprintf("k%d", i)), types.TimestampValue(105), types.IntValue(int64(i))}
		if err := j.Process(1, &Batch{Rows: []types.Row{row}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := out.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != keys {
		t.Fatalf("restored join emitted %d rows, want %d (one per stored left row)", len(got), keys)
	}
}
