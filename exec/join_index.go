package exec

import "hash/maphash"

// joinIndex is one join side's keys: an open-addressing table (linear
// probing, backward-shift deletion, so no tombstones) whose entries hold
// a key's hash next to the pointer to its state. It replaces a Go map for
// keys that churn: with a nearly unique key (q7's price), every row
// inserts a key and a purge deletes it soon after, and a Go map's deletes
// leave tombstones that lengthen every later probe until it grows again.
// Hash and state pointer share an entry, so a lookup reads the entry's
// cache line and the state (which the caller reads next anyway), and a
// short key is compared inside the state (joinKey.short) without reading
// the key's string: q7's lookups, one per row on a table of about a
// hundred thousand keys, are bound by these cache misses. A key's hash
// is computed once per row (joinHash) and kept in its state, so the probe
// of one side, the store into the other and a later remove do not hash
// it again.
type joinIndex struct {
	entries []joinEntry // a power of two long, or empty
	n       int
}

// joinEntry is one table entry; jk nil marks it empty.
type joinEntry struct {
	hash uint64
	jk   *joinKey
}

// joinIndexMin is the smallest table; the table doubles once past 5/8
// full, which keeps a miss's probe to about four entries.
const joinIndexMin = 16

// joinSeed hashes the keys of every join's indexes: a row's key is
// hashed once for the probe of one side and the store into the other.
var joinSeed = maphash.MakeSeed()

// joinHash returns the hash of join key k in key form.
func joinHash(k string) uint64 { return maphash.String(joinSeed, k) }

// joinHashBytes is joinHash of a key in bytes (maphash gives bytes and
// the string of them the same hash).
func joinHashBytes(k []byte) uint64 { return maphash.Bytes(joinSeed, k) }

// shortKey packs a key of at most 16 bytes (most join keys in key form:
// a BIGINT is 9) into two words and its length; ok is false for a longer
// key.
func shortKey(k string) (w [2]uint64, ok bool) {
	if len(k) > 16 {
		return w, false
	}
	for i := 0; i < len(k); i++ {
		w[i/8] |= uint64(k[i]) << (8 * (i % 8))
	}
	return w, true
}

// sameJoinKey reports whether jk's key is k (packed as w when ok).
func sameJoinKey(jk *joinKey, k string, w [2]uint64, ok bool) bool {
	if ok {
		return jk.short == w && len(jk.key) == len(k)
	}
	return jk.key == k
}

// get returns the state of key k (h its joinHash), or nil.
func (x *joinIndex) get(k string, h uint64) *joinKey {
	if len(x.entries) == 0 {
		return nil
	}
	w, ok := shortKey(k)
	mask := len(x.entries) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := &x.entries[i]
		if e.jk == nil {
			return nil
		}
		if e.hash == h && sameJoinKey(e.jk, k, w, ok) {
			return e.jk
		}
	}
}

// put adds jk under jk.key (jk.hash its joinHash), which the index does
// not hold yet.
func (x *joinIndex) put(jk *joinKey) {
	if 8*(x.n+1) > 5*len(x.entries) {
		x.grow()
	}
	jk.short, _ = shortKey(jk.key)
	jk.held = true
	x.place(joinEntry{hash: jk.hash, jk: jk})
	x.n++
}

func (x *joinIndex) place(e joinEntry) {
	mask := len(x.entries) - 1
	i := int(e.hash) & mask
	for x.entries[i].jk != nil {
		i = (i + 1) & mask
	}
	x.entries[i] = e
}

func (x *joinIndex) grow() {
	old := x.entries
	x.entries = make([]joinEntry, max(2*len(old), joinIndexMin))
	for _, e := range old {
		if e.jk != nil {
			x.place(e)
		}
	}
}

// remove drops jk, which the index holds, shifting back the entries
// after it that would otherwise become unreachable.
func (x *joinIndex) remove(jk *joinKey) {
	if len(x.entries) == 0 {
		return
	}
	mask := len(x.entries) - 1
	i := int(jk.hash) & mask
	for x.entries[i].jk != jk {
		if x.entries[i].jk == nil {
			return
		}
		i = (i + 1) & mask
	}
	jk.held = false
	x.n--
	for j := (i + 1) & mask; x.entries[j].jk != nil; j = (j + 1) & mask {
		// The entry at j may move to the hole at i when its home does not
		// lie cyclically in (i, j].
		if home := int(x.entries[j].hash) & mask; (j-home)&mask >= (j-i)&mask {
			x.entries[i] = x.entries[j]
			i = j
		}
	}
	x.entries[i] = joinEntry{}
}

// holds reports whether an index holds jk: a key removed or evicted
// since is not, so this reads jk alone.
func holds(jk *joinKey) bool { return jk.held }

// len returns the number of keys held.
func (x *joinIndex) len() int { return x.n }

// each calls fn with every key's state until fn returns false. fn must
// not add or remove keys (a removal shifts entries back across the
// visit).
func (x *joinIndex) each(fn func(jk *joinKey) bool) {
	for _, e := range x.entries {
		if e.jk != nil && !fn(e.jk) {
			return
		}
	}
}

// joinKeyBytes is what a key costs its joinIndex: a 16-byte entry at the
// table's mean load (between 5/16 and 5/8 full).
const joinKeyBytes = 2 * 16
