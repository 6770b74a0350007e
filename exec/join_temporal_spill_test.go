package exec

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestTemporalJoinSpillAgreesWithMemory feeds the same random stream
// rows, TABLE changes (upserts as the old row's delete and the new row's
// insert in one batch, deletes) and watermarks, with checkpoints and
// restores at random points, to a temporal join that keeps one key in
// memory and to one that keeps all, for event-time and lookup joins,
// inner and LEFT. Their outputs must agree at every step; the spilling
// join must hold at most one key in memory after each call, and must
// have read evicted keys back (waiting rows found when the frontier
// passed them).
func TestTemporalJoinSpillAgreesWithMemory(t *testing.T) {
	for _, kind := range []planner.JoinKind{planner.TemporalJoin, planner.LookupJoin} {
		for _, typ := range []planner.JoinType{planner.InnerJoin, planner.LeftOuterJoin} {
			node := &planner.Join{
				Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema, Retracting: true},
				Kind: kind, Type: typ, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1,
			}
			if kind == planner.LookupJoin {
				node.RightTime = -1
			}
			for seed := int64(1); seed <= 3; seed++ {
				temporalSpillAgrees(t, fmt.Sprintf("%v/%v", kind, typ), node, seed)
			}
		}
	}
}

func temporalSpillAgrees(t *testing.T, name string, node *planner.Join, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spillOut, memOut := NewMaterialize("s/", nil, nil), NewMaterialize("m/", nil, nil)
	build := func() *TemporalJoin {
		return NewTemporalJoin(TemporalJoinConfig{ID: "t/", Node: node, Out: Output{Op: spillOut}, Late: &lateness.Counters{}, Store: st, Budget: 1})
	}
	spill := build()
	mem := NewTemporalJoin(TemporalJoinConfig{ID: "t/", Node: node, Out: Output{Op: memOut}, Late: &lateness.Counters{}})
	table := map[string]types.Row{}
	clock := int64(0)
	var id uint64
	var reads int64
	for step := 0; step <= 400; step++ {
		feed := func(do func(j *TemporalJoin) error) {
			for _, j := range []*TemporalJoin{spill, mem} {
				if err := do(j); err != nil {
					t.Fatalf("%s seed %d step %d: %v", name, seed, step, err)
				}
			}
		}
		k := string(rune('a' + rng.Intn(8)))
		switch r := rng.Intn(20); {
		case r < 8: // a stream row
			row := types.Row{types.StringValue(k), types.TimestampValue(clock - rng.Int63n(6)), types.IntValue(int64(step))}
			feed(func(j *TemporalJoin) error { return j.Process(0, &Batch{Rows: []types.Row{row.Clone()}}) })
			clock += rng.Int63n(3)
		case r < 13: // a TABLE change of k: an upsert or (1 in 4) a delete
			b := &Batch{}
			if old := table[k]; old != nil {
				b.Rows, b.Diffs = append(b.Rows, old), append(b.Diffs, -1)
			}
			if len(b.Rows) == 0 || rng.Intn(4) > 0 {
				row := types.Row{types.StringValue(k), types.TimestampValue(clock - rng.Int63n(4)), types.IntValue(int64(1000 + step))}
				b.Rows, b.Diffs = append(b.Rows, row), append(b.Diffs, 1)
				table[k] = row
			} else {
				delete(table, k)
			}
			feed(func(j *TemporalJoin) error {
				c := &Batch{Diffs: b.Diffs}
				for _, r := range b.Rows {
					c.Rows = append(c.Rows, r.Clone())
				}
				return j.Process(1, c)
			})
		case r < 18:
			port := rng.Intn(2)
			w := clock - rng.Int63n(5)
			feed(func(j *TemporalJoin) error { return j.Watermark(port, w) })
		default:
			id++
			checkpointAll(t, st, id, spill)
			if rng.Intn(2) == 0 { // restart from that checkpoint
				reads += spill.spill.reads
				spill = build()
				if err := spill.Restore(st); err != nil {
					t.Fatal(err)
				}
			}
		}
		sameViews(t, fmt.Sprintf("%s seed %d step %d", name, seed, step), "join", spillOut, memOut)
		if n := len(spill.keys); n > 1 {
			t.Fatalf("%s seed %d step %d: %d keys in memory, budget 1", name, seed, step, n)
		}
	}
	if reads += spill.spill.reads; reads == 0 {
		t.Fatalf("%s seed %d: no evicted key was read back", name, seed)
	}
	if len(mem.keys) < 2 {
		t.Fatalf("%s seed %d: the in-memory join holds %d keys: the test spills nothing", name, seed, len(mem.keys))
	}
}
