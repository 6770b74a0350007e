package exec

import (
	"fmt"
	"hash/maphash"
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// partSpiller is an operator keeping its partitions in a partStore.
type partSpiller interface {
	Operator
	Stateful
	stateMeasurer
	StateKeys() int64
}

// partSpillCase is one operator run spilling and in memory by
// partsSpillAgree.
type partSpillCase struct {
	name string
	// build makes the operator: spilling into st with budget and mem
	// when st is set, else in memory.
	build func(st *state.Store, budget int, mem *MemoryBudget, id string, out Output) partSpiller
	// row makes an input row of partition k, event time ts and value v.
	row func(k, ts, v int64) types.Row
	// retracts: the input retracts rows it sent.
	retracts bool
}

// partsSpillAgree feeds the same random rows (in batches of one to
// three), watermarks and ticks, with checkpoints and restores at random
// points, to c's operator keeping at most one partition in memory (by
// state_cache_size, or by a memory share smaller than one partition) and
// to one keeping all, each into a view (both restore at the same points,
// so what a restore itself changes, such as when a sweep next runs, is
// the same for both); the views must agree at every step, the
// spilling operator must hold at most one partition after each step, and
// partitions must have been spilled and read back.
func partsSpillAgree(t *testing.T, c partSpillCase) {
	for _, byMemory := range []bool{false, true} {
		for seed := int64(1); seed <= 2 && (seed <= 1 || !byMemory); seed++ {
			name := fmt.Sprintf("%s budget seed %d", c.name, seed)
			if byMemory {
				name = fmt.Sprintf("%s memory seed %d", c.name, seed)
			}
			partsSpillRun(t, c, name, byMemory, seed)
		}
	}
}

func partsSpillRun(t *testing.T, c partSpillCase, name string, byMemory bool, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Close() }()
	budget, mem := 1, (*MemoryBudget)(nil)
	if byMemory {
		budget, mem = 0, NewMemoryBudget(64)
	}
	build := func() (partSpiller, *Materialize) {
		view := NewMaterialize("v/", nil, nil)
		return c.build(st, budget, mem, "s/", Output{Op: view}), view
	}
	spillOp, spillView := build()
	buildMem := func() (partSpiller, *Materialize) {
		view := NewMaterialize("m/", nil, nil)
		return c.build(nil, 0, nil, "o/", Output{Op: view}), view
	}
	memOp, memView := buildMem()
	var id uint64
	var live []types.Row
	var spilled, reads int64
	wm, clock, now := types.MinTime, int64(0), int64(0)
	for step := 0; step <= 300; step++ {
		feed := func(do func(o partSpiller) error) {
			t.Helper()
			for _, o := range []partSpiller{spillOp, memOp} {
				if err := do(o); err != nil {
					t.Fatalf("%s step %d: %v", name, step, err)
				}
			}
		}
		switch r := rng.Intn(15); {
		case r == 0:
			id++
			checkpointAll(t, st, id, spillOp, spillView, memOp, memView)
		case r == 1: // both restore from the last checkpoint, replaying nothing since
			id++
			checkpointAll(t, st, id, spillOp, spillView, memOp, memView)
			reads += spillOp.stateSize().SpillReads
			spillOp.(memoryMember).releaseMemory()
			spillOp, spillView = build()
			memOp, memView = buildMem()
			for _, s := range []Stateful{spillOp, spillView, memOp, memView} {
				if err := s.Restore(st); err != nil {
					t.Fatalf("%s step %d: restore: %v", name, step, err)
				}
			}
			if wm != types.MinTime { // the engine re-sends the watermark
				feed(func(o partSpiller) error { return o.Watermark(0, wm) })
			}
			feed(func(o partSpiller) error { return o.Tick(now) })
		case r < 4:
			if x := clock - rng.Int63n(6); x > wm {
				wm = x
				feed(func(o partSpiller) error { return o.Watermark(0, x) })
			}
		case r < 6:
			now += rng.Int63n(4)
			feed(func(o partSpiller) error { return o.Tick(now) })
		default:
			b := &Batch{}
			for range 1 + rng.Intn(3) {
				if c.retracts && len(live) > 0 && rng.Intn(3) == 0 {
					i := rng.Intn(len(live))
					b.Rows, b.Diffs = append(b.Rows, live[i]), append(b.Diffs, -1)
					live = append(live[:i], live[i+1:]...)
					continue
				}
				ts := max(clock-rng.Int63n(8), wm)
				row := c.row(rng.Int63n(8), ts, rng.Int63n(100))
				live = append(live, row)
				b.Rows, b.Diffs = append(b.Rows, row), append(b.Diffs, 1)
			}
			if !c.retracts {
				b.Diffs = nil
			}
			feed(func(o partSpiller) error { return o.Process(0, b.clone()) })
			clock += rng.Int63n(3)
		}
		sameViews(t, fmt.Sprintf("%s step %d", name, step), "operator", spillView, memView)
		if n := spillOp.StateKeys(); n > 1 {
			t.Fatalf("%s step %d: %d partitions in memory, limit 1", name, step, n)
		}
		spilled = max(spilled, spillOp.stateSize().SpilledBytes)
	}
	reads += spillOp.stateSize().SpillReads
	if spilled == 0 || reads == 0 {
		t.Fatalf("%s: %d bytes spilled at most, %d reads back: want both", name, spilled, reads)
	}
}

