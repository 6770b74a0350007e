package exec

import (
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// endSchema is (k, v, e, rn): e plays Nexmark q9's expires, the column
// each partition ends by.
var endSchema = types.Schema{{Name: "k", Type: types.String}, {Name: "v", Type: types.Int},
	{Name: "e", Type: types.Timestamp}, {Name: "rn", Type: types.Int}}

// endNode is a ROW_NUMBER Top-N (limit rows) over endSchema partitioned
// by k, ordered by v DESC, whose partitions end once the watermark
// passes e (reaches it, when strict).
func endNode(limit int64, strict bool) *planner.TopN {
	return &planner.TopN{Input: &planner.Scan{Out: endSchema, TimeCol: -1}, Fn: "row_number", Limit: limit,
		Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}}, RankCol: 3, RankName: "rn",
		End: &planner.PartitionEnd{Col: 2, Strict: strict, Key: "s.k"}}
}

// endRow is a row of partition k (NULL when k is ""), value v, ending at
// e (NULL when e < 0).
func endRow(k string, v, e int64) types.Row {
	r := types.Row{types.StringValue(k), types.IntValue(v), types.TimestampValue(e), types.IntValue(0)}
	if k == "" {
		r[0] = types.NullValue
	}
	if e < 0 {
		r[2] = types.NullValue
	}
	return r
}

// TestTopNDropsFinalPartitions: a partition leaves state once the
// watermark passes its end (reaches it, when strict) and nothing is
// emitted for it: its ranked rows stay in the view. A NULL key or end
// never ends a partition. A restore from a checkpoint after the drops
// holds only the partitions left.
func TestTopNDropsFinalPartitions(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strict=%v", strict), func(t *testing.T) {
			st, err := state.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			log := &changeLog{}
			op := NewTopN(TopNConfig{ID: "t/", Node: endNode(1, strict), Out: Output{Op: log}, TimeCol: -1})
			rows := []types.Row{endRow("a", 5, 10), endRow("a", 7, 10), endRow("b", 1, 20), endRow("", 3, 10), endRow("c", 2, -1)}
			if err := op.Process(0, &Batch{Rows: rows}); err != nil {
				t.Fatal(err)
			}
			emitted := len(log.got)
			steps := []struct {
				wm   int64
				want int64 // partitions left
			}{{9, 4}, {10, 4}, {11, 3}, {20, 3}, {21, 2}, {1000, 2}}
			if strict {
				steps = []struct {
					wm   int64
					want int64
				}{{9, 4}, {10, 3}, {19, 3}, {20, 2}, {1000, 2}}
			}
			for _, s := range steps {
				if err := op.Watermark(0, s.wm); err != nil {
					t.Fatal(err)
				}
				if got := op.StateKeys(); got != s.want {
					t.Fatalf("after watermark %d: %d partitions, want %d", s.wm, got, s.want)
				}
			}
			if len(log.got) != emitted {
				t.Fatalf("dropping final partitions emitted %q, want nothing", log.got[emitted:])
			}
			checkpointAll(t, st, 1, op)
			again := NewTopN(TopNConfig{ID: "t/", Node: endNode(1, strict), Out: Output{Op: &changeLog{}}, TimeCol: -1})
			if err := again.Restore(st); err != nil {
				t.Fatal(err)
			}
			if got := again.StateKeys(); got != 2 {
				t.Fatalf("restored %d partitions, want the 2 that never end", got)
			}
		})
	}
}

// TestTopNDropsFinalPartitionsSpilledAndRestored: with one partition in
// memory the others wait in Badger; a restore rebuilds every partition's
// end from its rows, and the watermark that passes them all leaves no
// partition in memory or on disk.
func TestTopNDropsFinalPartitionsSpilledAndRestored(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	build := func() *TopN {
		return NewTopN(TopNConfig{ID: "t/", Node: endNode(2, false), Out: Output{Op: &changeLog{}}, TimeCol: -1, Store: st, Budget: 1})
	}
	op := build()
	for i := range 20 {
		k := fmt.Sprintf("k%02d", i)
		if err := op.Process(0, &Batch{Rows: []types.Row{endRow(k, int64(i), int64(100+i)), endRow(k, int64(i+1), int64(100+i))}}); err != nil {
			t.Fatal(err)
		}
	}
	checkpointAll(t, st, 1, op)
	// half of them end before the restore, in memory or spilled
	if err := op.Watermark(0, 110); err != nil {
		t.Fatal(err)
	}
	checkpointAll(t, st, 2, op)
	op = build()
	if err := op.Restore(st); err != nil {
		t.Fatal(err)
	}
	if got := op.ends.Len(); got != 10 {
		t.Fatalf("restore covered %d partitions by their end, want the 10 left", got)
	}
	if err := op.Watermark(0, 120); err != nil {
		t.Fatal(err)
	}
	checkpointAll(t, st, 3, op)
	var left []string
	if err := st.ScanOwned([]byte("t/"), func([]byte) (bool, error) { return true, nil }, func(key, _ []byte) error {
		left = append(left, string(key))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 || op.StateKeys() != 0 {
		t.Fatalf("after every end passed: stored %q, %d in memory; want none", left, op.StateKeys())
	}
}

// TestHarnessTopNEnd: under every delivery, parallelism, restore and a
// budget of one, the view of a Top-N whose partitions end is the same
// final ranked rows: dropping a final partition retracts nothing.
func TestHarnessTopNEnd(t *testing.T) {
	row := func(k string, v, e int64) event { return event{row: endRow(k, v, e), wm: autoWM} }
	events := []event{
		row("a", 5, 10), row("b", 1, 30), row("a", 9, 10), row("c", 4, 50),
		wmAt(0, 5),
		row("a", 7, 10), row("b", 3, 30),
		wmAt(0, 11), // a is final
		row("b", 2, 30), row("c", 6, 50), row("d", 1, 40),
		wmAt(0, 31), // b too
		row("c", 5, 50), row("d", 8, 40),
		wmAt(0, 60),
	}
	build := func(in instance) Operator {
		var keep func(types.Row) bool
		if in.Keep != nil {
			keep = func(k types.Row) bool { return in.Keep(0, k) }
		}
		return NewTopN(TopNConfig{ID: in.ID, Node: endNode(2, false), Out: in.Out, Keep: keep, TimeCol: -1,
			Store: in.Store, Budget: in.Budget})
	}
	want := []string{"a 9 @10 1", "a 7 @10 2", "b 3 @30 1", "b 2 @30 2", "c 6 @50 1", "c 5 @50 2", "d 8 @40 1", "d 1 @40 2"}
	runHarness(t, harnessCase{name: "row_number<=2 with ends", keys: [][]int{{0}}, build: build, events: events,
		want: want, reorder: true, spill: true})
}
