package state

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// applyTxnChanges is how many changes one transaction of a checkpoint's
// apply carries. Badger hands a transaction's writes to its memtable in
// the order of a Go map (random), so a large transaction inserts into the
// skiplist at random places, each insert a chain of cache misses; small
// transactions of key-sorted changes insert near the previous inserts
// instead. Each commit also costs a round through Badger's write
// goroutine, so a transaction carries a couple of thousand changes.
const applyTxnChanges = 2048

// applyMaxPending is how many of the apply's transactions may wait for
// Badger's write goroutine at once.
const applyMaxPending = 32

// sortedChanges parses the chunks' changes (about n of them, 0 when not
// known) and sorts them by key, keeping only the last change of each key
// (the one a checkpoint holds).
func sortedChanges(chunks []stagedChunk, n int) ([]change, error) {
	seq := make([]seqChange, 0, n)
	for i, c := range chunks {
		var err error
		if seq, err = appendChanges(seq, c.changes); err != nil {
			return nil, fmt.Errorf("staged chunk %d: %w", i, err)
		}
	}
	sortSeq(seq, 0)
	out := make([]change, 0, len(seq))
	for i, c := range seq {
		if i+1 < len(seq) && bytes.Equal(c.key, seq[i+1].key) {
			continue // a later change of the same key follows
		}
		out = append(out, c.change)
	}
	return out, nil
}

// seqChange is a change, its position in the checkpoint and, while
// sortSeq runs, 8 bytes of its key as a number (pre) and how many bytes
// of the key are left from there (rest, at most 9: more than 8).
type seqChange struct {
	change
	n    int
	pre  uint64
	rest int
}

// sortSeq sorts changes by key, then position, so the changes of one key
// stay in their order (an unstable sort: a stable one costs a log factor
// more). The keys of a checkpoint share long prefixes (a view's name, a
// row's column count and kinds), which every bytes.Compare would walk
// again, so it sorts 8 bytes at a time, most significant first: by the
// key's bytes from at as a big-endian number padded with zeros, then by
// how many bytes are left (a key that ends sorts before its extensions,
// "a" before "a\x00"); a run that ties on both with more than 8 bytes
// left is sorted again from at+8. A run that ties with at most 8 left
// holds one key, already in position order.
func sortSeq(seq []seqChange, at int) {
	for i := range seq {
		k := seq[i].key[min(at, len(seq[i].key)):]
		seq[i].pre, seq[i].rest = keyPrefix(k), min(len(k), 9)
	}
	slices.SortFunc(seq, func(a, b seqChange) int {
		switch {
		case a.pre != b.pre:
			return cmp.Compare(a.pre, b.pre)
		case a.rest != b.rest:
			return a.rest - b.rest
		}
		return a.n - b.n
	})
	for i := 0; i < len(seq); {
		j := i + 1
		for j < len(seq) && seq[j].pre == seq[i].pre && seq[j].rest == seq[i].rest {
			j++
		}
		if j-i > 1 && seq[i].rest > 8 {
			sortSeq(seq[i:j], at+8)
		}
		i = j
	}
}

