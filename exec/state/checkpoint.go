package state

import (
	"encoding/binary"
	"fmt"
	"os"

	badger "github.com/dgraph-io/badger/v4"
)

const (
	opSet    byte = 'S'
	opDelete byte = 'D'
	opChunk  byte = 'C' // the value is a chunk of staged changes (stores staged in Badger)
)

// stageChunkBytes is the size past which a staging writer writes its
// chunk to the staging file (and the unit the background apply and
// recovery read back).
const stageChunkBytes = 256 << 10

var (
	prefixPending = []byte("pending/")
	keyCommitted  = []byte("meta/committed-checkpoint")
)

func pendingPrefix(id uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), prefixPending...), id)
}

// stage appends a change to the writer's chunk — op, then the key and for
// a set the value, each with a uvarint length — and writes the chunk once
// it is full.
func (w *Writer) stage(key, val []byte, del bool) error {
	if w.chunk == nil {
		w.chunk = make([]byte, 0, stageChunkBytes+len(key)+len(val)+32)
	}
	op := opSet
	if del {
		op = opDelete
	}
	w.chunk = append(w.chunk, op)
	w.chunk = binary.AppendUvarint(w.chunk, uint64(len(key)))
	w.chunk = append(w.chunk, key...)
	if !del {
		w.chunk = binary.AppendUvarint(w.chunk, uint64(len(val)))
		w.chunk = append(w.chunk, val...)
	}
	if len(w.chunk) >= stageChunkBytes {
		return w.flushChunk()
	}
	return nil
}

// flushChunk writes the current chunk to the staging file and keeps it
// for the apply (the next change starts a new one).
func (w *Writer) flushChunk() error {
	if len(w.chunk) == 0 {
		return nil
	}
	c := w.chunk
	w.chunk = nil
	w.chunks = append(w.chunks, stagedChunk{changes: c})
	return w.staged.write(c)
}

// Checkpoint writes checkpoint id. A small checkpoint (under txnMaxBytes
// and txnMaxChanges) is written with the commit marker in one
// transaction. A larger one is staged in chunks to a file of its own
// (staged.go), synced, and id is committed in one small transaction;
// Checkpoint returns then, and the staged changes are applied to their
// keys in the background while the caller goes on (see applier.go: every
// other use of the store waits for that apply first), after which the file
// is removed. If the process dies after the commit, Open finishes
// applying from the file.
func (s *Store) Checkpoint(id uint64, fn func(w *Writer) error) error {
	if err := s.settle(); err != nil {
		return err
	}
	w := &Writer{buffering: true, staged: &stagedFile{path: stagedPath(s.dir, id)}}
	w.maxBytes, w.maxChanges = txnLimits(s.db)
	if err := fn(w); err != nil {
		w.staged.discard()
		return err
	}
	if w.buffering {
		err := s.db.Update(func(txn *badger.Txn) error {
			for _, c := range w.buf {
				var err error
				if c.del {
					err = txn.Delete(c.key)
				} else {
					err = txn.Set(c.key, c.val)
				}
				if err != nil {
					return fmt.Errorf("checkpoint %d: %w", id, err)
				}
			}
			return txn.Set(keyCommitted, binary.BigEndian.AppendUint64(nil, id))
		})
		if err != nil {
			return err
		}
		return s.sync()
	}
	err := w.flushChunk()
	if err == nil {
		err = w.staged.finish()
	}
	if err != nil {
		w.staged.discard()
		return fmt.Errorf("stage checkpoint %d: %w", id, err)
	}
	err = s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(keyCommitted, binary.BigEndian.AppendUint64(nil, id))
	})
	if err == nil {
		err = s.sync()
	}
	if err != nil {
		// The file stays: if the marker is durable after all, opening
		// the store applies it; if not, opening removes it.
		return fmt.Errorf("commit checkpoint %d: %w", id, err)
	}
	s.applyInBackground(id, w.staged.path, w.chunks, w.n, nil)
	return nil
}

// stagedChunk is one chunk of a staged checkpoint: its changes.
type stagedChunk struct {
	changes []byte
}

// applyChunks writes the changes of committed checkpoint id's chunks
// (run's) to their keys, durably when it returns, sorted by key
// (apply_sorted.go), starting after key after (nil: from the first; a
// restart resumes after the progress an interrupted apply recorded).
// Applying twice gives the same result.
func (s *Store) applyChunks(id uint64, run *applyRun, after []byte) error {
	changes, err := run.changes()
	if err != nil {
		return err
	}
	rest := changesAfter(changes, after)
	s.bg.resumed.Store(int64(len(changes) - len(rest)))
	return s.writeSorted(id, rest, after)
}

// apply writes the staged changes under prefix (a checkpoint staged in
// Badger by a store written before staging files) to their keys; the
// staging keys stay for the caller to drop. Applying twice gives the same
// result.
func (s *Store) apply(prefix []byte) error {
	wb := s.db.NewWriteBatch()
	err := s.Scan(prefix, func(k, v []byte) error {
		if len(v) > 0 && v[0] == opChunk {
			if err := applyChunk(wb, v[1:]); err != nil {
				return fmt.Errorf("staged chunk %x: %w", k[len(prefix):], err)
			}
			return nil
		}
		// One change staged under its own key (stores written before
		// chunks).
		key := k[len(prefix)+1:]
		switch {
		case len(v) > 0 && v[0] == opSet:
			if err := wb.Set(key, v[1:]); err != nil {
				return err
			}
		case len(v) > 0 && v[0] == opDelete:
			if err := wb.Delete(key); err != nil {
				return err
			}
		default:
			return fmt.Errorf("staged change %q: unknown op", key)
		}
		return nil
	})
	if err != nil {
		wb.Cancel()
		return fmt.Errorf("apply checkpoint: %w", err)
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("apply checkpoint: %w", err)
	}
	return s.sync()
}

