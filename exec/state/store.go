// Package state keeps operator state and checkpoints in Badger. Operators
// hold their working state in memory (the write-back cache) and hand the
// keys they changed since the last checkpoint to a Checkpoint, which writes
// them, every source position and the catalog all or nothing.
//
// A checkpoint can be far larger than one Badger transaction, so it is
// written in three steps: (1) the changes are staged, packed in order into
// chunks of about stageChunkBytes, to a file of the checkpoint's own under
// staged/ in the state directory, which is synced (staged.go); (2) one
// small transaction records id as committed, and Checkpoint returns; (3)
// in the background, the staged changes are applied to their keys, sorted
// by key in batches below Badger's transactions (apply_sorted.go) that
// record how far the apply got every 65,536 changes, synced once at the end
// (durable.go), and the file removed,
// while every write to the store waits for that apply and reads merge the
// staged changes over Badger (applier.go, overlay.go). Each change thus
// costs one Badger entry and nothing is left in Badger's tables to
// collect, and processing pauses only for staging. A crash before (2)
// leaves the previous checkpoint in force (the staging file is removed on
// open); a crash after (2) is finished after open by applying the file
// again in the background after the recorded progress (applying is
// idempotent).
package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Store is the Badger database under a state directory.
type Store struct {
	db  *badger.DB
	dir string
	bg  applier // the committed checkpoint being applied in the background
	// logs is what sync knows of Badger's memtable logs (durable.go).
	logs memLogs
	// wholeApply (benchmarks) makes recovery apply a committed
	// checkpoint from its first change, as before progress was recorded.
	wholeApply bool
	// trim drops the mapped tables' pages from RSS (trim.go); nil when
	// it does not run.
	trim *trimmer
	// forReading: opened by ForReading, so recovery only reads a
	// committed checkpoint left staged.
	forReading bool
}

// level0Tables is how many flushed memtables Badger lets pile up at
// level 0 before it compacts them into the levels below (its default is
// 5, stalling writes at 15; we stall at three times ours, as Badger does).
// Each L0→L1 compaction rewrites the overlapping base-level tables, so
// compacting every five flushes rewrote the same base level four times as
// often: on the keyed Top-N queries, whose updating views rewrite state
// all over the key space at every checkpoint, that write amplification
// (table builds, their msync and the memmoves into fresh table files) was
// the largest cost left. With 20, q18 at 10 M events went from 77–80 k to
// 107–111 k events/s per core and q19 from 74–75 k to 91–94 k (medians
// of 3, docs/benchmarks.md). It costs no buffer memory: L0 tables are files
// like any other; what grows is the number of tables a read consults,
// which their bloom filters keep cheap.
const level0Tables = 20

// Tables are written uncompressed (Badger compresses with Snappy by
// default), as RisingWave leaves its upper levels: our state is a few
// levels deep, so every level is an upper one. A table builder holds each
// block both raw and compressed (it reserves the compressed copy's
// worst-case size), and a table closes at its compressed size, so each
// build held about four times its table's bytes; and every block a read
// or a compaction touched was decompressed into a fresh buffer, hence the
// block cache. Uncompressed, a block is read in place from the table's
// mapping, so there is no block cache (Badger needs one only for
// compressed or encrypted tables). On Nexmark q19 under `run` at the
// default limit: peak RSS 517–529 MiB, not 529–583, on 114–120 CPU s,
// not 135; on the 1 GB restart 516–523 MiB, not 517–581, with 60% more
// rows in the 75 s; the state on disk is 1.46 times as large
// (docs/benchmarks.md).
// Tables a build before this compressed stay readable (each table's
// compression is in the manifest) until compactions rewrite them.
const tableCompression = options.None

// badgerOptions are the options Open and OpenReadOnly share: no logging,
// one version of a key, the memtable size without a memory limit, and
// tables as tableCompression says, without a block cache.
func badgerOptions(dir string) badger.Options {
	return badger.DefaultOptions(dir).
		WithLogger(nil).
		WithMemTableSize(64 << 20). // checkpoints over one transaction are staged (checkpoint.go)
		WithNumVersionsToKeep(1).
		WithCompression(tableCompression).
		WithBlockCacheSize(0)
}

