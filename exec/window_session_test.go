package exec

import (
	"math"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestSessionRestoresOldLayout: a store written before sessions left
// memory holds each session's value under its key and neither stored
// timers nor the timer marker. Restored with a budget, every session is
// loaded, the next checkpoint writes the marker and one timer per
// session, a restore from that checkpoint reads nothing, and the
// sessions then close with the rows of an aggregate that never stopped.
func TestSessionRestoresOldLayout(t *testing.T) {
	node := &planner.WindowAggregate{GroupCols: []int{0}, Aggs: allAggs,
		Window:   planner.WindowSpec{Kind: "session", Gap: 10, TimeCol: 1},
		Contract: planner.Contract{Policy: lateness.Drop, Emit: "on_window_close"}}
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows []types.Row
	for k := range 5 {
		for _, ts := range []int64{0, 6, 30} { // two sessions per group
			rows = append(rows, types.Row{types.IntValue(int64(k)), types.TimestampValue(ts), types.IntValue(int64(k) + ts)})
		}
	}
	memOut, out := NewMaterialize("m/", nil, nil), NewMaterialize("s/", nil, nil)
	mem := NewWindowAggregate(WindowAggregateConfig{ID: "w/", Node: node, Out: Output{Op: memOut}, Late: &lateness.Counters{}})
	old := NewWindowAggregate(WindowAggregateConfig{ID: "w/", Node: node, Out: Output{Op: out}, Late: &lateness.Counters{}, Store: st})
	for _, w := range []*WindowAggregate{mem, old} {
		if err := w.Process(0, &Batch{Rows: rows}); err != nil {
			t.Fatal(err)
		}
	}
	checkpointAll(t, st, 1, old)
	stripTimers(t, st, "w@") // the old layout: values only
	restore := func() *WindowAggregate {
		w := NewWindowAggregate(WindowAggregateConfig{ID: "w/", Node: node, Out: Output{Op: out}, Late: &lateness.Counters{}, Store: st, Budget: 2})
		if err := w.Restore(st); err != nil {
			t.Fatal(err)
		}
		return w
	}
	migrated := restore()
	if n := len(migrated.changed.items); n != 10 {
		t.Fatalf("migration listed %d sessions changed, want all 10", n)
	}
	checkpointAll(t, st, 2, migrated)
	if ok, err := migrated.sessionTimers.marked(st); !ok || err != nil {
		t.Fatalf("the checkpoint after a migration wrote no timer marker (err %v)", err)
	}
	if n := countPrefix(t, st, "w@t/"); n != 10 {
		t.Fatalf("the checkpoint after a migration wrote %d stored timers, want 10", n)
	}
	lazy := restore()
	if n := len(lazy.windows); n != 0 {
		t.Fatalf("restore from the migrated store loaded %d sessions, want none", n)
	}
	for _, w := range []*WindowAggregate{mem, lazy} {
		if err := w.Watermark(0, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := out.Rows()
	want, _ := memOut.Rows()
	if len(want) != 10 || types.Row(flatten(got)).String() != types.Row(flatten(want)).String() {
		t.Fatalf("migrated sessions closed with %v, want %v", got, want)
	}
}

// countPrefix counts the keys of st under prefix.
func countPrefix(t *testing.T, st *state.Store, prefix string) int {
	t.Helper()
	n := 0
	if err := st.Scan([]byte(prefix), func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
