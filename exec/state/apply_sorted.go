package state

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/pb"
)

// applyBatchesInFlight is how many of the apply's batches may wait for
// the sender at once.
const applyBatchesInFlight = 4

// sortedChanges parses the chunks' changes (about n of them, 0 when not
// known) and sorts them by key, keeping only the last change of each key
// (the one a checkpoint holds). Changes staged in strictly ascending key
// order (a checkpoint of keys written in order, such as a view keyed by
// time) are returned as parsed: one pass of comparisons instead of the
// sort.
func sortedChanges(chunks []stagedChunk, n int) ([]change, error) {
	parsed := make([]change, 0, n)
	for i, c := range chunks {
		var err error
		if parsed, err = appendChanges(parsed, c.changes); err != nil {
			return nil, fmt.Errorf("staged chunk %d: %w", i, err)
		}
	}
	if ascending(parsed) {
		return parsed, nil
	}
	seq := make([]seqKey, len(parsed))
	for i := range seq {
		seq[i].n = i
	}
	sortSeq(parsed, seq, 0)
	permute(parsed, seq)
	out := parsed[:0] // in place: out never passes the change read next
	size := 0
	for i, c := range parsed {
		if i+1 < len(parsed) && bytes.Equal(c.key, parsed[i+1].key) {
			continue // a later change of the same key follows
		}
		out = append(out, c)
		size += len(c.key) + len(c.val)
	}
	return packed(out, size), nil
}

// permute puts changes in the order seq gives (changes[i] becomes the
// change at position seq[i].n) in place, following each cycle of the
// permutation, and marks seq's entries used (n = -1). A second slice of
// changes (56 bytes a change) in sorted order would be held next to the
// parsed one, the chunks and the packed copy while the sort ends: in
// heap profiles of `streamsql run` on the 1 GB state, the apply's sort
// was up to 40 MB of the heap at its peak (docs/benchmarks.md).
func permute(changes []change, seq []seqKey) {
	for i := range seq {
		if seq[i].n < 0 {
			continue
		}
		held, j := changes[i], i
		for {
			k := seq[j].n
			seq[j].n = -1
			if k == i {
				changes[j] = held
				break
			}
			changes[j] = changes[k]
			j = k
		}
	}
}

// packed copies the keys and values of changes, in their order, into one
// buffer of size bytes and points the changes at the copies. Sorted, the
// changes point all over their chunks: the apply and the write-ahead log
// would read each one's bytes at a random place (a cache miss apiece,
// several times per change as Badger copies and encodes it); packed they
// are read in order. The chunks are no longer referenced.
func packed(changes []change, size int) []change {
	buf := make([]byte, 0, size)
	for i := range changes {
		c := &changes[i]
		at := len(buf)
		buf = append(buf, c.key...)
		c.key = buf[at:len(buf):len(buf)]
		if c.val != nil {
			at = len(buf)
			buf = append(buf, c.val...)
			c.val = buf[at:len(buf):len(buf)]
		}
	}
	return changes
}

// ascending reports whether the keys of changes are in strictly
// ascending order (so also one change per key).
func ascending(changes []change) bool {
	for i := 1; i < len(changes); i++ {
		if bytes.Compare(changes[i-1].key, changes[i].key) >= 0 {
			return false
		}
	}
	return true
}

// seqKey stands for the change at position n of a checkpoint while
// sortSeq sorts them: 8 bytes of its key as a number (pre) and how many
// bytes of the key are left from there (rest, at most 9: more than 8).
// It is small, so the sort moves 24 bytes per swap, not a change.
type seqKey struct {
	pre  uint64
	n    int
	rest int
}

