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
			joinSpillAgrees(t, name, node, node, seed, nil)
			// under a memory share split between the sides by their
			// lookups, whole keys of the least recently used first
			joinSpillAgrees(t, name+"/share", node, node, seed, NewMemoryBudget(1200))
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
			joinSpillAgrees(t, fmt.Sprintf("scan side %d", side), node, indexed, seed, nil)
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

// joinSpillAgrees runs the random scenario through a join that spills
// (over two rows a side, or over its share of share when given) and one
// in memory.
func joinSpillAgrees(t *testing.T, name string, node, memNode *planner.Join, seed int64, share *MemoryBudget) {
	rng := rand.New(rand.NewSource(seed))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spillOut, memOut := NewMaterialize("s/", nil, nil), NewMaterialize("m/", nil, nil)
	budget := 2
	if share != nil {
		budget = 0
	}
	build := func() *Join {
		return NewJoin(JoinConfig{ID: "j/", Node: node, Out: Output{Op: spillOut}, Late: &lateness.Counters{}, Store: st, Budget: budget, Memory: share})
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
		for side := 0; side < 2 && share == nil; side++ {
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

// TestJoinEvictsLeastRecentlyUsedKeys: under a budget of 400 rows a side,
// one hot key takes a row in every batch while 250 cold keys take one
// row each and are never looked up again. Eviction must take the cold
// keys: the hot key stays in memory throughout, and no key is ever read
// back from Badger.
func TestJoinEvictsLeastRecentlyUsedKeys(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	node := &planner.Join{Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema},
		Kind: planner.Unbounded, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1}
	j := NewJoin(JoinConfig{ID: "j/", Node: node, Out: Output{Op: NewMaterialize("v/", nil, nil)}, Late: &lateness.Counters{}, Store: st, Budget: 400})
	hot := types.StringValue("hot")
	for i := 0; i < 250; i++ {
		rows := []types.Row{
			{hot, types.TimestampValue(int64(i)), types.IntValue(int64(i))},
			{types.StringValue(fmt.Sprintf("cold%d", i)), types.TimestampValue(int64(i)), types.IntValue(int64(i))},
		}
		if err := j.Process(0, &Batch{Rows: rows}); err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			checkpointAll(t, st, uint64(i+1), j)
		}
		k := string(state.AppendKey(nil, hot))
		if j.sides[0].get(k, joinHash(k)) == nil {
			t.Fatalf("batch %d: the hot key left memory", i)
		}
	}
	if !j.onDisk[0] {
		t.Fatal("the left side never spilled: the test does not exercise eviction")
	}
	if j.spill.reads != 0 {
		t.Fatalf("%d keys were read back from Badger, want none", j.spill.reads)
	}
}

// TestJoinSplitsShareByLookups: the memory share goes to the sides by
// how often their keys are looked up, not by the rows they hold, and a
// side that needs less leaves the rest to the other.
func TestJoinSplitsShareByLookups(t *testing.T) {
	cases := []struct {
		name     string
		touches  [2]int64
		resident [2]int
		share    int
		want     [2]int
	}{
		{"equal lookups, both over", [2]int64{99, 99}, [2]int{500, 500}, 100, [2]int{50, 50}},
		{"probed side small: the rest to the other", [2]int64{99, 99}, [2]int{10, 5000}, 100, [2]int{10, 90}},
		{"left looked up three times as often", [2]int64{299, 99}, [2]int{1000, 1000}, 100, [2]int{75, 25}},
		{"right holds less than its part", [2]int64{99, 299}, [2]int{1000, 20}, 100, [2]int{80, 20}},
		{"no lookups yet: halves", [2]int64{0, 0}, [2]int{300, 300}, 10, [2]int{5, 5}},
		{"a part is at least a row", [2]int64{1 << 19, 0}, [2]int{1 << 20, 1 << 20}, 100, [2]int{99, 1}},
	}
	for _, c := range cases {
		j := &Join{touches: c.touches, resident: c.resident}
		if got := j.split(c.share); got != c.want {
			t.Errorf("%s: split(%d) = %v, want %v", c.name, c.share, got, c.want)
		}
	}
}

// TestJoinProbedSideStaysInMemory is Nexmark q20's shape: a right side
// of one row per key (auctions), probed by every left row (bids), and a
// left side of many rows per key that nothing but the rare right row
// probes. Under a memory share too small for both, the left side must
// spill and the right side stay whole in memory, so a left row whose key
// the right side lacks reads nothing from Badger; every bid still joins.
func TestJoinProbedSideStaysInMemory(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	node := &planner.Join{Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema},
		Kind: planner.Unbounded, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1, TTL: 1 << 40}
	out := NewMaterialize("v/", nil, nil)
	j := NewJoin(JoinConfig{ID: "j/", Node: node, Out: Output{Op: out}, Late: &lateness.Counters{}, Store: st, Memory: NewMemoryBudget(64 << 10)})
	const auctions, bidsPer = 40, 50
	for a := 0; a < auctions; a++ {
		row := types.Row{types.StringValue(fmt.Sprintf("a%d", 2*a)), types.TimestampValue(0), types.IntValue(int64(a))}
		if err := j.Process(1, &Batch{Rows: []types.Row{row}}); err != nil {
			t.Fatal(err)
		}
	}
	for b := 0; b < bidsPer; b++ {
		var rows []types.Row
		for a := 0; a < 2*auctions; a++ { // odd keys: no auction
			rows = append(rows, types.Row{types.StringValue(fmt.Sprintf("a%d", a)), types.TimestampValue(int64(b)), types.IntValue(int64(b))})
		}
		if err := j.Process(0, &Batch{Rows: rows}); err != nil {
			t.Fatal(err)
		}
	}
	if !j.onDisk[0] || j.onDisk[1] {
		t.Fatalf("spilled sides = %v, want the bids' only", j.onDisk)
	}
	got, err := out.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != auctions*bidsPer {
		t.Fatalf("joined %d rows, want %d", len(got), auctions*bidsPer)
	}
}

// TestJoinScannedSideCountsLookups: a scanned side's stores and probes
// (no keys, so no keyOf) count as lookups of it, so split gives it its
// part of the share (uncounted, q7's bids would keep a single row).
func TestJoinScannedSideCountsLookups(t *testing.T) {
	j := NewJoin(JoinConfig{ID: "j/", Node: scannedNode(0), Out: Output{Op: NewMaterialize("v/", nil, nil)}, Late: &lateness.Counters{}})
	for i := 0; i < 10; i++ {
		row := types.Row{types.StringValue("a"), types.TimestampValue(int64(i)), types.IntValue(int64(i))}
		for port := 0; port < 2; port++ {
			if err := j.Process(port, &Batch{Rows: []types.Row{row.Clone()}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// side 0 (scanned): 10 stores and 10 probes from the right rows;
	// side 1: 10 probes from the left rows and 10 stores.
	if j.touches != [2]int64{20, 20} {
		t.Fatalf("touches = %v, want [20 20]", j.touches)
	}
}
