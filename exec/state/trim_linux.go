//go:build linux

package state

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/dgraph-io/badger/v4/table"
)

// residentMemory returns the process's resident memory and its
// file-backed part (VmRSS and RssFile in /proc/self/status) in bytes; ok
// is false when they cannot be read.
func residentMemory() (rss, file int64, ok bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, false
	}
	found := 0
	for line := range bytes.Lines(b) {
		for _, f := range []struct {
			prefix string
			to     *int64
		}{{"VmRSS:", &rss}, {"RssFile:", &file}} {
			if rest, ok := bytes.CutPrefix(line, []byte(f.prefix)); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
				if err != nil {
					return 0, 0, false
				}
				*f.to = kb << 10
				found++
			}
		}
	}
	return rss, file, found == 2
}

// madvPageout is Linux's MADV_PAGEOUT (5.4 and later).
const madvPageout = 21

// dropMappedTables madvises MADV_DONTNEED every mapping of the table
// files in dir whose id is in held, as /proc/self/maps lists them. The
// caller keeps every held table mapped until this returns.
//
// The other mappings of dir's files take MADV_PAGEOUT, which never loses
// data whatever the range holds by then: it unmaps file pages (a dirty
// page stays in the page cache until written back; the next access is a
// fault) and leaves anonymous memory where it is when there is no swap,
// or swaps it out. A kernel without it (EINVAL) keeps the pages. They are
//   - the memtables' write-ahead logs (.mem): Badger appends each write
//     to the log through its mapping, so up to two memtables' worth of
//     log pages are resident, and nothing reads them back while the
//     process runs (recovery reads the files); no reference keeps a
//     memtable mapped (Badger's API lists none);
//   - the tables no reference holds: those a flush or a compaction is
//     writing, which join a level only when the whole compaction is done.
//     Badger copies a table into its mapping before it syncs it, so every
//     page a compaction wrote stayed resident until it finished: on
//     Nexmark q19 under `run` one L0 compaction of 20 tables took the
//     file-backed RSS from 95 to 429 MiB in 15 s, and with it the peak
//     to 898 MiB; paged out, 105 MiB and 529 (docs/benchmarks.md). A
//     paged-out page leaves the page cache too, so a read of it is a
//     read from disk; the CPU was the same.
func dropMappedTables(dir string, held map[uint64]bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("trim mapped tables of %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real // the kernel lists the resolved path
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return fmt.Errorf("trim mapped tables of %s: %w", dir, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		start, end, path, ok := parseMapsLine(sc.Text())
		if !ok || filepath.Dir(path) != abs {
			continue
		}
		id, isTable := table.ParseFileID(path)
		if !isTable && !strings.HasSuffix(path, ".mem") {
			continue
		}
		if !isTable || !held[id] {
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvPageout) // best effort, as above
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED); e != 0 {
			return fmt.Errorf("trim mapped table %s: madvise: %w", path, e)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("trim mapped tables of %s: read /proc/self/maps: %w", dir, err)
	}
	return nil
}

// parseMapsLine reads the address range and path of one line of
// /proc/PID/maps ("start-end perms offset dev inode path"); ok is false
// for a line without a path.
func parseMapsLine(line string) (start, end uintptr, path string, ok bool) {
	fields := strings.Fields(line)
	if len(fields) != 6 { // no path, or a path with spaces or " (deleted)"
		return 0, 0, "", false
	}
	lo, hi, found := strings.Cut(fields[0], "-")
	if !found {
		return 0, 0, "", false
	}
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, "", false
	}
	return uintptr(s), uintptr(e), fields[5], true
}
