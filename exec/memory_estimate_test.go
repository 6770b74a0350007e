package exec

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// discardOp is an Operator that drops what it receives.
type discardOp struct{}

func (discardOp) Process(int, *Batch) error  { return nil }
func (discardOp) Watermark(int, int64) error { return nil }
func (discardOp) Tick(int64) error           { return nil }

// estimateCase builds an operator holding entries entries of state and
// returns it with its estimate of their bytes in memory.
type estimateCase struct {
	entries int
	build   func(n int) (held any, estimate func() int64)
}

// estimateEntries is how many entries each case holds: enough that map
// growth and size classes average out.
const estimateEntries = 20000

// TestMemoryEstimateMatchesHeap builds each kind of operator state the
// memory budget counts — TUMBLE, HOP and SESSION windows, GROUP BY
// groups, interval and semi join rows, view rows — and compares the operator's
// estimate of its bytes in memory (memory_bytes, what it evicts by) with
// the live heap the state takes, measured after a garbage collection.
// The estimate must be within a factor of 1.5 of the heap either way:
// the budget stands for the process's memory.
func TestMemoryEstimateMatchesHeap(t *testing.T) {
	for name, c := range estimateCases() {
		heap, est := measureHeap(c)
		ratio := float64(est) / float64(heap)
		t.Logf("%s: heap %d B/entry, estimate %d B/entry (%.2f)", name, heap/int64(c.entries), est/int64(c.entries), ratio)
		if ratio < 1/1.5 || ratio > 1.5 {
			t.Errorf("%s: estimate %d bytes for %d entries, heap %d (ratio %.2f, want 0.67..1.5)", name, est, c.entries, heap, ratio)
		}
	}
}

// measureHeap returns the live heap c's state takes and its estimate:
// the median of three builds, each measured as the heap it holds after a
// GC less the heap once it is released, so that memory other goroutines
// free meanwhile (a closed store's buffers) moves no figure far.
func measureHeap(c estimateCase) (heap, est int64) {
	var runs []int64
	for range 3 {
		var built int64
		built, est = holdAndMeasure(c)
		var released runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&released)
		runs = append(runs, built-int64(released.HeapAlloc))
	}
	slices.Sort(runs)
	return runs[1], est
}

// holdAndMeasure builds c's state and returns the live heap while it is
// held, after a GC, and the state's estimate.
func holdAndMeasure(c estimateCase) (heap, est int64) {
	var built runtime.MemStats
	held, estimate := c.build(c.entries)
	runtime.GC()
	runtime.ReadMemStats(&built)
	est = estimate()
	runtime.KeepAlive(held)
	return int64(built.HeapAlloc), est
}

func estimateCases() map[string]estimateCase {
	simple := []planner.AggCall{{Fn: "count", Arg: -1, T: types.Int}, {Fn: "max", Arg: 2, T: types.Int}}
	cases := map[string]estimateCase{}
	for _, aggs := range []struct {
		name  string
		calls []planner.AggCall
	}{{"count,max", simple}, {"all", allAggs}} {
		for _, win := range []planner.WindowSpec{
			{Kind: "tumble", Size: 10, Slide: 10, TimeCol: 1},
			{Kind: "hop", Size: 10, Slide: 2, TimeCol: 1},
			{Kind: "session", Gap: 10, TimeCol: 1},
		} {
			cases[fmt.Sprintf("window %s %s", win.Kind, aggs.name)] = windowEstimate(win, aggs.calls)
		}
		cases["aggregate "+aggs.name] = aggregateEstimate(aggs.calls, nil)
		cases["aggregate retracting "+aggs.name] = aggregateEstimate(aggs.calls, &planner.Aggregate{})
	}
	cases["interval join"] = estimateCase{entries: 2 * estimateEntries, build: joinEstimate}
	cases["semi join"] = estimateCase{entries: 2 * estimateEntries, build: semiEstimate}
	cases["view"] = estimateCase{entries: estimateEntries, build: viewEstimate}
	return cases
}

// keyedRows returns n rows (k, ts, v) with a VARCHAR key per row, one
// per 100 rows, or when distinct one each, at times 0..n-1 ms.
func keyedRows(n int, distinct bool) []types.Row {
	rows := make([]types.Row, n)
	for i := range rows {
		k := i
		if !distinct {
			k = i / 100
		}
		rows[i] = types.Row{types.StringValue(fmt.Sprintf("key-%08d", k)), types.TimestampValue(int64(i)), types.IntValue(int64(i % 1000))}
	}
	return rows
}

