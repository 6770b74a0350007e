package state

import (
	"encoding/binary"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

const (
	opSet    byte = 'S'
	opDelete byte = 'D'
	opChunk  byte = 'C' // the value is a chunk of staged changes
)

// stageChunkBytes is the size past which a staging writer writes its
// chunk: large enough that the per-entry cost of Badger (a skiplist
// insert, a log header) vanishes, well under Badger's value threshold
// (1 MiB) so chunks stay in the LSM tree instead of the value log.
const stageChunkBytes = 256 << 10

var (
	prefixPending = []byte("pending/")
	keyCommitted  = []byte("meta/committed-checkpoint")
)

func pendingPrefix(id uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), prefixPending...), id)
}

// chunkKey is the key of the seq-th chunk of a staged checkpoint. It sorts
// chunks in the order they were written. (Stores written before chunks
// staged each change under prefix + '/' + key; apply still reads those.)
func chunkKey(prefix []byte, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append(append([]byte(nil), prefix...), '#'), seq)
}

// stage appends a change to the writer's chunk — op, then the key and for
// a set the value, each with a uvarint length — and writes the chunk once
// it is full.
func (w *Writer) stage(key, val []byte, del bool) error {
	if w.chunk == nil {
		w.chunk = make([]byte, 1, stageChunkBytes+len(key)+len(val)+32)
		w.chunk[0] = opChunk
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

// flushChunk hands the current chunk to the write batch (which keeps it:
// the next change starts a new one).
func (w *Writer) flushChunk() error {
	if len(w.chunk) <= 1 {
		return nil
	}
	k := chunkKey(w.prefix, w.chunkSeq)
	w.chunkSeq++
	c := w.chunk
	w.chunk = nil
	w.chunks = append(w.chunks, stagedChunk{key: k, changes: c[1:]})
	return w.wb.Set(k, c)
}

// Checkpoint writes checkpoint id. A small checkpoint (under txnMaxBytes
// and txnMaxChanges) is written with the commit marker in one
// transaction. A larger one is staged in chunked batches and id is
// committed in one small transaction; Checkpoint returns then, and the
// staged changes are applied to their keys in the background while the
// caller goes on (see applier.go: every other use of the store waits for
// that apply first). If the process dies after the commit, Open finishes
// applying.
func (s *Store) Checkpoint(id uint64, fn func(w *Writer) error) error {
	if err := s.settle(); err != nil {
		return err
	}
	prefix := pendingPrefix(id)
	w := &Writer{prefix: prefix, buffering: true, db: s.db}
	if err := fn(w); err != nil {
		if w.wb != nil {
			w.wb.Cancel()
		}
		return err
	}
	if w.buffering {
		return s.db.Update(func(txn *badger.Txn) error {
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
	}
	wb := w.wb
	if err := w.flushChunk(); err != nil {
		wb.Cancel()
		return fmt.Errorf("stage checkpoint %d: %w", id, err)
	}
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("stage checkpoint %d: %w", id, err)
	}
	err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(keyCommitted, binary.BigEndian.AppendUint64(nil, id))
	})
	if err != nil {
		return fmt.Errorf("commit checkpoint %d: %w", id, err)
	}
	s.applyInBackground(id, w.chunks)
	return nil
}

// stagedChunk is one chunk of a staged checkpoint as written: its key and
// its changes (the value without the opChunk byte).
type stagedChunk struct {
	key, changes []byte
}

// applyChunks writes the changes of a committed checkpoint's chunks, kept
// in memory since they were staged, to their keys and deletes the chunks'
// staging keys. Applying twice gives the same result.
func (s *Store) applyChunks(chunks []stagedChunk) error {
	wb := s.db.NewWriteBatch()
	for _, c := range chunks {
		if err := applyChunk(wb, c.changes); err != nil {
			wb.Cancel()
			return fmt.Errorf("staged chunk %x: %w", c.key, err)
		}
		if err := wb.Delete(c.key); err != nil {
			wb.Cancel()
			return err
		}
	}
	return wb.Flush()
}

// apply writes the staged changes under prefix to their keys; the
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
	return nil
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
// never committed. Once the committed changes are durable at their keys,
// every staged key is dropped from Badger's files (Drop), not deleted: a
// delete would add a tombstone and keep the staged chunks on disk until
// compaction reached them, which is the extra disk a crash-restarted
// pipeline used to carry.
func (s *Store) recoverPending() error {
	var committed uint64
	val, ok, err := s.Get(keyCommitted)
	if err != nil {
		return err
	}
	if ok && len(val) == 8 {
		committed = binary.BigEndian.Uint64(val)
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
	if len(ids) == 0 {
		return nil
	}
	return s.Drop(prefixPending)
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

// committedStaged reports whether the committed checkpoint has staged
// changes that are not applied yet.
func (s *Store) committedStaged() (bool, error) {
	val, ok, err := s.Get(keyCommitted)
	if err != nil || !ok || len(val) != 8 {
		return false, err
	}
	k, err := s.LastKey(pendingPrefix(binary.BigEndian.Uint64(val)))
	return k != nil, err
}

// DeletePrefix removes every key with prefix in chunked batches (not
// atomically).
func (s *Store) DeletePrefix(prefix []byte) error {
	wb := s.db.NewWriteBatch()
	err := s.view(func(txn *badger.Txn) error {
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
	return wb.Flush()
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
	return nil
}
