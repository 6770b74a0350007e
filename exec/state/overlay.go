package state

import (
	"bytes"
	"slices"

	badger "github.com/dgraph-io/badger/v4"
)

// overlay is what a committed checkpoint being applied in the background
// changes, as reads see it: its keys in order, each with its last value
// or a delete. Reads merge it over Badger, so they answer while the apply
// runs (and right after a restart, which applies the checkpoint an
// interrupted run left in the background) instead of waiting for it: a
// key the checkpoint changed reads its committed value whether or not the
// apply reached it yet, every other key reads Badger. The values are
// slices of the checkpoint's chunks, which the apply holds anyway.
type overlay struct {
	keys [][]byte
	vals [][]byte
	del  []bool
}

// ovChange is one change of a chunk while the overlay is built.
type ovChange struct {
	key, val []byte
	del      bool
}

// newOverlay indexes the changes of chunks; a later change of a key
// replaces an earlier one.
func newOverlay(chunks []stagedChunk) (*overlay, error) {
	var all []ovChange
	for _, c := range chunks {
		b := c.changes
		for len(b) > 0 {
			op := b[0]
			key, rest, err := chunkField(b[1:])
			if err != nil {
				return nil, err
			}
			ch := ovChange{key: key, del: op == opDelete}
			if op == opSet {
				if ch.val, rest, err = chunkField(rest); err != nil {
					return nil, err
				}
			}
			all = append(all, ch)
			b = rest
		}
	}
	// A stable sort keeps a key's changes in their order; the last wins.
	slices.SortStableFunc(all, func(a, b ovChange) int { return bytes.Compare(a.key, b.key) })
	ov := &overlay{}
	for i, ch := range all {
		if i+1 < len(all) && bytes.Equal(all[i+1].key, ch.key) {
			continue
		}
		ov.keys = append(ov.keys, ch.key)
		ov.vals = append(ov.vals, ch.val)
		ov.del = append(ov.del, ch.del)
	}
	return ov, nil
}

// len is the number of keys; a nil overlay has none.
func (ov *overlay) len() int {
	if ov == nil {
		return 0
	}
	return len(ov.keys)
}

// seek returns the index of the first key at or after k.
func (ov *overlay) seek(k []byte) int {
	if ov == nil {
		return 0
	}
	i, _ := slices.BinarySearchFunc(ov.keys, k, bytes.Compare)
	return i
}

// get returns the overlay's value of k; found is false when the
// checkpoint did not change k, ok false when it deleted it.
func (ov *overlay) get(k []byte) (val []byte, ok, found bool) {
	i := ov.seek(k)
	if i == ov.len() || !bytes.Equal(ov.keys[i], k) {
		return nil, false, false
	}
	if ov.del[i] {
		return nil, false, true
	}
	return bytes.Clone(ov.vals[i]), true, true
}

// deleted reports whether the overlay deletes k.
func (ov *overlay) deleted(k []byte) bool {
	i := ov.seek(k)
	return i < ov.len() && ov.del[i] && bytes.Equal(ov.keys[i], k)
}

// last returns the greatest key with prefix the overlay sets, nil when
// none.
func (ov *overlay) last(prefix []byte) []byte {
	end := ov.len()
	if next := prefixEnd(prefix); next != nil {
		end = ov.seek(next)
	}
	for i := end - 1; i >= 0 && bytes.HasPrefix(ov.keys[i], prefix); i-- {
		if !ov.del[i] {
			return bytes.Clone(ov.keys[i])
		}
	}
	return nil
}

// prefixEnd returns the least key after every key with prefix, nil when
// there is none (prefix is empty or all 0xff).
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// scanMerged calls fn for every key with prefix at or after from, in key
// order, over Badger's keys in txn with ov's changes in front of them.
// When own is set it sees each key before its value is read and skips
// the keys it refuses.
func scanMerged(txn *badger.Txn, ov *overlay, prefix, from []byte, own func(key []byte) (bool, error), fn func(key, val []byte) error) error {
	opts := badger.DefaultIteratorOptions
	opts.Prefix, opts.PrefetchValues = prefix, own == nil
	it := txn.NewIterator(opts)
	defer it.Close()
	it.Seek(from)
	i := ov.seek(from)
	for {
		inBadger := it.ValidForPrefix(prefix)
		inOverlay := i < ov.len() && bytes.HasPrefix(ov.keys[i], prefix)
		var c int
		switch {
		case !inBadger && !inOverlay:
			return nil
		case !inBadger:
			c = 1
		case !inOverlay:
			c = -1
		default:
			c = bytes.Compare(it.Item().Key(), ov.keys[i])
		}
		if c < 0 {
			if err := emitItem(it.Item(), own, fn); err != nil {
				return err
			}
			it.Next()
			continue
		}
		if c == 0 {
			it.Next() // the checkpoint's value replaces Badger's
		}
		if !ov.del[i] {
			if err := emit(ov.keys[i], func() ([]byte, error) { return bytes.Clone(ov.vals[i]), nil }, own, fn); err != nil {
				return err
			}
		}
		i++
	}
}

// emitItem passes one Badger item to emit.
func emitItem(item *badger.Item, own func([]byte) (bool, error), fn func(key, val []byte) error) error {
	return emit(item.Key(), func() ([]byte, error) { return item.ValueCopy(nil) }, own, fn)
}

// emit calls fn with a copy of key and its value unless own refuses key.
func emit(key []byte, value func() ([]byte, error), own func([]byte) (bool, error), fn func(key, val []byte) error) error {
	if own != nil {
		ok, err := own(key)
		if err != nil || !ok {
			return err
		}
	}
	v, err := value()
	if err != nil {
		return err
	}
	return fn(bytes.Clone(key), v)
}