// Open opens (or creates) the store in dir.
func Open(dir string, options ...Option) (*Store, error) {
	var cfg openConfig
	for _, o := range options {
		o(&cfg)
	}
	opts := badgerOptions(dir).
		WithSyncWrites(false). // durable writes call Store.sync after their commit (durable.go)
		WithCompactL0OnClose(false).
		WithNumLevelZeroTables(level0Tables).
		WithNumLevelZeroTablesStall(3 * level0Tables).
		WithDetectConflicts(false) // one writer at a time: no transaction conflicts to find
	if cfg.memoryLimit > 0 {
		sz := BadgerSizes(cfg.memoryLimit)
		opts = opts.WithMemTableSize(sz.MemTable).WithIndexCacheSize(sz.IndexCache).
			WithNumMemtables(sz.Memtables).WithNumCompactors(sz.Compactors).WithBaseTableSize(sz.BaseTable)
	}
	if cfg.forReading {
		opts = opts.WithNumCompactors(0)
	}
	prefetchTableIndexes(dir)
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", dir, err)
	}
	s := &Store{db: db, dir: dir, wholeApply: cfg.wholeApply, forReading: cfg.forReading}
	for _, p := range cfg.clear {
		if err := s.Clear(p); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	if err := s.recoverPending(); err != nil {
		_ = db.Close()
		return nil, err
	}
	s.startTrimming(cfg.memoryLimit)
	return s, nil
}

// ErrNotClean is returned by OpenReadOnly when the store was not closed
// cleanly (the process writing it was killed): Badger must replay and
// truncate its write-ahead log, or a committed checkpoint's staged changes
// must be applied, and both are writes. Repair does them.
var ErrNotClean = errors.New("the state was not closed cleanly")

// OpenReadOnly opens the store in dir without writing to it: Badger takes
// a shared lock (so it fails while a process has the store open for
// writing) and opens every file read-only. Writes through the store fail.
// It returns an error wrapping ErrNotClean when the store needs recovery
// first (see Repair).
func OpenReadOnly(dir string) (*Store, error) {
	// Badger deletes a memtable's write-ahead log (a .mem file) when it
	// closes cleanly; one left means a crash, found here without opening
	// every table only to fail at the log.
	if logs, _ := filepath.Glob(filepath.Join(dir, "*.mem")); len(logs) > 0 {
		return nil, fmt.Errorf("open state %s read-only: %w (a write-ahead log is left)", dir, ErrNotClean)
	}
	opts := badgerOptions(dir).WithReadOnly(true)
	prefetchTableIndexes(dir)
	db, err := badger.Open(opts)
	// Badger wraps the error without %w on the way out of the memtables.
	if err != nil && (errors.Is(err, badger.ErrTruncateNeeded) || strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error())) {
		return nil, fmt.Errorf("open state %s read-only: %w (%w)", dir, ErrNotClean, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open state %s read-only: %w", dir, err)
	}
	s := &Store{db: db, dir: dir}
	if staged, err := s.committedStaged(); err != nil || staged {
		_ = db.Close()
		if err == nil {
			err = fmt.Errorf("open state %s read-only: %w: a committed checkpoint is not applied yet", dir, ErrNotClean)
		}
		return nil, err
	}
	return s, nil
}

// Repair does what opening the store for writing does after a crash
// (Badger replays its write-ahead log; a committed checkpoint's staged
// changes are applied, uncommitted ones dropped) and closes it cleanly,
// so OpenReadOnly succeeds afterwards. It changes no checkpointed value.
func Repair(dir string) error {
	s, err := Open(dir)
	if err != nil {
		return err
	}
	return s.Close()
}

// DiskUsage returns the bytes the store's files occupy on disk.
func (s *Store) DiskUsage() (int64, error) { return DiskUsage(s.dir) }

// DiskUsage sums the allocated size of the files under dir, as du does
// (Badger preallocates sparse files whose apparent size overstates them).
// A file removed while it walks (the store is open: compactions delete
// tables) counts as gone, not as an error.
func DiskUsage(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // removed while the walk ran (a compaction's old table)
			}
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // as above
		}
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		} else if !d.IsDir() {
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("disk usage of %s: %w", dir, err)
	}
	return n, nil
}