// windowEstimate holds estimateEntries open windows of spec, a group
// each (a HOP row opens Size/Slide of them).
func windowEstimate(spec planner.WindowSpec, calls []planner.AggCall) estimateCase {
	perRow := 1
	if spec.Kind == "hop" {
		perRow = int(spec.Size / spec.Slide)
	}
	return estimateCase{entries: estimateEntries, build: func(n int) (any, func() int64) {
		node := &planner.WindowAggregate{GroupCols: []int{0}, Aggs: calls, Window: spec,
			Contract: planner.Contract{Policy: lateness.Drop, Emit: "on_window_close"}}
		w := NewWindowAggregate(WindowAggregateConfig{ID: "w/", Node: node, Out: Output{Op: discardOp{}}, Late: &lateness.Counters{}})
		feed(w, keyedRows(n/perRow, true))
		return w, func() int64 { return w.stateSize().MemoryBytes }
	}}
}

// aggregateEstimate holds estimateEntries groups, over a retracting
// input when in is one (value counts for min, max and DISTINCT).
func aggregateEstimate(calls []planner.AggCall, in planner.Node) estimateCase {
	return estimateCase{entries: estimateEntries, build: func(n int) (any, func() int64) {
		node := &planner.Aggregate{Input: in, GroupCols: []int{0}, Aggs: calls}
		a := NewAggregate(AggregateConfig{ID: "a/", Node: node, TimeCol: -1, Out: Output{Op: discardOp{}}})
		feed(a, keyedRows(n, true))
		return a, func() int64 { return a.stateSize().MemoryBytes }
	}}
}

// joinEstimate holds n/2 rows on each side of an interval join, 100 per
// key, none matching (the right side's keys differ).
func joinEstimate(n int) (any, func() int64) {
	j := NewJoin(JoinConfig{ID: "j/", Node: intervalNode(-5, 10, false, false, nil), Out: Output{Op: discardOp{}}, Late: &lateness.Counters{}})
	left, right := keyedRows(n/2, false), keyedRows(n/2, false)
	for _, r := range right {
		r[0] = types.StringValue("r" + r[0].S)
	}
	for i := 0; i < len(left); i += 1000 {
		if err := j.Process(0, &Batch{Rows: left[i:min(i+1000, len(left))]}); err != nil {
			panic(err)
		}
		if err := j.Process(1, &Batch{Rows: right[i:min(i+1000, len(right))]}); err != nil {
			panic(err)
		}
	}
	return j, func() int64 { return j.stateSize().MemoryBytes }
}

// semiEstimate holds n/2 rows on each side of a semi join, 100 per key,
// none matching (the right side's keys differ).
func semiEstimate(n int) (any, func() int64) {
	s := NewSemiJoin(SemiJoinConfig{ID: "s/", Node: semiNode(planner.Semi, nil), Out: Output{Op: discardOp{}}})
	left, right := keyedRows(n/2, false), keyedRows(n/2, false)
	for _, r := range right {
		r[0] = types.StringValue("r" + r[0].S)
	}
	for i := 0; i < len(left); i += 1000 {
		if err := s.Process(0, &Batch{Rows: left[i:min(i+1000, len(left))]}); err != nil {
			panic(err)
		}
		if err := s.Process(1, &Batch{Rows: right[i:min(i+1000, len(right))]}); err != nil {
			panic(err)
		}
	}
	return s, func() int64 { return s.stateSize().MemoryBytes }
}

// viewEstimate holds n distinct rows of four columns in a view store.
func viewEstimate(n int) (any, func() int64) {
	m := NewMaterialize("m/", nil, nil)
	rows := keyedRows(n, true)
	for i, r := range rows {
		rows[i] = append(r, types.IntValue(int64(i)))
	}
	feed(m, rows)
	return m, func() int64 { return m.stateSize().MemoryBytes }
}

// feed processes rows in batches of 1000; state tests do not fail here.
func feed(op Operator, rows []types.Row) {
	for i := 0; i < len(rows); i += 1000 {
		if err := op.Process(0, &Batch{Rows: rows[i:min(i+1000, len(rows))]}); err != nil {
			panic(err)
		}
	}
}
