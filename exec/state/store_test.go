package state

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
