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
// apply reached it yet, every other key reads Badger. It is the apply's
// own sorted list of changes (applyRun.changes), whose keys and values
// are slices of the checkpoint's chunks.
type overlay struct {
	changes []change
}

// len is the number of keys; a nil overlay has none.
func (ov *overlay) len() int {
	if ov == nil {
		return 0
	}
	return len(ov.changes)
}

// key returns the i-th key.
func (ov *overlay) key(i int) []byte { return ov.changes[i].key }

// seek returns the index of the first key at or after k.
func (ov *overlay) seek(k []byte) int {
	if ov == nil {
		return 0
	}
	i, _ := slices.BinarySearchFunc(ov.changes, k, func(c change, k []byte) int { return bytes.Compare(c.key, k) })
	return i
}

// get returns the overlay's value of k; found is false when the
// checkpoint did not change k, ok false when it deleted it.
func (ov *overlay) get(k []byte) (val []byte, ok, found bool) {
	i := ov.seek(k)
	if i == ov.len() || !bytes.Equal(ov.key(i), k) {
		return nil, false, false
	}
	if ov.changes[i].del {
		return nil, false, true
	}
	return bytes.Clone(ov.changes[i].val), true, true
}

// deleted reports whether the overlay deletes k.
func (ov *overlay) deleted(k []byte) bool {
	i := ov.seek(k)
	return i < ov.len() && ov.changes[i].del && bytes.Equal(ov.key(i), k)
}

// last returns the greatest key with prefix the overlay sets, nil when
// none.
func (ov *overlay) last(prefix []byte) []byte {
	end := ov.len()
	if next := prefixEnd(prefix); next != nil {
		end = ov.seek(next)
	}
	for i := end - 1; i >= 0 && bytes.HasPrefix(ov.key(i), prefix); i-- {
		if !ov.changes[i].del {
			return bytes.Clone(ov.key(i))
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
		inOverlay := i < ov.len() && bytes.HasPrefix(ov.key(i), prefix)
		var c int
		switch {
		case !inBadger && !inOverlay:
			return nil
		case !inBadger:
			c = 1
		case !inOverlay:
			c = -1
		default:
			c = bytes.Compare(it.Item().Key(), ov.key(i))
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
		if ch := ov.changes[i]; !ch.del {
			if err := emit(ch.key, func() ([]byte, error) { return bytes.Clone(ch.val), nil }, own, fn); err != nil {
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
