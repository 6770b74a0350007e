package exec

import (
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestAggregateSpillAgreesWithMemory feeds the same random rows, with
// checkpoints and (lazy) restores at random points, to a GROUP BY limited
// to two groups in memory (evicted groups leave memory whole) and to an
// unlimited one, each into a view; the views must agree at every step.
func TestAggregateSpillAgreesWithMemory(t *testing.T) {
	node := &planner.Aggregate{GroupCols: []int{0}, Aggs: allAggs}
	for seed := int64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewSource(seed))
		stA, err := state.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		build := func() (*Aggregate, *Materialize) {
			view := NewMaterialize("v/", nil, nil).WithSpill(stA, 2, 3)
			agg := NewAggregate(AggregateConfig{Store: stA, Budget: 2, ID: "a/", Node: node, TimeCol: -1, Out: Output{Op: view}})
			return agg, view
		}
		spillAgg, spillView := build()
		memView := NewMaterialize("m/", nil, nil)
		memAgg := NewAggregate(AggregateConfig{ID: "b/", Node: node, TimeCol: -1, Out: Output{Op: memView}})
		var id uint64
		for step := 0; step < 300; step++ {
			row := types.Row{types.IntValue(rng.Int63n(8)), types.IntValue(0), types.IntValue(rng.Int63n(100))}
			for _, a := range []*Aggregate{spillAgg, memAgg} {
				if err := a.Process(0, &Batch{Rows: []types.Row{row.Clone()}}); err != nil {
					t.Fatal(err)
				}
			}
			switch rng.Intn(15) {
			case 0:
				id++
				checkpointAll(t, stA, id, spillAgg, spillView)
			case 1: // restore from the last checkpoint, replaying nothing since
				id++
				checkpointAll(t, stA, id, spillAgg, spillView)
				spillAgg, spillView = build()
				for _, s := range []Stateful{spillAgg, spillView} {
					if err := s.Restore(stA); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := spillView.Rows()
			if err != nil {
				t.Fatal(err)
			}
			want, _ := memView.Rows()
			if types.Row(flatten(got)).String() != types.Row(flatten(want)).String() {
				t.Fatalf("seed %d step %d: spilling GROUP BY %v, in memory %v", seed, step, got, want)
			}
			if n := len(spillAgg.entries); n > 3 {
				t.Fatalf("seed %d step %d: %d groups in memory, budget 2", seed, step, n)
			}
		}
		_ = stA.Close()
	}
}