// clone copies b's rows and diffs, so two operators can each own one.
func (b *Batch) clone() *Batch {
	c := &Batch{Diffs: append([]int8(nil), b.Diffs...)}
	if b.Diffs == nil {
		c.Diffs = nil
	}
	for _, r := range b.Rows {
		c.Rows = append(c.Rows, r.Clone())
	}
	return c
}

// TestTopNSpillAgreesWithMemory: keyed Top-N partitions leave memory
// whole and come back on their next row or TTL timer, with the same
// output as keeping them all; over an append-only and a retracting
// input, without TTL and with an event-time and a wall-clock one.
func TestTopNSpillAgreesWithMemory(t *testing.T) {
	cases := []struct {
		name    string
		fn      string
		keepAll bool
		ttl     int64
		timeCol int
	}{
		{"row_number", "row_number", false, 0, -1},
		{"rank/keep-all", "rank", true, 0, -1},
		{"dense_rank/ttl-event", "dense_rank", false, 15, 1},
		{"row_number/keep-all/ttl-wall", "row_number", true, 6, -1},
	}
	for _, tc := range cases {
		node := &planner.TopN{Fn: tc.fn, Limit: 2, Partition: []int{0}, Order: []planner.SortKey{{Col: 2, Desc: true}},
			RankCol: 3, RankName: "rn", TTL: tc.ttl}
		partsSpillAgree(t, partSpillCase{
			name: "topn/" + tc.name,
			build: func(st *state.Store, budget int, mem *MemoryBudget, id string, out Output) partSpiller {
				return NewTopN(TopNConfig{ID: id, Node: node, KeepAll: tc.keepAll, Out: out, TimeCol: tc.timeCol,
					Store: st, Budget: budget, Memory: mem})
			},
			row: func(k, ts, v int64) types.Row {
				return types.Row{types.IntValue(k), types.TimestampValue(ts), types.IntValue(v % 10), types.IntValue(0)}
			},
			retracts: tc.keepAll,
		})
	}
}

// TestOverUpdateSpillAgreesWithMemory: the updating running aggregate's
// partitions leave memory whole and come back on their next row, when
// the watermark lets go of their rows, or are read in place by a STATE
// TTL sweep, with the same output as keeping them all: letting go (ROWS,
// RANGE, UNBOUNDED; event-time TTL) and over a retracting input
// (wall-clock TTL).
func TestOverUpdateSpillAgreesWithMemory(t *testing.T) {
	cases := []struct {
		name              string
		letsGo, rows, unb bool
		preceding, ttl    int64
	}{
		{"lets-go/rows-2", true, true, false, 2, 0},
		{"lets-go/range-3/ttl", true, false, false, 3, 12},
		{"lets-go/unbounded", true, true, true, 0, 0},
		{"retract/rows-1", false, true, false, 1, 0},
		{"retract/range-unbounded/ttl-wall", false, false, true, 0, 6},
	}
	for _, tc := range cases {
		node := &planner.OverAggregate{Partition: []int{0}, TimeCol: 1, Rows: tc.rows, Unbounded: tc.unb, Preceding: tc.preceding,
			TTL: tc.ttl, Input: &planner.Scan{TimeCol: 1, Retracting: !tc.letsGo},
			Aggs:  []planner.AggCall{{Fn: "sum", Arg: 2, T: types.Int}, {Fn: "count", Arg: -1, T: types.Int}, {Fn: "max", Arg: 2, T: types.Int}},
			Names: []string{"sum", "count", "max"}}
		partsSpillAgree(t, partSpillCase{
			name: "over-update/" + tc.name,
			build: func(st *state.Store, budget int, mem *MemoryBudget, id string, out Output) partSpiller {
				return NewOverUpdate(OverAggregateConfig{ID: id, Node: node, Out: out, Store: st, Budget: budget, Memory: mem}, 0)
			},
			row: func(k, ts, v int64) types.Row {
				return types.Row{types.IntValue(k), types.TimestampValue(ts), types.IntValue(v)}
			},
			retracts: !tc.letsGo,
		})
	}
}

