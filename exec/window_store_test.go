package exec

import (
	"bytes"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestWindowKeysAreTimers: a checkpoint of HOP windows writes one entry
// per window (keyed by its end) and the marker, no timer entries; a store
// in the layout with timers beside the windows (layout 1) restores by
// loading every window, and its next checkpoint leaves only end-keyed
// windows, no timers and the new marker. From there a restore reads
// nothing, the watermark reads back the windows it fires, and after one
// more checkpoint and restore the windows past their lateness are
// deleted without being read.
func TestWindowKeysAreTimers(t *testing.T) {
	node := &planner.WindowAggregate{GroupCols: []int{0}, Aggs: allAggs,
		Window:   planner.WindowSpec{Kind: "hop", Size: 10, Slide: 5, TimeCol: 1},
		Contract: planner.Contract{Lateness: 4, Policy: lateness.Update, Emit: "on_window_close"}}
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := NewMaterialize("m/", nil, nil)
	build := func() *WindowAggregate {
		return NewWindowAggregate(WindowAggregateConfig{ID: "w/", Node: node, Out: Output{Op: out},
			Late: &lateness.Counters{}, Store: st, Budget: 100})
	}
	w := build()
	var rows []types.Row
	for g := range 5 {
		rows = append(rows, types.Row{types.IntValue(int64(g)), types.TimestampValue(int64(1 + g%3)), types.IntValue(int64(g))})
	}
	if err := w.Process(0, &Batch{Rows: rows}); err != nil {
		t.Fatal(err)
	}
	if n := checkpointWrites(t, st, 1, w); n != 10+1 {
		t.Fatalf("checkpoint of 10 new windows wrote %d entries, want 11 (the windows and the marker)", n)
	}
	if n := countKeys(t, st, "w/"); n != 10 {
		t.Fatalf("%d stored windows, want 10", n)
	}

	toOldWindowLayout(t, st, "w/", node, 1)
	w = build()
	if err := w.Restore(st); err != nil {
		t.Fatal(err)
	}
	if !w.migrating || len(w.oldKeys) != 20 {
		t.Fatalf("restore of layout 1: migrating %v with %d old keys, want 20 (10 windows, 10 timers)", w.migrating, len(w.oldKeys))
	}
	checkpointAll(t, st, 2, w)
	if n := countKeys(t, st, "w@t/"); n != 0 {
		t.Fatalf("%d timers left after the migrating checkpoint", n)
	}
	mark, _, err := st.Get([]byte("w@m"))
	if err != nil || !bytes.HasPrefix(mark, windowsMark) {
		t.Fatalf("marker %q (%v), want %q and a watermark", mark, err, windowsMark)
	}
	err = st.Scan([]byte("w/"), func(key, val []byte) error {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		if end := keyEnd(key[2:]); end != rows[0][1].I {
			t.Errorf("window ending at %d stored under end %d", rows[0][1].I, end)
		}
		return nil
	})
	if err != nil || countKeys(t, st, "w/") != 10 {
		t.Fatalf("after migration: %v, %d windows, want 10", err, countKeys(t, st, "w/"))
	}

	w = build()
	if err := w.Restore(st); err != nil {
		t.Fatal(err)
	}
	if len(w.windows) != 0 {
		t.Fatalf("restore loaded %d windows, want none", len(w.windows))
	}
	if err := w.Watermark(0, 10); err != nil { // fires the 10 windows ending at 5 and 10
		t.Fatal(err)
	}
	if got, _ := out.Rows(); len(got) != 10 || w.spill.reads != 10 {
		t.Fatalf("watermark 10 emitted %d rows reading %d windows, want 10 and 10", len(got), w.spill.reads)
	}
	checkpointAll(t, st, 3, w)

	w = build()
	if err := w.Restore(st); err != nil {
		t.Fatal(err)
	}
	if err := w.Watermark(0, 30); err != nil { // past every window's lateness
		t.Fatal(err)
	}
	if w.spill.reads != 0 {
		t.Fatalf("dropping fired windows past their lateness read %d of them", w.spill.reads)
	}
	checkpointAll(t, st, 4, w)
	if n := countKeys(t, st, "w/"); n != 0 {
		t.Fatalf("%d windows stored past their lateness", n)
	}
}

// checkpointWrites checkpoints ops as checkpoint id and returns how many
// entries it wrote.
func checkpointWrites(t *testing.T, st *state.Store, id uint64, ops ...Stateful) int {
	t.Helper()
	var n int
	err := st.Checkpoint(id, func(w *state.Writer) error {
		for _, op := range ops {
			if err := op.Checkpoint(w); err != nil {
				return err
			}
		}
		n = w.Writes()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func countKeys(t *testing.T, st *state.Store, prefix string) int {
	t.Helper()
	n := 0
	if err := st.Scan([]byte(prefix), func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
