package exec

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestWindowSpillAgreesWithMemory feeds the same random rows (some late),
// watermarks and ticks, with checkpoints and lazy restores at random
// points, to a window aggregate limited to two windows in memory (TUMBLE
// and HOP windows leave memory whole, their stored keys are their
// timers; sessions leave a group at a time, their close and drop in the
// stored timers; restore reads nothing) and to an unlimited one, each
// into a view; the views must agree at every step. Some restores first
// rewrite the store in an older layout (TUMBLE and HOP windows keyed by
// group and start, with or without stored timers beside them; sessions
// without their timers): the restore then loads every window and the
// next checkpoint migrates them. The spilling aggregate must hold at most
// its budget of windows, and after a checkpoint a heap of at most a few
// entries per window it holds. The input ends with the watermark of a
// bounded source's end. Each case runs again under a byte budget instead
// of the row cap: a share too small for more than a window or two, which
// the aggregate's estimated bytes in memory must respect.
func TestWindowSpillAgreesWithMemory(t *testing.T) {
	cases := map[string]planner.WindowAggregate{
		"tumble/close": {Window: planner.WindowSpec{Kind: "tumble", Size: 10, Slide: 10},
			Contract: planner.Contract{Policy: lateness.Drop, Emit: "on_window_close"}},
		"tumble/close/lateness/update": {Window: planner.WindowSpec{Kind: "tumble", Size: 10, Slide: 10},
			Contract: planner.Contract{Lateness: 6, Policy: lateness.Update, Emit: "on_window_close"}},
		"hop/update/lateness": {Window: planner.WindowSpec{Kind: "hop", Size: 10, Slide: 5},
			Contract: planner.Contract{Lateness: 4, Policy: lateness.Update, Emit: "on_update"}},
		"hop/every": {Window: planner.WindowSpec{Kind: "hop", Size: 12, Slide: 4},
			Contract: planner.Contract{Lateness: 3, Policy: lateness.Update, Emit: "every", Every: 5}},
		"session/update": {Window: planner.WindowSpec{Kind: "session", Gap: 4},
			Contract: planner.Contract{Lateness: 5, Policy: lateness.Update, Emit: "on_window_close"}},
		"session/close": {Window: planner.WindowSpec{Kind: "session", Gap: 3},
			Contract: planner.Contract{Policy: lateness.Drop, Emit: "on_window_close"}},
		"session/on_update/lateness": {Window: planner.WindowSpec{Kind: "session", Gap: 5},
			Contract: planner.Contract{Lateness: 4, Policy: lateness.Update, Emit: "on_update"}},
		"session/every": {Window: planner.WindowSpec{Kind: "session", Gap: 4},
			Contract: planner.Contract{Lateness: 2, Policy: lateness.Update, Emit: "every", Every: 5}},
	}
	for name, node := range cases {
		node.Window.TimeCol = 1
		node.GroupCols, node.Aggs = []int{0}, allAggs
		for seed := int64(1); seed <= 3; seed++ {
			windowSpillAgrees(t, name, &node, seed, nil)
		}
		for seed := int64(4); seed <= 5; seed++ {
			windowSpillAgrees(t, name+"/bytes", &node, seed, NewMemoryBudget(3000))
		}
	}
}

