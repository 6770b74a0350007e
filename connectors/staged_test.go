package connectors

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestStaged(t *testing.T) {
	r := func(k int64, v string) types.Row { return types.Row{types.IntValue(k), types.StringValue(v)} }
	var s Staged
	b := s.Stage(1, []Change{{Upsert, r(1, "a")}, {Upsert, r(2, "b")}})
	if got, err := DecodeChanges(b); err != nil || len(got) != 2 {
		t.Fatalf("staged bytes decode to %v, %v", got, err)
	}
	s.Stage(2, []Change{{Upsert, r(1, "c")}})
	s.Stage(3, []Change{{Delete, r(2, "b")}})
	got, n := s.UpTo(2, []int{0})
	if n != 2 || len(got) != 2 || got[0].Row.String() != r(1, "c").String() || got[1].Row.String() != r(2, "b").String() {
		t.Fatalf("UpTo(2) = %v, %d: want checkpoints 1 and 2 collapsed per key", got, n)
	}
	var ids []uint64
	fail := errors.New("down")
	n, err := s.Each(3, func(id uint64, _ []Change) error {
		if id == 3 {
			return fail
		}
		ids = append(ids, id)
		return nil
	})
	if n != 2 || !errors.Is(err, fail) || len(ids) != 2 {
		t.Fatalf("Each stopped after %d (%v) with %v", n, ids, err)
	}
	s.Drop(2)
	if got, n := s.UpTo(10, []int{0}); n != 1 || len(got) != 1 || got[0].Op != Delete {
		t.Fatalf("after Drop(2): %v, %d", got, n)
	}
}