// Close closes the database cleanly.
func (s *Store) Close() error {
	s.stopTrimming()
	err := s.settle()
	s.endIdleRun()
	return errors.Join(err, s.db.Close())
}

// Release closes the database without finishing the apply of a committed
// checkpoint that runs in the background (the apply stops at its next
// chunk): the checkpoint stays staged, and the next Open applies it
// again, which gives the same result. For a reader that opened a crashed
// store only to read it (`streamsql query`), so its answer does not wait
// for an apply it does not need.
func (s *Store) Release() error {
	s.bg.stop.Store(true)
	s.stopTrimming()
	err := s.settle()
	s.endIdleRun()
	return errors.Join(err, s.db.Close())
}

// Abandon releases the database without any further writes, as close to a
// crash as a live process can get: unsynced writes may be lost, committed
// (synced) transactions are kept.
func (s *Store) Abandon() error {
	// Badger has no "drop without flush"; Close flushes memtables that are
	// already durable in the value log, so the on-disk result is the same as
	// a crash after the last synced commit. A background apply is let
	// finish: applied or not, the committed checkpoint is the same.
	s.stopTrimming()
	_ = s.settle()
	return s.db.Close()
}

// Get reads one key; ok is false when it is absent.
func (s *Store) Get(key []byte) (val []byte, ok bool, err error) {
	err = s.read(func(txn *badger.Txn, ov *overlay) error {
		var found bool
		if val, ok, found = ov.get(key); found {
			return nil
		}
		it, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		val, err = it.ValueCopy(nil)
		ok = err == nil
		return err
	})
	return val, ok, err
}

// Scan calls fn for every key with prefix, in key order.
func (s *Store) Scan(prefix []byte, fn func(key, val []byte) error) error {
	return s.ScanFrom(prefix, prefix, fn)
}

// ScanFrom calls fn for every key with prefix at or after from, in key
// order.
func (s *Store) ScanFrom(prefix, from []byte, fn func(key, val []byte) error) error {
	return s.read(func(txn *badger.Txn, ov *overlay) error {
		return scanMerged(txn, ov, prefix, from, nil, fn)
	})
}

// ScanKeys calls fn for every key with prefix at or after from, in key
// order (a running apply's changes merged in), without reading the
// values. The key is valid during the call only.
func (s *Store) ScanKeys(prefix, from []byte, fn func(key []byte) error) error {
	return s.read(func(txn *badger.Txn, ov *overlay) error {
		keyOnly := func(key []byte) (bool, error) { return false, fn(key) }
		return scanMerged(txn, ov, prefix, from, keyOnly, nil)
	})
}

// ScanOwned calls fn for every key with prefix that own accepts, in key
// order. own sees the key before its value is read, so a parallel
// instance restoring its share of an operator's state neither copies nor
// decodes the values other instances own.
func (s *Store) ScanOwned(prefix []byte, own func(key []byte) (bool, error), fn func(key, val []byte) error) error {
	return s.read(func(txn *badger.Txn, ov *overlay) error {
		return scanMerged(txn, ov, prefix, prefix, own, fn)
	})
}

// LastKey returns the greatest key with prefix, or nil when there is none.
func (s *Store) LastKey(prefix []byte) ([]byte, error) {
	var last []byte
	err := s.read(func(txn *badger.Txn, ov *overlay) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix, opts.Reverse, opts.PrefetchValues = prefix, true, false
		it := txn.NewIterator(opts)
		defer it.Close()
		// In reverse, Seek finds the greatest key <= its argument.
		it.Seek(append(append([]byte(nil), prefix...), 0xff))
		for ; it.ValidForPrefix(prefix); it.Next() {
			if !ov.deleted(it.Item().Key()) {
				last = it.Item().KeyCopy(nil)
				break
			}
		}
		if o := ov.last(prefix); o != nil && bytes.Compare(o, last) > 0 {
			last = o
		}
		return nil
	})
	return last, err
}

