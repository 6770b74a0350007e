//go:build linux

package state

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTrimMappedDropsTablePagesAndKeepsTheData reads every key of a store
// whose data sits in table files, so their pages are mapped into the
// process, trims them, and checks that the tables' resident pages went
// down and that every key still reads back its value.
func TestTrimMappedDropsTablePagesAndKeepsTheData(t *testing.T) {
	dir := t.TempDir()
	want := writeTrimData(t, dir, 100_000)

	s, err := Open(dir) // the close above flushed the memtable into tables
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.stopTrimming() // the test trims by hand
	if len(s.db.Tables()) == 0 {
		t.Fatal("no tables after reopening")
	}
	checkTrimData(t, s, want)
	before := mappedTablesRSS(t, dir)
	if before == 0 {
		t.Fatal("reading every key left no table page resident")
	}
	if err := s.trimMapped(); err != nil {
		t.Fatal(err)
	}
	after := mappedTablesRSS(t, dir)
	t.Logf("resident table pages: %d kB before trimming, %d kB after", before, after)
	if after >= before {
		t.Fatal("trimming left the table pages resident")
	}
	checkTrimData(t, s, want)
	for _, k := range []string{"trim/00000000", "trim/00054321", "trim/00099999"} {
		if got, ok, err := s.Get([]byte(k)); err != nil || !ok || !bytes.Equal(got, want[k]) {
			t.Fatalf("Get(%q) after trimming = %q, %v, %v", k, got, ok, err)
		}
	}
}

// TestDropMappedTablesPagesOutTablesNotHeld: a table no reference is
// known to hold (one a compaction is still writing) is paged out, not
// dropped, and its data still reads back.
func TestDropMappedTablesPagesOutTablesNotHeld(t *testing.T) {
	dir := t.TempDir()
	want := writeTrimData(t, dir, 100_000)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.stopTrimming() // the test trims by hand
	checkTrimData(t, s, want)
	before := mappedTablesRSS(t, dir)
	if before == 0 {
		t.Fatal("reading every key left no table page resident")
	}
	if err := dropMappedTables(s.dir, nil); err != nil {
		t.Fatal(err)
	}
	after := mappedTablesRSS(t, dir)
	t.Logf("resident table pages: %d kB before paging out, %d kB after", before, after)
	if after > before/4 {
		t.Fatal("paging out left the table pages resident")
	}
	checkTrimData(t, s, want)
}

// TestTrimMappedPagesOutTheMemtableLog writes to an open store, so the
// memtable's write-ahead log pages are mapped and resident, trims, and
// checks that they left the process's RSS and that every key still reads
// back, then after more writes through the log and a reopen.
func TestTrimMappedPagesOutTheMemtableLog(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.stopTrimming() // the test trims by hand
	want := putTrimData(t, s, 20_000)
	before := mappedRSS(t, dir, ".mem")
	if before < 1024 {
		t.Fatalf("writing 4 MB left %d kB of the memtable log resident", before)
	}
	if err := s.trimMapped(); err != nil {
		t.Fatal(err)
	}
	after := mappedRSS(t, dir, ".mem")
	t.Logf("resident memtable log pages: %d kB before trimming, %d kB after", before, after)
	if after > before/4 {
		t.Fatal("trimming left the memtable log resident")
	}
	checkTrimData(t, s, want)
	if err := s.Update(func(w *Writer) error { return w.Set([]byte("trim/99999999"), []byte("after")) }); err != nil {
		t.Fatal(err)
	}
	want["trim/99999999"] = []byte("after")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	checkTrimData(t, s2, want)
}

// writeTrimData writes n keys with 200-byte random values into a store in
// dir and closes it; it returns what it wrote.
func writeTrimData(t *testing.T, dir string, n int) map[string][]byte {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := putTrimData(t, s, n)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

// putTrimData writes n keys with 200-byte random values into s, 5,000
// to a transaction, and returns what it wrote.
func putTrimData(t *testing.T, s *Store, n int) map[string][]byte {
	t.Helper()
	want := make(map[string][]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for lo := 0; lo < n; lo += 5000 {
		err := s.Update(func(w *Writer) error {
			for i := lo; i < min(lo+5000, n); i++ {
				k, v := fmt.Sprintf("trim/%08d", i), make([]byte, 200)
				for j := range v {
					v[j] = byte(rng.Uint32())
				}
				want[k] = v
				if err := w.Set([]byte(k), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// checkTrimData scans the store's trim/ keys and compares them with want.
func checkTrimData(t *testing.T, s *Store, want map[string][]byte) {
	t.Helper()
	checkScan(t, s, "trim/", want)
}

// mappedTablesRSS sums the Rss of the process's mappings of dir's table
// files, in kB, from /proc/self/smaps.
func mappedTablesRSS(t *testing.T, dir string) int64 { return mappedRSS(t, dir, ".sst") }

// mappedRSS sums the Rss of the process's mappings of dir's files whose
// names end in ext, in kB, from /proc/self/smaps.
func mappedRSS(t *testing.T, dir, ext string) int64 {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sum int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if first, _, _ := strings.Cut(line, " "); !strings.HasSuffix(first, ":") { // a mapping's header
			_, _, path, ok := parseMapsLine(line)
			in = ok && filepath.Dir(path) == real && strings.HasSuffix(path, ext)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			sum += kb
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestResidentMemoryReadsStatus: the trimmer's reading of
// /proc/self/status gives a resident size and a file-backed part of it
// (the test binary's own text at least).
func TestResidentMemoryReadsStatus(t *testing.T) {
	rss, file, ok := residentMemory()
	if !ok || file <= 0 || rss < file {
		t.Fatalf("residentMemory() = %d, %d, %v; want 0 < file <= rss", rss, file, ok)
	}
}