// sortSeq sorts seq, positions in changes, by key, then position, so the
// changes of one key stay in their order (an unstable sort: a stable one
// costs a log factor more). The keys of a checkpoint share long prefixes
// (a view's name, a row's column count and kinds), which every
// bytes.Compare would walk again, so it sorts 8 bytes at a time, most
// significant first: by the key's bytes from at as a big-endian number
// padded with zeros, then by how many bytes are left (a key that ends
// sorts before its extensions, "a" before "a\x00"); a run that ties on
// both with more than 8 bytes left is sorted again from at+8. A run that
// ties with at most 8 left holds one key, already in position order.
func sortSeq(changes []change, seq []seqKey, at int) {
	for i := range seq {
		key := changes[seq[i].n].key
		k := key[min(at, len(key)):]
		seq[i].pre, seq[i].rest = keyPrefix(k), min(len(k), 9)
	}
	slices.SortFunc(seq, func(a, b seqKey) int {
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
			sortSeq(changes, seq[i:j], at+8)
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

// appendChanges appends the changes of one chunk to dst, in order.
func appendChanges(dst []change, b []byte) ([]change, error) {
	for len(b) > 0 {
		op := b[0]
		key, rest, err := chunkField(b[1:])
		if err != nil {
			return nil, err
		}
		c := change{key: key, del: op == opDelete}
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

// applyMarkChanges is how many of the apply's changes go between two
// records of its progress: each record costs a wait for the writes in
// flight and a sync, and a restart re-applies at most this many changes
// that were applied before the crash.
const applyMarkChanges = 65_536

// keyApplyProgress records how far the apply of a checkpoint got: the
// checkpoint's id, then a key such that every change of the checkpoint up
// to it (in key order) is durable at its key (only the id: none yet). It
// is committed after a sync of the changes it names, so whatever of it
// survives a crash, the changes it names did; the apply deletes it at its
// end.
var keyApplyProgress = []byte("meta/apply-progress")

// applyBatchChanges is how many changes go to Badger's write goroutine
// at once: the apply builds the next batch while Badger writes one (a
// loader sends a batch only when it is full or finished, and its full is
// a tenth of the memtable, so each batch is a loader of its own, finished
// by a sender goroutine in turn). The apply also looks at whether Release
// stopped it once a batch.
const applyBatchChanges = 4096

// sender finishes the apply's loaders one after another, in order, so
// the apply goroutine can fill the next meanwhile.
type sender struct {
	batches chan *badger.KVLoader
	done    chan error
}

// startSender starts a sender.
func startSender() *sender {
	sn := &sender{batches: make(chan *badger.KVLoader, applyBatchesInFlight), done: make(chan error, 1)}
	go func() {
		var first error
		for ld := range sn.batches {
			if err := ld.Finish(); err != nil && first == nil {
				first = err
			}
		}
		sn.done <- first
	}()
	return sn
}

// wait returns once every batch sent is written, with the first error.
func (sn *sender) wait() error {
	close(sn.batches)
	return <-sn.done
}

// metaDelete is the meta byte of a tombstone in Badger's entries (its
// bitDelete, part of its file format: a backup's KV carries it).
const metaDelete = 1

// writeSorted writes the changes of checkpoint id (sorted by key, one per
// key, those after key after) and returns when all are durable,
// recording its progress every applyMarkChanges changes. It is not
// atomic: applying is idempotent, and the commit marker already says
// which checkpoint holds. It ends early with errApplyStopped once Release
// has stopped the apply, leaving the checkpoint staged for the next open.
//
// The changes go to Badger through its KVLoader (the path of Load, which
// restores a backup), not in transactions: a transaction costs a map
// entry per change and hands its writes to the memtable in the random
// order of that map, where the loader hands over whole batches of
// entries in key order, so each skiplist insert lands next to the one
// before. The loader writes each entry at the version it is given, with
// no timestamp of its own: the apply first commits its progress record
// in a transaction and writes every change at that transaction's commit
// timestamp, which is above every version already in the store (so each
// change is its key's newest) and at or below the read timestamp of
// every transaction begun after (so reads see it). The record is the only
// key at that version, and each key appears once in changes, so no two
// entries share a key and a version. No transaction commits meanwhile
// (every write waits for the apply) but the apply's later progress
// records, at higher versions, whose key the changes do not hold.
func (s *Store) writeSorted(id uint64, changes []change, after []byte) error {
	version, err := s.claimVersion(progressRecord(id, after))
	if err != nil {
		return err
	}
	kv := pb.KV{Version: version}
	tombstone := []byte{metaDelete}
	for len(changes) > 0 {
		part := changes[:min(applyMarkChanges, len(changes))]
		sn := startSender()
		var ld *badger.KVLoader
		for i, ch := range part {
			if i%applyBatchChanges == 0 {
				if ld != nil {
					sn.batches <- ld
				}
				ld = s.db.NewKVLoader(1)
				if s.bg.stop.Load() {
					_ = sn.wait()
					return errApplyStopped
				}
			}
			kv.Key, kv.Value, kv.Meta = ch.key, ch.val, nil
			if ch.del {
				kv.Value, kv.Meta = nil, tombstone
			}
			if err := ld.Set(&kv); err != nil {
				sn.batches <- ld // what it sent already is waited for
				_ = sn.wait()
				return fmt.Errorf("apply: %w", err)
			}
		}
		sn.batches <- ld
		if err := sn.wait(); err != nil {
			return fmt.Errorf("apply: %w", err)
		}
		changes = changes[len(part):]
		if len(changes) == 0 {
			break
		}
		if err := s.markProgress(id, part[len(part)-1].key); err != nil {
			return err
		}
	}
	err = s.db.Update(func(txn *badger.Txn) error { return txn.Delete(keyApplyProgress) })
	if err != nil {
		return fmt.Errorf("clear apply progress: %w", err)
	}
	return s.sync()
}

// progressRecord is the value of keyApplyProgress saying that checkpoint
// id is durable up to key last (nil: none of it is known to be).
func progressRecord(id uint64, last []byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, id), last...)
}

// claimVersion commits record as the apply's progress and returns the
// commit timestamp of that transaction: the read timestamp of a
// transaction begun after it, as nothing else commits meanwhile.
func (s *Store) claimVersion(record []byte) (uint64, error) {
	err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(keyApplyProgress, record) })
	if err != nil {
		return 0, fmt.Errorf("record apply progress: %w", err)
	}
	txn := s.db.NewTransaction(false)
	defer txn.Discard()
	return txn.ReadTs(), nil
}

// markProgress makes every change written so far durable, then records
// that the apply of checkpoint id is durable up to key last.
func (s *Store) markProgress(id uint64, last []byte) error {
	if err := s.sync(); err != nil {
		return err
	}
	err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(keyApplyProgress, progressRecord(id, last)) })
	if err != nil {
		return fmt.Errorf("record apply progress: %w", err)
	}
	if s.bg.marked != nil {
		s.bg.marked()
	}
	return nil
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