// windowSpillAgrees runs one case: the spilling aggregate keeps at most
// two windows in memory, or with budget its share of budget.
func windowSpillAgrees(t *testing.T, name string, node *planner.WindowAggregate, seed int64, budget *MemoryBudget) {
	rng := rand.New(rand.NewSource(seed))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spillOut, memOut := NewMaterialize("s/", nil, nil), NewMaterialize("m/", nil, nil)
	rows := 2
	if budget != nil {
		rows = 0
	}
	build := func() *WindowAggregate {
		return NewWindowAggregate(WindowAggregateConfig{ID: "w/", Node: node, Out: Output{Op: spillOut},
			Late: &lateness.Counters{}, Store: st, Budget: rows, Memory: budget})
	}
	spill := build()
	mem := NewWindowAggregate(WindowAggregateConfig{ID: "w/", Node: node, Out: Output{Op: memOut}, Late: &lateness.Counters{}})
	// EMIT EVERY fires what changed since the last tick, which a restart
	// forgets in both layouts: that case checkpoints without restarting.
	restarts := node.Contract.Emit != "every"
	wm, clock, now := types.MinTime, int64(0), int64(0)
	var id uint64
	spilled := false
	for step := 0; step <= 400; step++ {
		feed := func(do func(w *WindowAggregate) error) {
			for _, w := range []*WindowAggregate{spill, mem} {
				if err := do(w); err != nil {
					t.Fatalf("%s seed %d step %d: %v", name, seed, step, err)
				}
			}
		}
		switch r := rng.Intn(12); {
		case step == 400: // the end of a bounded input closes every window
			feed(func(w *WindowAggregate) error { return w.Watermark(0, math.MaxInt64) })
			if n, m := len(spill.windows), len(mem.windows); n+m > 0 {
				t.Fatalf("%s seed %d: %d and %d windows held after the input's end", name, seed, n, m)
			}
		case r < 7:
			ts := clock - rng.Int63n(15) // some rows late, some past their lateness
			row := types.Row{types.IntValue(rng.Int63n(6)), types.TimestampValue(ts), types.IntValue(rng.Int63n(100))}
			feed(func(w *WindowAggregate) error { return w.Process(0, &Batch{Rows: []types.Row{row.Clone()}}) })
			clock += rng.Int63n(3)
		case r < 9:
			if x := clock - rng.Int63n(6); x > wm {
				wm = x
				feed(func(w *WindowAggregate) error { return w.Watermark(0, x) })
			}
		case r < 10:
			now += rng.Int63n(4)
			feed(func(w *WindowAggregate) error { return w.Tick(now) })
		default:
			id++
			checkpointAll(t, st, id, spill)
			if n, held := spill.timers.Len(), len(spill.windows); n > 3*held {
				t.Fatalf("%s seed %d step %d: %d timers in the heap after a checkpoint, %d windows held", name, seed, step, n, held)
			}
			if !restarts || rng.Intn(2) == 0 {
				break
			}
			layout := rng.Intn(6)
			stripped := layout < 2
			switch {
			case !stripped:
			case node.Window.Kind == "session": // written before sessions had timers
				stripTimers(t, st, "w@")
			default: // a store written by an older build
				toOldWindowLayout(t, st, "w/", node, layout)
			}
			spill.releaseMemory()
			spill = build() // restart from that checkpoint; the engine re-sends the watermark
			if err := spill.Restore(st); err != nil {
				t.Fatal(err)
			}
			if n := len(spill.windows); n > 0 && !stripped {
				t.Fatalf("%s seed %d step %d: restore loaded %d windows, want none (lazy)", name, seed, step, n)
			}
			if wm != types.MinTime {
				if err := spill.Watermark(0, wm); err != nil {
					t.Fatal(err)
				}
			}
		}
		sameViews(t, fmt.Sprintf("%s seed %d step %d", name, seed, step), "window aggregate", spillOut, memOut)
		checkWindowsHeld(t, spill, budget, rows)
		spilled = spilled || spill.spill.bytes > 0
	}
	if !spilled {
		t.Fatalf("%s seed %d: no window was ever spilled", name, seed)
	}
}

// checkWindowsHeld fails unless w holds at most rows windows or, with a
// memory budget, at most its share's bytes by its own estimate (or one
// window, when a window alone is more than the share).
func checkWindowsHeld(t *testing.T, w *WindowAggregate, mem *MemoryBudget, rows int) {
	t.Helper()
	if mem == nil {
		if resident, n := w.ResidentWindows(); resident > rows || n > rows {
			t.Fatalf("%d windows' values in memory (%d held), budget %d", resident, n, rows)
		}
		return
	}
	got, share := w.stateSize().MemoryBytes, mem.Share()
	if resident, _ := w.ResidentWindows(); got > share && resident > 1 {
		t.Fatalf("%d windows estimated at %d bytes in memory, share %d", resident, got, share)
	}
}

// stripTimers deletes an operator's stored timers and their marker (the
// keys starting with prefix), leaving its state as a store written before
// stored timers holds it.
func stripTimers(t *testing.T, st *state.Store, prefix string) {
	t.Helper()
	if err := st.DeletePrefix([]byte(prefix)); err != nil {
		t.Fatal(err)
	}
}

// toOldWindowLayout rewrites the TUMBLE and HOP windows of the window
// aggregate id (keyed by end) as an older build stored them: keyed by
// the group's key row then the start, with (layout 1) a timer per window
// at the watermark it next needed under the "@t/" space and the marker
// timersMark, or (layout 0) neither.
func toOldWindowLayout(t *testing.T, st *state.Store, id string, node *planner.WindowAggregate, layout int) {
	t.Helper()
	base := strings.TrimSuffix(id, "/")
	type kv struct{ key, val []byte }
	var old []kv
	err := st.Scan([]byte(id), func(key, val []byte) error {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		start, end, fired := rows[0][0].I, rows[0][1].I, rows[0][2].Bool()
		k := state.AppendRow(state.AppendKeyRow(nil, rows[1]), types.Row{types.TimestampValue(start)})
		old = append(old, kv{append([]byte(id), k...), val})
		if layout == 1 {
			at := end
			if fired {
				at += node.Contract.Lateness
			}
			timer := binary.BigEndian.AppendUint64([]byte(base+"@t/"), uint64(at)^(1<<63))
			old = append(old, kv{append(timer, k...), nil})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeletePrefix([]byte(id)); err != nil {
		t.Fatal(err)
	}
	err = st.Batch(func(w *state.Writer) error {
		var mark error
		if layout == 1 {
			mark = w.Set([]byte(base+"@m"), timersMark)
		} else {
			mark = w.Delete([]byte(base + "@m"))
		}
		if mark != nil {
			return mark
		}
		for _, x := range old {
			if err := w.Set(x.key, x.val); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
