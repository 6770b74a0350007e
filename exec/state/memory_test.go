package state

import (
	"fmt"
	"testing"
)

func TestBadgerSizes(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		want  Sizes
	}{
		{320 << 20, Sizes{Memtables: 2, Compactors: 2, MemTable: 32 << 20, IndexCache: 10 << 20, BaseTable: 512 << 10}},
		{16 << 20, Sizes{Memtables: 2, Compactors: 2, MemTable: 8 << 20, IndexCache: 2 << 20, BaseTable: 256 << 10}},
		{64 << 30, Sizes{Memtables: 5, Compactors: 4, MemTable: 64 << 20, IndexCache: 128 << 20, BaseTable: 2 << 20}},
	} {
		if got := BadgerSizes(tc.limit); got != tc.want {
			t.Errorf("BadgerSizes(%d) = %+v, want %+v", tc.limit, got, tc.want)
		}
	}
}

// TestOpenSizesBadgerFromTheMemoryLimit: the options reach Badger, and
// the store works with them; without a limit Open keeps its defaults.
func TestOpenSizesBadgerFromTheMemoryLimit(t *testing.T) {
	s, err := Open(t.TempDir(), WithMemoryLimit(320<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := s.db.Opts()
	if o.MemTableSize != 32<<20 || o.BlockCacheSize != 0 || o.IndexCacheSize != 10<<20 || o.BaseTableSize != 512<<10 {
		t.Fatalf("memtable %d, block cache %d, index cache %d, base table %d", o.MemTableSize, o.BlockCacheSize, o.IndexCacheSize, o.BaseTableSize)
	}
	if err := s.Update(func(w *Writer) error { return w.Set([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Get([]byte("k")); err != nil || !ok || string(v) != "v" {
		t.Fatalf("Get: %q, %v, %v", v, ok, err)
	}
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if o := d.db.Opts(); o.MemTableSize != 64<<20 || o.IndexCacheSize != 0 || o.BaseTableSize != 2<<20 {
		t.Fatalf("without a limit: memtable %d, index cache %d, base table %d", o.MemTableSize, o.IndexCacheSize, o.BaseTableSize)
	}
}

// TestCheckpointUnderASmallMemtable: a checkpoint that fits the one-
// transaction limits of the default memtable but not Badger's cap for the
// smallest one (8 MiB: about 13,000 entries a transaction) is staged
// instead of failing with ErrTxnTooBig.
func TestCheckpointUnderASmallMemtable(t *testing.T) {
	s, err := Open(t.TempDir(), WithMemoryLimit(16<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Checkpoint(1, func(w *Writer) error {
		for i := range 20_000 {
			if err := w.Set(fmt.Appendf(nil, "k/%07d", i), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("checkpoint of 20,000 changes: %v", err)
	}
	if got := get(t, s, "k/0019999"); got != "v" {
		t.Fatalf("last key: %q", got)
	}
}