// Update runs fn in one read-write transaction and commits it durably
// (synced before it returns).
func (s *Store) Update(fn func(w *Writer) error) error {
	if err := s.settle(); err != nil {
		return err
	}
	err := s.db.Update(func(txn *badger.Txn) error {
		return fn(&Writer{txn: txn})
	})
	if err != nil {
		return err
	}
	return s.sync()
}

// Writer writes into a transaction, a staged checkpoint or a plain write
// batch.
type Writer struct {
	txn   *badger.Txn
	wb    *badger.WriteBatch
	n     int
	bytes int64 // keys and values written (Bytes)
	// A checkpoint buffers its first changes (buffered) and writes them in
	// one transaction when they stay small; past the limit it starts
	// staging (creates its staging file) and flushes the buffer there.
	buffering  bool
	buf        []change
	bufBytes   int
	maxBytes   int // the buffer's limits: txnLimits
	maxChanges int
	// A staging checkpoint packs its changes into chunks written to its
	// staging file (see stage).
	staged *stagedFile
	chunk  []byte
	chunks []stagedChunk // the chunks written, applied after the commit
}

type change struct {
	key, val []byte
	del      bool
}

// Limits of a checkpoint written as one transaction, well under Badger's
// per-transaction limits with its 64 MiB memtable; txnLimits lowers them
// for a smaller one.
const (
	txnMaxBytes   = 8 << 20
	txnMaxChanges = 50_000
)

// buffer records a change of a buffering checkpoint writer, switching to
// staging when the buffer outgrows one transaction.
func (w *Writer) buffer(key, val []byte, del bool) error {
	kv := make([]byte, len(key)+len(val)) // one copy of both
	copy(kv, key)
	copy(kv[len(key):], val)
	w.buf = append(w.buf, change{key: kv[:len(key):len(key)], val: kv[len(key):], del: del})
	w.bufBytes += len(key) + len(val) + 16
	if w.bufBytes < w.maxBytes && len(w.buf) < w.maxChanges {
		return nil
	}
	w.buffering = false
	if err := w.staged.create(); err != nil {
		return err
	}
	for _, c := range w.buf {
		if err := w.stage(c.key, c.val, c.del); err != nil {
			return err
		}
	}
	w.buf, w.bufBytes = nil, 0
	return nil
}

// Set writes key = val. It copies both: callers may reuse them.
func (w *Writer) Set(key, val []byte) error {
	w.n++
	w.bytes += int64(len(key) + len(val))
	var err error
	switch {
	case w.buffering:
		err = w.buffer(key, val, false)
	case w.txn != nil:
		err = w.txn.Set(append([]byte(nil), key...), append([]byte(nil), val...))
	case w.staged != nil:
		err = w.stage(key, val, false)
	default:
		err = w.wb.Set(append([]byte(nil), key...), append([]byte(nil), val...))
	}
	if err != nil {
		return fmt.Errorf("state set: %w", err)
	}
	return nil
}

// Delete removes key. It copies key: callers may reuse it.
func (w *Writer) Delete(key []byte) error {
	w.n++
	w.bytes += int64(len(key))
	var err error
	switch {
	case w.buffering:
		err = w.buffer(key, nil, true)
	case w.txn != nil:
		err = w.txn.Delete(append([]byte(nil), key...))
	case w.staged != nil:
		err = w.stage(key, nil, true)
	default:
		err = w.wb.Delete(append([]byte(nil), key...))
	}
	if err != nil {
		return fmt.Errorf("state delete: %w", err)
	}
	return nil
}

// DeletePrefix removes every key with prefix (transactions only).
func (w *Writer) DeletePrefix(prefix []byte) error {
	if w.txn == nil {
		return fmt.Errorf("state: DeletePrefix needs a transaction")
	}
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	opts.PrefetchValues = false
	it := w.txn.NewIterator(opts)
	var keys [][]byte
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		keys = append(keys, it.Item().KeyCopy(nil))
	}
	it.Close()
	for _, k := range keys {
		if err := w.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Writes returns how many writes the transaction holds.
func (w *Writer) Writes() int { return w.n }

// Bytes returns the size of the keys and values written (a delete counts
// its key).
func (w *Writer) Bytes() int64 { return w.bytes }
