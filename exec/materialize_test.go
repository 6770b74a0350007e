package exec

import (
	"testing"

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
	if got := fresh.Rows(); len(got) != 0 {
		t.Fatalf("restored view holds %v, want nothing", got)
	}
}
