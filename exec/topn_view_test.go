package exec

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// fanOut is an Operator passing each batch to every one of ops.
type fanOut []Operator

func (f fanOut) Process(port int, b *Batch) error {
	for _, op := range f {
		if err := op.Process(port, b); err != nil {
			return err
		}
	}
	return nil
}
func (fanOut) Watermark(int, int64) error { return nil }
func (fanOut) Tick(int64) error           { return nil }

// TestTopNReadsPartitionsFromItsView: a keyed Top-N whose view holds its
// ranked rows writes none of its own. Starting from a checkpoint of the
// build that wrote its partitions (whose keys the next checkpoint
// deletes), evicting every partition after each batch (a budget of one),
// checkpointing and restoring, it must emit what a Top-N holding every
// partition in memory emits, for rows that displace, tie with and fall
// below the stored ones, and under NULL and new keys.
func TestTopNReadsPartitionsFromItsView(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	node := &planner.TopN{Fn: "row_number", Limit: 2, Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}},
		RankCol: 2, RankName: "rn"}
	row := func(k string, v int64) types.Row {
		key := types.StringValue(k)
		if k == "" {
			key = types.NullValue
		}
		return types.Row{key, types.IntValue(v), types.IntValue(0)}
	}
	ref := &changeLog{}
	mem := NewTopN(TopNConfig{ID: "m/", Node: node, Out: Output{Op: ref}, TimeCol: -1})
	view := &TopNView{ID: "v/", Width: 3, Cols: []int{0, 1, 2}, Rank: types.IntValue(0), part: []int{0}}
	var op *TopN
	var log *changeLog
	var m *Materialize
	open := func(v *TopNView) {
		log = &changeLog{}
		m = NewMaterialize("v/", nil, nil).WithSpill(st, 1, 3, nil)
		if v != nil {
			v.readFrom(m)
		}
		op = NewTopN(TopNConfig{ID: "t/", Node: node, Out: Output{Op: fanOut{log, m}}, TimeCol: -1, Store: st, Budget: 1, View: v})
		for _, s := range []Stateful{m, op} {
			if err := s.Restore(st); err != nil {
				t.Fatal(err)
			}
		}
	}
	ownKeys := func() int {
		n := 0
		if err := st.Scan([]byte("t/"), func(_, _ []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	steps := [][]types.Row{
		{row("a", 5), row("a", 9), row("b", 1), row("", 4)},
		{row("a", 7), row("b", 3), row("", 4)},
		{row("a", 11), row("a", 1), row("c", 2)},
		{row("b", 3), row("", 6), row("a", 10)},
		{row("a", 2), row("c", 8), row("b", 9)},
	}
	spilled := func() int {
		n := 0
		if err := st.Scan([]byte(SpillPrefix), func(k, _ []byte) error {
			if bytes.HasPrefix(k, []byte(SpillPrefix+"t/")) {
				n++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	open(nil) // the earlier build: the Top-N keeps its own partitions
	for i, rows := range steps {
		// one row a batch: every partition leaves memory after each,
		// changed or not, and comes back for the next row of its key
		// from the view (or, in the earlier build, the spill area)
		for _, r := range rows {
			ref.got, log.got = nil, nil
			for _, p := range []Operator{mem, op} {
				if err := p.Process(0, &Batch{Rows: []types.Row{r}}); err != nil {
					t.Fatal(err)
				}
			}
			if fmt.Sprint(log.got) != fmt.Sprint(ref.got) {
				t.Fatalf("step %d, row %v: got %v, want %v", i, r, log.got, ref.got)
			}
		}
		if n := spilled(); i > 0 && n != 0 {
			t.Fatalf("step %d: %d changed partitions written to the spill area; the view holds them", i, n)
		}
		checkpointAll(t, st, uint64(i+1), m, op)
		switch i {
		case 0:
			if ownKeys() == 0 {
				t.Fatal("the earlier layout wrote no partition")
			}
			open(view) // the view now holds the partitions
		case 1:
			if n := ownKeys(); n != 0 {
				t.Fatalf("%d partition keys of the earlier layout left after a checkpoint", n)
			}
			open(view) // restored: every partition is read from the view
		}
	}
	if n := ownKeys(); n != 0 {
		t.Fatalf("the Top-N wrote %d partition keys of its own", n)
	}
	if s := op.stateSize(); s.SpillReads == 0 {
		t.Fatal("no partition was read back from the view")
	}
	if n := spilled(); n != 0 {
		t.Fatalf("%d spilled partitions left after the checkpoint", n)
	}
}