// applyChunk adds the changes of one chunk to wb. The keys and values are
// slices of b (a copy Scan made), which wb may keep.
func applyChunk(wb *badger.WriteBatch, b []byte) error {
	for len(b) > 0 {
		op := b[0]
		key, rest, err := chunkField(b[1:])
		if err != nil {
			return err
		}
		switch op {
		case opSet:
			var val []byte
			if val, rest, err = chunkField(rest); err != nil {
				return err
			}
			err = wb.Set(key, val)
		case opDelete:
			err = wb.Delete(key)
		default:
			return fmt.Errorf("unknown op %q", op)
		}
		if err != nil {
			return err
		}
		b = rest
	}
	return nil
}

// chunkField reads one uvarint-length-prefixed field of a chunk.
func chunkField(b []byte) (field, rest []byte, err error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return nil, nil, fmt.Errorf("truncated chunk")
	}
	end := w + int(n)
	return b[w:end:end], b[end:], nil
}

// recoverPending finishes a committed checkpoint whose staged changes
// were not fully applied, and discards staged changes of checkpoints that
// never committed: the staged keys of a store written before staging
// files, then their staging files (recoverStagedFiles, which applies the
// committed one in the background). Once the committed changes are
// durable at their keys, staged keys are dropped from Badger's files
// (Drop), not deleted: a delete would add a tombstone and keep the staged
// chunks on disk until compaction reached them.
func (s *Store) recoverPending() error {
	committed, err := s.committedID()
	if err != nil {
		return err
	}
	ids := map[uint64]bool{}
	err = s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix, opts.PrefetchValues = prefixPending, false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefixPending); it.ValidForPrefix(prefixPending); it.Next() {
			k := it.Item().Key()
			if len(k) >= len(prefixPending)+8 {
				ids[binary.BigEndian.Uint64(k[len(prefixPending):])] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if ids[committed] {
		if err := s.apply(pendingPrefix(committed)); err != nil {
			return err
		}
	}
	if len(ids) > 0 {
		if err := s.Drop(prefixPending); err != nil {
			return err
		}
	}
	return s.recoverStagedFiles(committed)
}

// Drop removes every key with prefix from the store's files: Badger
// flushes its memtables without those keys and rewrites the tables that
// hold them, so no tombstone and no old version of them is left on disk.
// Writes wait meanwhile, and nothing may read the store concurrently: it
// is for recovery, before the store is in use.
func (s *Store) Drop(prefix []byte) error {
	if err := s.settle(); err != nil {
		return err
	}
	if err := s.db.DropPrefix(prefix); err != nil {
		return fmt.Errorf("drop %q: %w", prefix, err)
	}
	return nil
}

// Clear deletes every key with prefix in one write batch, made durable
// before it returns. Unlike Drop it leaves tombstones (and the values
// under them) for compactions to collect, but it costs a key-only scan
// of the prefix and a delete per live key, where Drop makes Badger flush
// its memtables, wait for running compactions and rewrite level 0 and
// every table holding the prefix: seconds on a store of a gigabyte, on a
// restart's path, for a few thousand keys.
func (s *Store) Clear(prefix []byte) error {
	err := s.Batch(func(w *Writer) error {
		return s.ScanKeys(prefix, prefix, w.Delete)
	})
	if err != nil {
		return fmt.Errorf("clear %q: %w", prefix, err)
	}
	return nil
}

// committedID returns the id of the committed checkpoint, 0 when none.
func (s *Store) committedID() (uint64, error) {
	val, ok, err := s.Get(keyCommitted)
	if err != nil || !ok || len(val) != 8 {
		return 0, err
	}
	return binary.BigEndian.Uint64(val), nil
}

// committedStaged reports whether the committed checkpoint has staged
// changes that are not applied yet.
func (s *Store) committedStaged() (bool, error) {
	id, err := s.committedID()
	if err != nil || id == 0 {
		return false, err
	}
	if _, err := os.Stat(stagedPath(s.dir, id)); err == nil {
		return true, nil
	}
	k, err := s.LastKey(pendingPrefix(id))
	return k != nil, err
}

// DeletePrefix removes every key with prefix in chunked batches (not
// atomically).
func (s *Store) DeletePrefix(prefix []byte) error {
	if err := s.settle(); err != nil {
		return err
	}
	wb := s.db.NewWriteBatch()
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix, opts.PrefetchValues = prefix, false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			if err := wb.Delete(it.Item().KeyCopy(nil)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		wb.Cancel()
		return fmt.Errorf("delete %q: %w", prefix, err)
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("delete %q: %w", prefix, err)
	}
	return s.sync()
}

// Batch runs fn over a plain write batch: chunked, durable when it
// returns, but not atomic. For data outside checkpoints (the spill area).
func (s *Store) Batch(fn func(w *Writer) error) error {
	if err := s.settle(); err != nil {
		return err
	}
	wb := s.db.NewWriteBatch()
	if err := fn(&Writer{wb: wb}); err != nil {
		wb.Cancel()
		return err
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	return s.sync()
}
