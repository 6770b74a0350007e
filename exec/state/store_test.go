package state

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

func TestScanFromAndLastKey(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	if k, err := s.LastKey([]byte("log/")); err != nil || k != nil {
		t.Fatalf("empty prefix: %q, %v", k, err)
	}
	err := s.Update(func(w *Writer) error {
		for i := 0; i < 5; i++ {
			if err := w.Set([]byte(fmt.Sprintf("log/%d", i)), []byte{byte(i)}); err != nil {
				return err
			}
		}
		return w.Set([]byte("z/other"), nil) // sorts after the prefix
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := s.ScanFrom([]byte("log/"), []byte("log/3"), func(k, _ []byte) error {
		got = append(got, string(k))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[log/3 log/4]" {
		t.Fatalf("ScanFrom log/3: %v", got)
	}
	if k, err := s.LastKey([]byte("log/")); err != nil || string(k) != "log/4" {
		t.Fatalf("LastKey: %q, %v, want log/4", k, err)
	}
}

// TestDiskUsageWhileFilesGo: a file removed while DiskUsage walks the
// directory (a compaction deleting a table of an open store) is gone, not
// an error: the restart benchmark's size check failed on one.
func TestDiskUsageWhileFilesGo(t *testing.T) {
	dir := t.TempDir()
	for round := 0; round < 20; round++ {
		for i := 0; i < 200; i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.sst", i)), make([]byte, 4096), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; i < 200; i++ {
				_ = os.Remove(filepath.Join(dir, fmt.Sprintf("%03d.sst", i)))
			}
		}()
		for {
			if _, err := DiskUsage(dir); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			select {
			case <-done:
			default:
				continue
			}
			break
		}
	}
	if n, err := DiskUsage(dir); err != nil || n > 64<<10 {
		t.Fatalf("emptied directory: %d bytes, %v", n, err)
	}
}

// TestOpenReadsTablesWrittenCompressed: a state written by a build that
// compressed its tables (Badger's default, Snappy) reads back through
// Open and OpenReadOnly, which write tables uncompressed and keep no
// block cache, also once newer values of its keys sit in an uncompressed
// table beside it.
func TestOpenReadsTablesWrittenCompressed(t *testing.T) {
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithCompression(options.Snappy))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	wb := db.NewWriteBatch()
	for i := range 20_000 {
		k, v := fmt.Sprintf("old/%06d", i), fmt.Sprintf("value %d %s", i, strings.Repeat("x", i%50))
		want[k] = []byte(v)
		if err := wb.Set([]byte(k), want[k]); err != nil {
			t.Fatal(err)
		}
	}
	if err := wb.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil { // flushes the memtable into a compressed L0 table
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkScan(t, ro, "old/", want)
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkScan(t, s, "old/", want)
	err = s.Update(func(w *Writer) error { // half the keys again, into an uncompressed table
		for i := 0; i < 20_000; i += 2 {
			k := fmt.Sprintf("old/%06d", i)
			want[k] = []byte("new " + k)
			if err := w.Set([]byte(k), want[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.db.Tables()); n < 2 {
		t.Fatalf("%d tables after the second close, want the compressed one and a new one", n)
	}
	checkScan(t, s, "old/", want)
}

// checkScan scans the store's keys under prefix and compares them with
// want: the same keys, each with its value.
func checkScan(t *testing.T, s *Store, prefix string, want map[string][]byte) {
	t.Helper()
	n := 0
	err := s.Scan([]byte(prefix), func(key, val []byte) error {
		if w, ok := want[string(key)]; !ok || !bytes.Equal(val, w) {
			return fmt.Errorf("key %q: value differs from the one written", key)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Fatalf("scan of %s read %d keys, want %d", prefix, n, len(want))
	}
}
