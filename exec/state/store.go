// Package state keeps operator state and checkpoints in Badger. Operators
// hold their working state in memory (the write-back cache) and hand the
// keys they changed since the last checkpoint to a Checkpoint, which writes
// them, every source position and the catalog in one Badger transaction:
// a checkpoint is all or nothing.
package state

import (
	"errors"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

// Store is the Badger database under a state directory.
type Store struct {
	db *badger.DB
}

// Open opens (or creates) the store in dir.
func Open(dir string) (*Store, error) {
	opts := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithMemTableSize(256 << 20). // raises the single-transaction limit so a checkpoint fits
		WithNumVersionsToKeep(1).
		WithSyncWrites(true). // an acknowledged INSERT and a committed checkpoint survive a crash
		WithCompactL0OnClose(false)
	db, err := badger.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("open state %s: %w", dir, err)
	}
	return &Store{db: db}, nil
}

// Close closes the database cleanly.
func (s *Store) Close() error { return s.db.Close() }

// Abandon releases the database without any further writes, as close to a
// crash as a live process can get: unsynced writes may be lost, committed
// (synced) transactions are kept.
func (s *Store) Abandon() error {
	// Badger has no "drop without flush"; Close flushes memtables that are
	// already durable in the value log, so the on-disk result is the same as
	// a crash after the last synced commit.
	return s.db.Close()
}

// Get reads one key; ok is false when it is absent.
func (s *Store) Get(key []byte) (val []byte, ok bool, err error) {
	err = s.db.View(func(txn *badger.Txn) error {
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
	return s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
			item := it.Item()
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			if err := fn(item.KeyCopy(nil), v); err != nil {
				return err
			}
		}
		return nil
	})
}

// Update runs fn in one read-write transaction and commits it durably.
func (s *Store) Update(fn func(w *Writer) error) error {
	return s.db.Update(func(txn *badger.Txn) error {
		return fn(&Writer{txn: txn})
	})
}

// Writer writes into a checkpoint transaction.
type Writer struct {
	txn *badger.Txn
	n   int
}

// Set writes key = val.
func (w *Writer) Set(key, val []byte) error {
	w.n++
	if err := w.txn.Set(key, val); err != nil {
		return fmt.Errorf("state set: %w", err)
	}
	return nil
}

// Delete removes key.
func (w *Writer) Delete(key []byte) error {
	w.n++
	if err := w.txn.Delete(key); err != nil {
		return fmt.Errorf("state delete: %w", err)
	}
	return nil
}

// DeletePrefix removes every key with prefix.
func (w *Writer) DeletePrefix(prefix []byte) error {
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
