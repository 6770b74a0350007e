package exec

import (
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// scanRow3 is a joinSchema row.
func scanRow3(k string, ts, x int64) types.Row {
	return types.Row{types.StringValue(k), types.TimestampValue(ts), types.IntValue(x)}
}

// TestJoinScannedRestoresIndexedCheckpoint: a checkpoint written by a
// build that indexed the left side (rows under their keys, with timers)
// restores into the scanned layout: every left row still joins, and the
// next checkpoint deletes the old keys and their timers, leaving chunks.
func TestJoinScannedRestoresIndexedCheckpoint(t *testing.T) {
	for _, budget := range []int{0, 2} {
		st, err := state.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		old := NewJoin(JoinConfig{ID: "j/", Node: intervalNode(-5, 10, false, true, nil), Out: Output{Op: NewMaterialize("a/", nil, nil)},
			Late: &lateness.Counters{}, Store: st, Budget: budget})
		const keys = 50
		for i := 0; i < keys; i++ {
			if err := old.Process(0, &Batch{Rows: []types.Row{scanRow3(fmt.Sprintf("k%d", i), int64(100+i%20), int64(i))}}); err != nil {
				t.Fatal(err)
			}
		}
		checkpointAll(t, st, 1, old)
		out := NewMaterialize("b/", nil, nil)
		j := NewJoin(JoinConfig{ID: "j/", Node: scannedNode(0), Out: Output{Op: out}, Late: &lateness.Counters{}, Store: st, Budget: budget})
		if err := j.Restore(st); err != nil {
			t.Fatal(err)
		}
		checkpointAll(t, st, 2, j)
		for _, prefix := range []string{"j/0", "j/t0"} {
			n := 0
			if err := st.Scan([]byte(prefix), func(_, _ []byte) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Fatalf("budget %d: %d keys left under %q after the checkpoint", budget, n, prefix)
			}
		}
		for i := 0; i < keys; i++ {
			if err := j.Process(1, &Batch{Rows: []types.Row{scanRow3(fmt.Sprintf("k%d", i), int64(105+i%20), int64(i))}}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := out.Rows()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != keys {
			t.Fatalf("budget %d: restored scanned join emitted %d rows, want %d", budget, len(got), keys)
		}
		st.Close()
	}
}

// TestJoinScannedRescales: chunks written by two instances (each keeping
// the keys its Keep accepts) restore into one instance, and chunks
// written by one restore into two: every row is joined exactly once, and
// after a checkpoint and another restore at the new parallelism still
// exactly once.
func TestJoinScannedRescales(t *testing.T) {
	odd := func(_ int, key types.Row) bool { return len(key[0].S)%2 == 1 }
	even := func(_ int, key types.Row) bool { return len(key[0].S)%2 == 0 }
	keys := []string{"a", "bb", "ccc", "dddd", "eeeee", "ff"}
	build := func(st *state.Store, out *Materialize, keep func(int, types.Row) bool, i, n int) *Join {
		return NewJoin(JoinConfig{ID: "j/", Node: scannedNode(0), Out: Output{Op: out}, Late: &lateness.Counters{},
			Store: st, Budget: 3, Keep: keep, Instance: i, Instances: n})
	}
	for _, from := range []int{1, 2} {
		st, err := state.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		writers := []*Join{build(st, NewMaterialize("w/", nil, nil), nil, 0, 1)}
		if from == 2 {
			writers = []*Join{build(st, NewMaterialize("w/", nil, nil), odd, 0, 2), build(st, NewMaterialize("w/", nil, nil), even, 1, 2)}
		}
		var ops []Stateful
		for _, w := range writers {
			for i, k := range keys {
				if w.keep != nil && !w.keep(0, types.Row{types.StringValue(k)}) {
					continue
				}
				if err := w.Process(0, &Batch{Rows: []types.Row{scanRow3(k, int64(100+3*i), int64(i))}}); err != nil {
					t.Fatal(err)
				}
			}
			ops = append(ops, w)
		}
		checkpointAll(t, st, 1, ops...)
		for round := uint64(2); round <= 3; round++ {
			out := NewMaterialize(fmt.Sprintf("r%d/", round), nil, nil)
			readers := []*Join{build(st, out, nil, 0, 1)}
			if from == 1 {
				readers = []*Join{build(st, out, odd, 0, 2), build(st, out, even, 1, 2)}
			}
			ops = ops[:0]
			for _, r := range readers {
				if err := r.Restore(st); err != nil {
					t.Fatal(err)
				}
				ops = append(ops, r)
			}
			checkpointAll(t, st, round, ops...)
			for _, r := range readers {
				for i, k := range keys {
					if r.keep != nil && !r.keep(1, types.Row{types.StringValue(k)}) {
						continue
					}
					if err := r.Process(1, &Batch{Rows: []types.Row{scanRow3(k, int64(104+3*i), int64(i))}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := out.Rows()
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(keys) {
				t.Fatalf("from %d instances, round %d: restored join emitted %d rows, want %d: %v", from, round, len(got), len(keys), got)
			}
		}
		st.Close()
	}
}

// TestScannedSideIsChosenForWindowMaximum: only a join with a
// per-window aggregate without group keys on one side scans the other.
func TestScannedSideIsChosenForWindowMaximum(t *testing.T) {
	grouped := scannedNode(0)
	grouped.Right.(*planner.Project).Input.(*planner.WindowAggregate).GroupCols = []int{0}
	for _, c := range []struct {
		node *planner.Join
		want int
	}{{scannedNode(0), 0}, {scannedNode(1), 1}, {intervalNode(-5, 10, false, true, nil), -1}, {grouped, -1}} {
		if got := planner.ScannedSide(c.node); got != c.want {
			t.Errorf("ScannedSide(%s) = %d, want %d", c.node, got, c.want)
		}
	}
}
