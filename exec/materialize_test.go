package exec

import (
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

func checkpointAll(t *testing.T, st *state.Store, id uint64, ops ...Stateful) {
	t.Helper()
	err := st.Checkpoint(id, func(w *state.Writer) error {
		for _, op := range ops {
			if err := op.Checkpoint(w); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMaterializeDeleteRecreateDelete: a row a checkpoint wrote, retracted,
// inserted again and retracted again before the next checkpoint must be
// deleted from Badger by that checkpoint (the second retraction used to
// forget the pending delete and a restore resurrected the row).
func TestMaterializeDeleteRecreateDelete(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	row := types.Row{types.IntValue(1), types.StringValue("a")}
	m := NewMaterialize("v/", nil, nil)
	feed := func(d int8) {
		if err := m.Process(0, &Batch{Rows: []types.Row{row}, Diffs: []int8{d}}); err != nil {
			t.Fatal(err)
		}
	}
	feed(1)
	checkpointAll(t, st, 1, m)
	feed(-1)
	feed(1)
	feed(-1)
	checkpointAll(t, st, 2, m)
	fresh := NewMaterialize("v/", nil, nil)
	if err := fresh.Restore(st); err != nil {
		t.Fatal(err)
	}
	got, err := fresh.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("restored view holds %v, want nothing", got)
	}
}

// TestMaterializeReadsRowsStoredInTheValue: stores written before a stored
// view row's value was cut to its header also carry the row in the value;
// a restore, a lazy lookup and StoredRows must still read them, and a
// checkpoint writes the header alone.
func TestMaterializeReadsRowsStoredInTheValue(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	row := types.Row{types.IntValue(1), types.StringValue("a")}
	key := append([]byte("v/"), state.AppendRow(nil, row)...)
	for i, budget := range []int{0, 1} { // restored whole; read lazily
		err = st.Checkpoint(uint64(2*i+1), func(w *state.Writer) error {
			return w.Set(key, state.EncodeValue(types.Row{types.IntValue(2)}, row))
		})
		if err != nil {
			t.Fatal(err)
		}
		m := NewMaterialize("v/", []int{0}, nil).WithSpill(st, budget, 2, nil)
		if err := m.Restore(st); err != nil {
			t.Fatal(err)
		}
		got, err := m.Get(types.Row{types.IntValue(1)})
		if want := []types.Row{row, row}; err != nil || !sameRows(got, want) {
			t.Fatalf("budget %d: Get = %v, %v; want %v", budget, got, err, want)
		}
		if err := m.Process(0, &Batch{Rows: []types.Row{row}, Diffs: []int8{-1}}); err != nil {
			t.Fatal(err)
		}
		checkpointAll(t, st, uint64(2*i+2), m)
		val, ok, err := st.Get(key)
		if err != nil || !ok {
			t.Fatalf("budget %d: stored row missing: %v", budget, err)
		}
		rows, err := state.DecodeValue(val)
		if err != nil || len(rows) != 1 || rows[0][0].I != 1 {
			t.Fatalf("budget %d: stored value %v, %v; want the header row alone, count 1", budget, rows, err)
		}
	}
	got, err := StoredRows(st, "v/")
	if err != nil || !sameRows(got, []types.Row{row}) {
		t.Fatalf("StoredRows = %v, %v; want %v", got, err, []types.Row{row})
	}
}

func sameRows(a, b []types.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if !types.Equal(a[i][j], b[i][j]) {
				return false
			}
		}
	}
	return true
}

// TestMaterializeSpillAgreesWithMemory feeds the same random inserts and
// retractions, with checkpoints and (lazy) restores at random points, to a
// view store limited to two rows in memory and to an unlimited one; their
// contents, and their answers to Get for every key, must agree at every
// step. It runs with the view key leading the row (Get seeks in Badger)
// and not leading it (Get scans).
func TestMaterializeSpillAgreesWithMemory(t *testing.T) {
	for _, key := range [][]int{{0}, {1}} {
		for seed := int64(1); seed <= 5; seed++ {
			materializeSpillAgrees(t, key, seed)
		}
	}
}

func materializeSpillAgrees(t *testing.T, key []int, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	stA, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer stA.Close()
	stB, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer stB.Close()
	spill := NewMaterialize("v/", key, nil).WithSpill(stA, 2, 2, nil)
	mem := NewMaterialize("v/", key, nil)
	held := map[int64]int{}
	var id uint64
	for step := 0; step < 300; step++ {
		k := rng.Int63n(8)
		d := int8(1)
		if held[k] > 0 && rng.Intn(2) == 0 {
			d = -1
		}
		held[k] += int(d)
		b := func() *Batch {
			// Two rows per view key: k and k+8 share column 1 (k%4) under
			// key {1}; under key {0} each k is its own key.
			return &Batch{Rows: []types.Row{{types.IntValue(k), types.IntValue(k % 4)}}, Diffs: []int8{d}}
		}
		if err := spill.Process(0, b()); err != nil {
			t.Fatal(err)
		}
		if err := mem.Process(0, b()); err != nil {
			t.Fatal(err)
		}
		switch rng.Intn(20) {
		case 0:
			id++
			checkpointAll(t, stA, id, spill)
			checkpointAll(t, stB, id, mem)
		case 1: // restore from the last checkpoint, replaying nothing: compare after restore
			id++
			checkpointAll(t, stA, id, spill)
			checkpointAll(t, stB, id, mem)
			spill = NewMaterialize("v/", key, nil).WithSpill(stA, 2, 2, nil)
			if err := spill.Restore(stA); err != nil {
				t.Fatal(err)
			}
		}
		got, err := spill.Rows()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := mem.Rows()
		if types.Row(flatten(got)).String() != types.Row(flatten(want)).String() {
			t.Fatalf("key %v seed %d step %d: spilling store %v, in memory %v", key, seed, step, got, want)
		}
		for v := int64(0); v < 8; v++ {
			got, err := spill.Get(types.Row{types.IntValue(v)})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := mem.Get(types.Row{types.IntValue(v)})
			if types.Row(flatten(got)).String() != types.Row(flatten(want)).String() {
				t.Fatalf("key %v seed %d step %d: Get(%d) of the spilling store %v, in memory %v", key, seed, step, v, got, want)
			}
		}
	}
}

// sameViews fails t when the view a spilling operator fed (spill) holds
// other rows than the one its all-in-memory twin fed (mem); at says
// where (case, seed, step) and what names the operator.
func sameViews(t *testing.T, at, what string, spill, mem *Materialize) {
	t.Helper()
	got, err := spill.Rows()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := mem.Rows()
	if types.Row(flatten(got)).String() != types.Row(flatten(want)).String() {
		t.Fatalf("%s: spilling %s emitted %v, in memory %v", at, what, got, want)
	}
}

// resendWatermarks gives a restored two-input operator the watermarks
// its inputs had reached, as the engine does after a restart.
func resendWatermarks(t *testing.T, op Operator, wm [2]int64) {
	t.Helper()
	for port, w := range wm {
		if w != types.MinTime {
			if err := op.Watermark(port, w); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func flatten(rows []types.Row) []types.Value {
	var out []types.Value
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// BenchmarkMaterializeStoredRow measures what keeping a row in a view
// costs: batches of 1,000 new four-column rows (a window's aggregate
// rows) into a keyed view, checkpointed every 100 batches as a running
// pipeline would (100,000 changes: a staged checkpoint); ns/row and B/row are per stored row, checkpoint
// included.
func BenchmarkMaterializeStoredRow(b *testing.B) {
	st, err := state.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	m := NewMaterialize(ViewStoreID("w"), []int{0, 1}, func([]connectors.Change) {})
	const perBatch = 1000
	rows := make([]types.Row, perBatch)
	diffs := make([]int8, perBatch)
	for i := range diffs {
		diffs[i] = 1
	}
	ckpt := uint64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i := range rows {
			id := int64(n*perBatch + i)
			rows[i] = types.Row{types.IntValue(1000 + id%5000), types.TimestampValue(id / 5000 * 10_000_000),
				types.IntValue(id % 97), types.IntValue(id * 31 % 100_000)}
		}
		if err := m.Process(0, &Batch{Rows: rows, Diffs: diffs}); err != nil {
			b.Fatal(err)
		}
		if n%100 == 99 || n == b.N-1 {
			ckpt++
			if err := st.Checkpoint(ckpt, m.Checkpoint); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perBatch), "ns/row")
}
