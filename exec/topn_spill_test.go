package exec

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestTopNSpillAgreesWithMemory feeds the same random rows (inserts, and
// over a retracting input retractions of live rows), with checkpoints and
// lazy restores at random points, to a keyed Top-N limited to two
// partitions in memory and to an unlimited one, each into a view; the
// views must agree at every step, and the spilling one must hold at most
// two partitions between batches.
func TestTopNSpillAgreesWithMemory(t *testing.T) {
	for _, fn := range []string{"row_number", "rank", "dense_rank"} {
		for _, keepAll := range []bool{false, true} {
			for seed := int64(1); seed <= 4; seed++ {
				topNSpillAgrees(t, fmt.Sprintf("%s keepAll=%v", fn, keepAll), fn, keepAll, seed)
			}
		}
	}
}

func topNSpillAgrees(t *testing.T, name, fn string, keepAll bool, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	node := &planner.TopN{Fn: fn, Limit: 2, Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}},
		RankCol: 2, RankName: "rn"}
	build := func() (*TopN, *Materialize) {
		view := NewMaterialize("v/", nil, nil)
		op := NewTopN(TopNConfig{ID: "t/", Node: node, KeepAll: keepAll, Out: Output{Op: view}, Store: st, Budget: 2})
		return op, view
	}
	spillOp, spillView := build()
	memView := NewMaterialize("m/", nil, nil)
	memOp := NewTopN(TopNConfig{ID: "u/", Node: node, KeepAll: keepAll, Out: Output{Op: memView}})
	var live []types.Row
	var id uint64
	var reads int64 // partitions read back from Badger by earlier instances
	for step := 0; step < 300; step++ {
		switch r := rng.Intn(12); {
		case r == 0:
			id++
			checkpointAll(t, st, id, spillOp, spillView)
		case r == 1: // restore from the last checkpoint, replaying nothing since
			id++
			checkpointAll(t, st, id, spillOp, spillView)
			reads += spillOp.spill.reads
			spillOp, spillView = build()
			for _, s := range []Stateful{spillOp, spillView} {
				if err := s.Restore(st); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(spillOp.parts); n > 0 {
				t.Fatalf("%s seed %d step %d: restore loaded %d partitions, want none (lazy)", name, seed, step, n)
			}
		default:
			b := &Batch{}
			for range 1 + rng.Intn(3) {
				if keepAll && len(live) > 0 && rng.Intn(3) == 0 {
					i := rng.Intn(len(live))
					b.Rows, b.Diffs = append(b.Rows, live[i].Clone()), append(b.Diffs, -1)
					live = append(live[:i], live[i+1:]...)
					continue
				}
				row := types.Row{types.IntValue(rng.Int63n(6)), types.IntValue(rng.Int63n(5)), types.IntValue(0), types.StringValue(fmt.Sprint(rng.Intn(3)))}
				live = append(live, row)
				b.Rows, b.Diffs = append(b.Rows, row.Clone()), append(b.Diffs, 1)
			}
			for _, op := range []*TopN{spillOp, memOp} {
				c := &Batch{Rows: append([]types.Row(nil), b.Rows...), Diffs: append([]int8(nil), b.Diffs...)}
				if err := op.Process(0, c); err != nil {
					t.Fatalf("%s seed %d step %d: %v", name, seed, step, err)
				}
			}
		}
		got, err := spillView.Rows()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := memView.Rows()
		if types.Row(flatten(got)).String() != types.Row(flatten(want)).String() {
			t.Fatalf("%s seed %d step %d: spilling Top-N %v, in memory %v", name, seed, step, got, want)
		}
		if n := len(spillOp.parts); n > 2 {
			t.Fatalf("%s seed %d step %d: %d partitions in memory, budget 2", name, seed, step, n)
		}
	}
	if reads+spillOp.stateSize().SpillReads == 0 {
		t.Fatalf("%s seed %d: no partition read back from Badger", name, seed)
	}
}
