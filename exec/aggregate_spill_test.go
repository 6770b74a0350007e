package exec

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestAggregateSpillAgreesWithMemory feeds the same random rows,
// watermarks and ticks, with checkpoints and (lazy) restores at random
// points, to a GROUP BY limited to two groups in memory (evicted groups
// leave memory whole; under STATE TTL their expiry lives in the stored
// timers) and to an unlimited one, each into a view; the views must agree
// at every step. Cases: no TTL, an event-time TTL and a wall-clock TTL.
// Some restores of a TTL aggregate first strip the stored timers, as a
// store written before them has none: the restore then loads every group
// and the next checkpoint writes the timers. The input ends with the
// watermark of a bounded source's end.
//
// The distinct cases add DISTINCT calls as q16 has them, a FILTER being a
// column NULL where it fails (filterAggs), over an append-only input and
// over a retracting one whose retractions take back random rows still
// live: their sets are stored in chunks from two entries on (rather than
// minChunkedEntries), which the checkpoints append to and the loads read
// back.
func TestAggregateSpillAgreesWithMemory(t *testing.T) {
	defer func(n int) { minChunkedEntries = n }(minChunkedEntries)
	retracting := &planner.Aggregate{} // any input that is not append-only
	cases := map[string]struct {
		ttl     int64
		timeCol int
		aggs    []planner.AggCall
		input   planner.Node
	}{
		"no-ttl": {0, -1, allAggs, nil}, "ttl/event": {15, 1, allAggs, nil}, "ttl/wall": {6, -1, allAggs, nil},
		"distinct/no-ttl": {0, -1, filterAggs, nil}, "distinct/ttl/event": {15, 1, filterAggs, nil},
		"distinct/retract": {0, -1, filterAggs, retracting}, "distinct/retract/ttl/event": {15, 1, filterAggs, retracting},
	}
	for name, c := range cases {
		node := &planner.Aggregate{Input: c.input, GroupCols: []int{0}, Aggs: c.aggs, TTL: c.ttl}
		minChunkedEntries = 1024
		if strings.HasPrefix(name, "distinct/") {
			minChunkedEntries = 2
		}
		for seed := int64(1); seed <= 5; seed++ {
			aggregateSpillAgrees(t, name, node, c.timeCol, seed)
		}
	}
}

// filterAggs are allAggs with count(DISTINCT v) FILTER (WHERE v < 50)
// (column 3: v, or NULL where v >= 50) and sum(DISTINCT v).
var filterAggs = append(append([]planner.AggCall(nil), allAggs...),
	planner.AggCall{Fn: "count", Arg: 3, Distinct: true, T: types.Int},
	planner.AggCall{Fn: "sum", Arg: 2, Distinct: true, T: types.Int})

