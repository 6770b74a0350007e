package state

import (
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// Badger maps every table file (.sst) into memory and reads and writes its
// tables through those mappings, so every table page a read, a flush or a
// compaction touched counts in the process's RSS (as file-backed pages)
// until the table is deleted: at 1 GB of state, about 1 GB. The pages are
// clean page cache the kernel can take back, but RSS all the same. The
// store's trimmer drops them from the process's page tables (madvise
// MADV_DONTNEED on a shared file mapping: the pages stay in the page
// cache, the next access is a minor fault) whenever the process's
// file-backed RSS grew by trimStep since the last trim, checking every
// trimEvery. It pages out the memtables' write-ahead log mappings too,
// and the tables a flush or a compaction is still writing
// (dropMappedTables says how that stays safe without a reference). Linux
// only (trim_linux.go); elsewhere it does nothing.
//
// Under a memory limit it also trims once the process's whole RSS passed
// the limit by trimHeadroom and the file-backed part grew by
// trimStepTight: a trim is cheap, but the pages it drops that are read
// again come back through minor faults, and on the 1 GB restart of
// docs/benchmarks.md trimming at every 8 MiB of growth took a quarter of
// the throughput; trimming that tightly only near the limit keeps the
// peak down (the file-backed pages are what a peak adds to the heap's)
// without that cost while memory is plentiful.
const (
	trimEvery     = 50 * time.Millisecond
	trimStep      = 32 << 20
	trimStepTight = 8 << 20
	trimHeadroom  = 128 << 20
)

// trimmer is the store's background trimming: stop ends it, done is
// closed when it has.
type trimmer struct {
	stop chan struct{}
	done chan struct{}
}

// startTrimming starts the trimmer where the platform supports it, for a
// process whose memory limit is limit (0: none).
func (s *Store) startTrimming(limit int64) {
	_, last, ok := residentMemory()
	if !ok {
		return
	}
	ceiling := int64(0)
	if limit > 0 {
		ceiling = limit + trimHeadroom
	}
	s.trim = &trimmer{stop: make(chan struct{}), done: make(chan struct{})}
	go s.trimLoop(s.trim, last, ceiling)
}

// trimLoop trims whenever the file-backed RSS grew by trimStep since the
// last trim (or the start), or by trimStepTight while the whole RSS is at
// or over ceiling (0: none).
func (s *Store) trimLoop(t *trimmer, last, ceiling int64) {
	defer close(t.done)
	tick := time.NewTicker(trimEvery)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
		if rss, file, ok := residentMemory(); ok && trimDue(rss, file, last, ceiling) {
			_ = s.trimMapped() // best effort: a failed trim leaves pages mapped, nothing else
			_, last, _ = residentMemory()
		}
	}
}

// trimDue reports whether to trim at resident memory rss, of which file
// is file-backed, last the file-backed part after the last trim: when
// that grew by trimStep, or by trimStepTight while rss is at or over
// ceiling (0: none).
func trimDue(rss, file, last, ceiling int64) bool {
	return file >= last+trimStep || ceiling > 0 && rss >= ceiling && file >= last+trimStepTight
}

// stopTrimming stops the trimmer and waits for it, before the database
// closes: closing unmaps every table whatever its references.
func (s *Store) stopTrimming() {
	if s.trim == nil {
		return
	}
	close(s.trim.stop)
	<-s.trim.done
	s.trim = nil
}

// trimMapped drops the page-table entries of the mappings of the tables
// that are certain to stay mapped until it returns. A table is unmapped
// when its last reference goes (a compaction replaced it), and its
// address range may then be reused by other memory, which MADV_DONTNEED
// would zero; so it holds references first. An iterator without a prefix
// or SinceTs takes a reference to every table of every level under that
// level's lock (levelHandler.appendIterators: Table.NewIterator for level
// 0, NewConcatIterator for the others, both IncrRef) and keeps it until
// it is closed. A table listed at the same level both before and after
// the iterator was made was in that level all along, since tables are
// never moved between levels (compactions rewrite them under new ids,
// which are never reused), so the iterator holds it.
func (s *Store) trimMapped() error {
	before := s.db.Tables()
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(badger.IteratorOptions{})
	defer it.Close()
	held := heldTables(before, s.db.Tables())
	return dropMappedTables(s.dir, held)
}

// heldTables returns the ids of the tables listed at the same level in
// both before and after.
func heldTables(before, after []badger.TableInfo) map[uint64]bool {
	level := make(map[uint64]int, len(before))
	for _, t := range before {
		level[t.ID] = t.Level
	}
	held := make(map[uint64]bool, len(after))
	for _, t := range after {
		if l, ok := level[t.ID]; ok && l == t.Level {
			held[t.ID] = true
		}
	}
	return held
}
