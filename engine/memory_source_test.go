package engine

import (
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// TestMemoryReaderRestoresAnOlderCheckpoint: a checkpoint written before
// memory sources had offsets kept one log position in the reader's first
// value and no offsets; a restart reads on after that position, so each
// INSERT reaches the view once.
func TestMemoryReaderRestoresAnOlderCheckpoint(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ex := mustExec(t, e)
	ex("CREATE SOURCE s (k BIGINT, v BIGINT) WITH (partitions = '2')")
	ex("CREATE MATERIALIZED VIEW c AS SELECT k, v FROM s")
	ex("INSERT INTO s PARTITION (p0) VALUES (1, 1)")
	ex("INSERT INTO s PARTITION (p1) VALUES (1, 2)")
	ex("FLUSH")
	if err := e.Close(); err != nil { // its last checkpoint is the one rewritten below
		t.Fatal(err)
	}
	st, err := state.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("v/c/reader/s")
	b, ok, err := st.Get(key)
	if err != nil || !ok {
		t.Fatalf("reader position: %v %v", ok, err)
	}
	rows, err := state.DecodeValue(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(rows[1]); got != 2 {
		t.Fatalf("the memory reader checkpointed %d offsets, want one per partition", got)
	}
	rows[0][0], rows[1] = types.IntValue(2), types.Row{} // both INSERTs read
	if err := st.Update(func(w *state.Writer) error { return w.Set(key, state.EncodeValue(rows...)) }); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ex = mustExec(t, e)
	ex("INSERT INTO s PARTITION (p1) VALUES (1, 3)")
	ex("FLUSH")
	if got := ex("SELECT v FROM c ORDER BY v").Rows; len(got) != 3 || got[0][0].I != 1 || got[1][0].I != 2 || got[2][0].I != 3 {
		t.Fatalf("view rows after the restart: %v, want v = 1, 2, 3 once each", got)
	}
}
