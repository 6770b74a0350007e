package state

import (
	"encoding/binary"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

const (
	opSet    byte = 'S'
	opDelete byte = 'D'
)

var (
	prefixPending = []byte("pending/")
	keyCommitted  = []byte("meta/committed-checkpoint")
)

func pendingPrefix(id uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), prefixPending...), id)
}

func stageKey(prefix, key []byte) []byte {
	return append(append(append([]byte(nil), prefix...), '/'), key...)
}

// Checkpoint writes checkpoint id. A small checkpoint (under txnMaxBytes
// and txnMaxChanges) is written with the commit marker in one
// transaction. A larger one is staged in chunked batches, id is committed
// in one small transaction, then the staged writes are applied. It returns
// once the checkpoint is committed and applied; if the process dies after
// the commit, Open finishes applying.
func (s *Store) Checkpoint(id uint64, fn func(w *Writer) error) error {
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
	if err := wb.Flush(); err != nil {
		return fmt.Errorf("stage checkpoint %d: %w", id, err)
	}
	err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set(keyCommitted, binary.BigEndian.AppendUint64(nil, id))
	})
	if err != nil {
		return fmt.Errorf("commit checkpoint %d: %w", id, err)
	}
	return s.apply(prefix)
}

// apply writes the staged changes under prefix to their keys and deletes
// the staging keys. Applying twice gives the same result.
func (s *Store) apply(prefix []byte) error {
	wb := s.db.NewWriteBatch()
	err := s.Scan(prefix, func(k, v []byte) error {
		key := k[len(prefix)+1:]
		switch {
		case len(v) > 0 && v[0] == opSet:
			if err := wb.Set(append([]byte(nil), key...), v[1:]); err != nil {
				return err
			}
		case len(v) > 0 && v[0] == opDelete:
			if err := wb.Delete(append([]byte(nil), key...)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("staged change %q: unknown op", key)
		}
		return wb.Delete(k)
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

// recoverPending finishes a committed checkpoint whose staged changes
// were not fully applied, and discards staged changes of checkpoints that
// never committed.
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
	for id := range ids {
		if id == committed {
			if err := s.apply(pendingPrefix(id)); err != nil {
				return err
			}
			continue
		}
		if err := s.DeletePrefix(pendingPrefix(id)); err != nil {
			return err
		}
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
	return wb.Flush()
}

// Batch runs fn over a plain write batch: chunked, durable when it
// returns, but not atomic. For data outside checkpoints (the spill area).
func (s *Store) Batch(fn func(w *Writer) error) error {
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