func aggregateSpillAgrees(t *testing.T, name string, node *planner.Aggregate, timeCol int, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	stA, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer stA.Close()
	build := func() (*Aggregate, *Materialize) {
		view := NewMaterialize("v/", nil, nil).WithSpill(stA, 2, 3, nil)
		agg := NewAggregate(AggregateConfig{Store: stA, Budget: 2, ID: "a/", Node: node, TimeCol: timeCol, Out: Output{Op: view}})
		return agg, view
	}
	spillAgg, spillView := build()
	memView := NewMaterialize("m/", nil, nil)
	memAgg := NewAggregate(AggregateConfig{ID: "b/", Node: node, TimeCol: timeCol, Out: Output{Op: memView}})
	var id uint64
	var live []types.Row // the rows inserted and not retracted (retracting input)
	wm, clock, now := types.MinTime, int64(0), int64(0)
	for step := 0; step <= 300; step++ {
		feed := func(do func(a *Aggregate) error) {
			for _, a := range []*Aggregate{spillAgg, memAgg} {
				if err := do(a); err != nil {
					t.Fatalf("%s seed %d step %d: %v", name, seed, step, err)
				}
			}
		}
		switch r := rng.Intn(15); {
		case step == 300: // the end of a bounded input: it expires no group
			held := len(memAgg.entries)
			feed(func(a *Aggregate) error { return a.Watermark(0, types.EndOfTime) })
			if m := len(memAgg.entries); m != held {
				t.Fatalf("%s seed %d: %d groups held after the input's end, %d before", name, seed, m, held)
			}
		case r == 0:
			id++
			checkpointAll(t, stA, id, spillAgg, spillView)
		case r == 1: // restore from the last checkpoint, replaying nothing since
			id++
			checkpointAll(t, stA, id, spillAgg, spillView)
			if n, held := spillAgg.timers.heap.Len(), len(spillAgg.entries); n > 2*held {
				t.Fatalf("%s seed %d step %d: %d timers in the heap after a checkpoint, %d groups held", name, seed, step, n, held)
			}
			stripped := node.TTL > 0 && rng.Intn(3) == 0
			if stripped { // a store written before timers
				stripTimers(t, stA, "a@t/") // the timers, not the DISTINCT sets' chunks (a@d/)
				stripTimers(t, stA, "a@m")
			}
			spillAgg, spillView = build()
			for _, s := range []Stateful{spillAgg, spillView} {
				if err := s.Restore(stA); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(spillAgg.entries); n > 0 && !stripped {
				t.Fatalf("%s seed %d step %d: restore loaded %d groups, want none (lazy)", name, seed, step, n)
			}
			if wm != types.MinTime { // the engine re-sends the watermark
				if err := spillAgg.Watermark(0, wm); err != nil {
					t.Fatal(err)
				}
			}
			feed(func(a *Aggregate) error { return a.Tick(now) })
		case r < 4:
			if x := clock - rng.Int63n(6); x > wm {
				wm = x
				feed(func(a *Aggregate) error { return a.Watermark(0, x) })
			}
		case r < 6:
			now += rng.Int63n(4)
			feed(func(a *Aggregate) error { return a.Tick(now) })
		case r < 8 && planner.AggregateRetracts(node) && len(live) > 0:
			i := rng.Intn(len(live))
			row := live[i]
			live = append(live[:i], live[i+1:]...)
			feed(func(a *Aggregate) error {
				return a.Process(0, &Batch{Rows: []types.Row{row.Clone()}, Diffs: []int8{-1}})
			})
		default:
			ts := clock - rng.Int63n(8)
			v := rng.Int63n(100)
			filtered := types.NullValue
			if v < 50 {
				filtered = types.IntValue(v)
			}
			row := types.Row{types.IntValue(rng.Int63n(8)), types.TimestampValue(ts), types.IntValue(v), filtered}
			live = append(live, row)
			feed(func(a *Aggregate) error { return a.Process(0, &Batch{Rows: []types.Row{row.Clone()}}) })
			clock += rng.Int63n(3)
		}
		sameViews(t, fmt.Sprintf("%s seed %d step %d", name, seed, step), "GROUP BY", spillView, memView)
		if n := len(spillAgg.entries); n > 2 {
			t.Fatalf("%s seed %d step %d: %d groups in memory, budget 2", name, seed, step, n)
		}
	}
}

// TestAggregateEvictionKeepsHotGroups feeds batches that each update two
// hot groups and one new cold group to a GROUP BY with room for four
// groups in memory: eviction must take the cold groups (least recently
// updated), never a hot one, which would be written out and rebuilt from
// its encoded DISTINCT set by its next row. The counts must still be
// right at the end.
func TestAggregateEvictionKeepsHotGroups(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	node := &planner.Aggregate{GroupCols: []int{0}, Aggs: allAggs}
	view := NewMaterialize("v/", nil, nil)
	agg := NewAggregate(AggregateConfig{Store: st, Budget: 4, ID: "a/", Node: node, TimeCol: -1, Out: Output{Op: view}})
	hot := map[string]*aggEntry{}
	const batches = 60
	for i := range batches {
		b := &Batch{}
		for _, g := range []int64{-1, -2, int64(i)} {
			b.Rows = append(b.Rows, types.Row{types.IntValue(g), types.TimestampValue(0), types.IntValue(int64(i))})
		}
		if err := agg.Process(0, b); err != nil {
			t.Fatal(err)
		}
		if n := len(agg.entries); n > 4 {
			t.Fatalf("batch %d: %d groups in memory, budget 4", i, n)
		}
		for _, g := range []int64{-1, -2} {
			k := string(state.AppendKey(nil, types.IntValue(g)))
			e := agg.entries[k]
			if e == nil {
				t.Fatalf("batch %d: hot group %d evicted", i, g)
			}
			if was, ok := hot[k]; ok && was != e {
				t.Fatalf("batch %d: hot group %d was evicted and loaded again", i, g)
			}
			hot[k] = e
		}
	}
	rows, err := view.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != batches+2 {
		t.Fatalf("view holds %d groups, want %d", len(rows), batches+2)
	}
	for _, r := range rows {
		if r[0].I < 0 && (r[1].I != batches || r[6].I != batches) { // count(*), count(DISTINCT)
			t.Fatalf("hot group row %v: want count and count(DISTINCT) %d", r, batches)
		}
	}
}