// TestOverAggregateSpillAgreesWithMemory: the EMIT ON WINDOW CLOSE
// running aggregate's partitions leave memory whole and come back on
// their next row or when the watermark fires their buffered rows, or are
// read in place by a STATE TTL sweep, with the same output as keeping
// them all.
func TestOverAggregateSpillAgreesWithMemory(t *testing.T) {
	cases := []struct {
		name           string
		rows, unb      bool
		preceding, ttl int64
	}{
		{"rows-2", true, false, 2, 0},
		{"range-3/ttl", false, false, 3, 12},
		{"rows-unbounded/ttl", true, true, 0, 9},
	}
	for _, tc := range cases {
		node := &planner.OverAggregate{Partition: []int{0}, TimeCol: 1, Rows: tc.rows, Unbounded: tc.unb, Preceding: tc.preceding,
			TTL: tc.ttl, Emit: "on_window_close", Input: &planner.Scan{TimeCol: 1},
			Aggs:  []planner.AggCall{{Fn: "sum", Arg: 2, T: types.Int}, {Fn: "count", Arg: -1, T: types.Int}, {Fn: "max", Arg: 2, T: types.Int}},
			Names: []string{"sum", "count", "max"}}
		partsSpillAgree(t, partSpillCase{
			name: "over-eowc/" + tc.name,
			build: func(st *state.Store, budget int, mem *MemoryBudget, id string, out Output) partSpiller {
				return NewOverAggregate(OverAggregateConfig{ID: id, Node: node, Out: out, Store: st, Budget: budget, Memory: mem})
			},
			row: func(k, ts, v int64) types.Row {
				return types.Row{types.IntValue(k), types.TimestampValue(ts), types.IntValue(v)}
			},
		})
	}
}

// TestWindowTopNSpillAgreesWithMemory: the window Top-N's (window,
// partition) pairs leave memory whole and come back on their next row or
// when their window closes, with the same output as keeping them all.
func TestWindowTopNSpillAgreesWithMemory(t *testing.T) {
	for _, fn := range []string{"row_number", "rank"} {
		node := &planner.WindowTopN{Fn: fn, Limit: 2, Partition: []int{1, 2, 0}, Order: []planner.SortKey{{Col: 3, Desc: true}},
			RankCol: 4, RankName: "rn", StartCol: 1, EndCol: 2}
		partsSpillAgree(t, partSpillCase{
			name: "window-topn/" + fn,
			build: func(st *state.Store, budget int, mem *MemoryBudget, id string, out Output) partSpiller {
				return NewWindowTopN(WindowTopNConfig{ID: id, Node: node, Out: out, Store: st, Budget: budget, Memory: mem})
			},
			row: func(k, ts, v int64) types.Row { // a 5-wide tumbling window
				start := ts - ts%5
				return types.Row{types.IntValue(k), types.TimestampValue(start), types.TimestampValue(start + 5),
					types.IntValue(v % 10), types.IntValue(0)}
			},
		})
	}
}

// TestPartStoreEvictsLeastRecentlyUsed: a keyed Top-N with room for 8
// partitions takes a row of one hot partition in every batch and of a new
// cold one beside it; evictions take the cold ones, so the hot partition
// is never written out and read back (at random, as before, it was).
// (No checkpoint: it reads the spilled values to copy them.)
func TestPartStoreEvictsLeastRecentlyUsed(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	node := &planner.TopN{Fn: "row_number", Limit: 2, Partition: []int{0}, Order: []planner.SortKey{{Col: 2, Desc: true}},
		RankCol: 3, RankName: "rn"}
	op := NewTopN(TopNConfig{ID: "t/", Node: node, Out: Output{Op: NewMaterialize("v/", nil, nil)}, TimeCol: -1, Store: st, Budget: 8})
	row := func(k, v int64) types.Row {
		return types.Row{types.IntValue(k), types.TimestampValue(0), types.IntValue(v), types.IntValue(0)}
	}
	for i := int64(1); i <= 200; i++ {
		if err := op.Process(0, &Batch{Rows: []types.Row{row(0, i), row(i, i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if op.store.resident() > 8 {
		t.Fatalf("%d partitions in memory, budget 8", op.store.resident())
	}
	if op.store.spill.reads != 0 {
		t.Fatalf("%d partitions read back: the hot one was evicted", op.store.spill.reads)
	}
	if _, ok := op.store.parts[string(state.AppendKeyCols(nil, row(0, 0), []int{0}))]; !ok {
		t.Fatal("the hot partition is not in memory")
	}
	// The evicted keys are in the filter get consults, so they are read
	// back; keys never seen are not (up to its false positives), so get
	// answers "none" for them without reading Badger.
	for i := int64(1); i <= 200; i++ {
		k := state.AppendKeyCols(nil, row(i, 0), []int{0})
		if _, in := op.store.parts[string(k)]; !in && !op.store.evicted.has(maphash.Bytes(op.store.seed, k)) {
			t.Fatalf("partition %d left memory but is not in the evicted filter", i)
		}
	}
	fresh := 0
	for i := int64(1000); i < 1200; i++ {
		if op.store.evicted.has(maphash.Bytes(op.store.seed, state.AppendKeyCols(nil, row(i, 0), []int{0}))) {
			fresh++
		}
	}
	if fresh > 10 {
		t.Fatalf("%d of 200 keys never seen pass the evicted filter", fresh)
	}
}