// keyPrefix is the first 8 bytes of k as a big-endian number, padded
// with zeros.
func keyPrefix(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// appendChanges appends the changes of one chunk to dst, in order,
// numbering them from len(dst).
func appendChanges(dst []seqChange, b []byte) ([]seqChange, error) {
	for len(b) > 0 {
		op := b[0]
		key, rest, err := chunkField(b[1:])
		if err != nil {
			return nil, err
		}
		c := seqChange{change: change{key: key, del: op == opDelete}, n: len(dst)}
		switch op {
		case opSet:
			if c.val, rest, err = chunkField(rest); err != nil {
				return nil, err
			}
		case opDelete:
		default:
			return nil, fmt.Errorf("unknown op %q", op)
		}
		dst = append(dst, c)
		b = rest
	}
	return dst, nil
}

// applyMarkTxns is how many of the apply's transactions go between two
// records of its progress: each record costs a wait for the transactions
// in flight and a sync, and a restart re-applies at most this many
// transactions' changes that were applied before the crash.
const applyMarkTxns = 32

// keyApplyProgress records how far the apply of a checkpoint got: the
// checkpoint's id, then a key such that every change of the checkpoint up
// to it (in key order) is durable at its key. It is written in an apply
// transaction after a sync of the transactions before it, so whatever of
// it survives a crash, the changes it names did; the apply deletes it at
// its end.
var keyApplyProgress = []byte("meta/apply-progress")

// writeSorted writes the changes of checkpoint id (sorted by key, one per
// key) in transactions of at most applyTxnChanges changes (fewer when
// Badger's size limit for one transaction is reached first), at most
// applyMaxPending committing at once, recording its progress every
// applyMarkTxns transactions, and returns when all are durable. It is not
// atomic: applying is idempotent, and the commit marker already says
// which checkpoint holds. It ends early with errApplyStopped once Release
// has stopped the apply, leaving the checkpoint staged for the next open.
func (s *Store) writeSorted(id uint64, changes []change) error {
	c := committer{s: s, pending: make(chan error, applyMaxPending)}
	var mark []byte // the progress the next transaction records
	for txns := 1; len(changes) > 0 && c.err == nil; txns++ {
		if s.bg.stop.Load() {
			if err := c.wait(0); err != nil {
				return err
			}
			return errApplyStopped
		}
		n, err := c.fill(changes[:min(applyTxnChanges, len(changes))], mark)
		if err != nil {
			c.err = err
			break
		}
		if mark != nil && s.bg.marked != nil {
			if err := c.wait(0); err != nil {
				return err
			}
			s.bg.marked()
		}
		last := changes[n-1].key
		changes, mark = changes[n:], nil
		if txns%applyMarkTxns == 0 && len(changes) > 0 {
			if mark, err = c.markAfter(id, last); err != nil {
				return err
			}
		}
	}
	if err := c.wait(0); err != nil {
		return err
	}
	err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete(keyApplyProgress) })
	if err != nil {
		return fmt.Errorf("clear apply progress: %w", err)
	}
	return s.sync()
}

// markAfter makes every transaction committed so far durable and returns
// the progress record saying so: id, then last, the greatest key they
// wrote.
func (c *committer) markAfter(id uint64, last []byte) ([]byte, error) {
	if err := c.wait(0); err != nil {
		return nil, err
	}
	if err := c.s.sync(); err != nil {
		return nil, err
	}
	return append(binary.BigEndian.AppendUint64(nil, id), last...), nil
}

// applyProgress returns the key up to which the apply of checkpoint id
// is durable, nil when no progress of it is recorded.
func (s *Store) applyProgress(id uint64) ([]byte, error) {
	var after []byte
	err := s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(keyApplyProgress)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		v, err := it.ValueCopy(nil)
		if err == nil && len(v) > 8 && binary.BigEndian.Uint64(v) == id {
			after = v[8:]
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read apply progress: %w", err)
	}
	return after, nil
}

// changesAfter returns the changes (sorted by key) after key after; all
// of them when after is nil.
func changesAfter(changes []change, after []byte) []change {
	if after == nil {
		return changes
	}
	i, found := slices.BinarySearchFunc(changes, after, func(c change, k []byte) int { return bytes.Compare(c.key, k) })
	if found {
		i++
	}
	return changes[i:]
}

// committer commits the apply's transactions asynchronously, a bounded
// number at a time, keeping the first error.
type committer struct {
	s        *Store
	pending  chan error
	inFlight int
	err      error
}

// fill writes a prefix of changes (at least one) and, when not nil, the
// progress record mark in one transaction, committed asynchronously, and
// returns the prefix's length.
func (c *committer) fill(changes []change, mark []byte) (int, error) {
	txn := c.s.db.NewTransaction(true)
	if mark != nil {
		if err := txn.Set(keyApplyProgress, mark); err != nil {
			txn.Discard()
			return 0, err
		}
	}
	n := 0
	for _, ch := range changes {
		var err error
		if ch.del {
			err = txn.Delete(ch.key)
		} else {
			err = txn.Set(ch.key, ch.val)
		}
		if errors.Is(err, badger.ErrTxnTooBig) && n > 0 {
			break // the rest goes to the next transaction
		}
		if err != nil {
			txn.Discard()
			return 0, err
		}
		n++
	}
	if c.wait(applyMaxPending-1) != nil {
		txn.Discard()
		return 0, c.err
	}
	c.inFlight++
	txn.CommitWith(func(err error) { c.pending <- err })
	return n, nil
}

// wait waits until at most n transactions are committing and returns the
// first error seen.
func (c *committer) wait(n int) error {
	for c.inFlight > n {
		if err := <-c.pending; err != nil && c.err == nil {
			c.err = err
		}
		c.inFlight--
	}
	return c.err
}
