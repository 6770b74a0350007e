package exec

import (
	"slices"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// tfInput is the (k VARCHAR, ts TIMESTAMP, v BIGINT) input of the
// temporal filter cases.
var tfInput = &planner.Scan{Kind: planner.ScanSource, Name: "s", TimeCol: 1,
	Out: types.Schema{{Name: "k", Type: types.String}, {Name: "ts", Type: types.Timestamp}, {Name: "v", Type: types.Int}}}

// slidingNode is ts > clock - 10 AND ts <= clock: a row enters when the
// clock reaches its time and leaves 10 later.
func slidingNode(clock string) *planner.TemporalFilter {
	kind := types.Timestamp
	if clock == planner.ClockProcessing {
		kind = types.TimestampTZ
	}
	now := &planner.ColRef{Index: 0, Name: "clock", T: kind}
	ts := &planner.ColRef{Index: 1, Name: "ts", T: types.Timestamp}
	return &planner.TemporalFilter{Input: tfInput, TimeCol: 1, Clock: clock,
		Lower: &planner.TemporalBound{Row: ts, Op: ">", Clock: &planner.Call{Fn: "-", Args: []planner.Scalar{now, &planner.Const{V: types.IntervalValue(10)}}, T: kind}},
		Upper: &planner.TemporalBound{Row: ts, Op: "<=", Clock: now},
	}
}

// TestHarnessTemporalFilter: rows enter when the watermark reaches their
// time and leave when it passes their time + 10; a row already past its
// lower bound never enters; identical rows enter and leave together.
func TestHarnessTemporalFilter(t *testing.T) {
	node := slidingNode(planner.ClockWatermark)
	runHarness(t, harnessCase{
		name: "temporal_filter/sliding",
		build: func(in instance) Operator {
			f, err := NewTemporalFilter(TemporalFilterConfig{ID: in.ID, Node: node, Out: in.Out})
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
		events: []event{
			in("a", 1, 1), in("b", 5, 2),
			wmAt(0, 5), // a and b enter
			in("c", 8, 3), in("a", 1, 1), in("x", 30, 9),
			wmAt(0, 12),    // both a leave; c enters; b stays
			in("d", 20, 4), // waits for the clock
			in("e", 1, 5),  // past its lower bound: never enters
			in("f", 11, 6), // behind the clock but inside: enters
			wmAt(0, 16),    // b leaves
			wmAt(0, 20),    // c leaves, d enters; x still waits
		},
		want:    []string{"d @20 4", "f @11 6"},
		reorder: true,
		serial:  true,
	})
}

// TestTemporalFilterProcessingTime: under PROCTIME() the wall clock
// (Tick) moves the filter, and watermarks do not.
func TestTemporalFilterProcessingTime(t *testing.T) {
	view := NewMaterialize("view/", nil, nil)
	f, err := NewTemporalFilter(TemporalFilterConfig{ID: "op/", Node: slidingNode(planner.ClockProcessing), Out: Output{Op: checkedView{view}}})
	if err != nil {
		t.Fatal(err)
	}
	rows := func() []string {
		t.Helper()
		r, err := view.Rows()
		if err != nil {
			t.Fatal(err)
		}
		out := fmtRows(r)
		slices.Sort(out)
		return out
	}
	steps := []struct {
		do   func() error
		want []string
	}{
		{func() error { return f.Process(0, &Batch{Rows: []types.Row{tfRow("a", 3), tfRow("b", 7)}}) }, nil},
		{func() error { return f.Watermark(0, 100) }, nil}, // not this clock
		{func() error { return f.Tick(5) }, []string{"a @3 0"}},
		{func() error { return f.Tick(14) }, []string{"b @7 0"}},
		{func() error { return f.Tick(17) }, nil},
	}
	for i, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := rows(); !slices.Equal(got, s.want) {
			t.Fatalf("step %d: view %q, want %q", i, got, s.want)
		}
	}
}

func tfRow(k string, ts int64) types.Row {
	return types.Row{types.StringValue(k), types.TimestampValue(ts), types.IntValue(0)}
}

// TestTemporalFilterRestoresClock: a restored filter judges rows by the
// clock of its checkpoint before any watermark arrives, so a row already
// past its lower bound does not enter (and leave again).
func TestTemporalFilterRestoresClock(t *testing.T) {
	store, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	node := slidingNode(planner.ClockWatermark)
	node.Upper = nil
	build := func(view *Materialize) *TemporalFilter {
		f, err := NewTemporalFilter(TemporalFilterConfig{ID: "op/", Node: node, Out: Output{Op: checkedView{view}}})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := build(NewMaterialize("view/", nil, nil))
	if err := first.Watermark(0, 12); err != nil {
		t.Fatal(err)
	}
	if err := store.Update(first.Checkpoint); err != nil {
		t.Fatal(err)
	}
	view := NewMaterialize("view2/", nil, nil)
	again := build(view)
	if err := again.Restore(store); err != nil {
		t.Fatal(err)
	}
	if err := again.Process(0, &Batch{Rows: []types.Row{tfRow("old", 1), tfRow("new", 5)}}); err != nil {
		t.Fatal(err)
	}
	rows, err := view.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmtRows(rows); !slices.Equal(got, []string{"new @5 0"}) {
		t.Fatalf("view after restore %q, want only the row inside the bound", got)
	}
}
