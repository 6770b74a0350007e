package exec

import "hash/maphash"

// joinIndex is one join side's keys: an open-addressing table (idTable,
// shared with the view's row store) from the hash of a key to the key's
// slot in a flat slice of states. It replaces a Go map for keys that
// churn: with a nearly unique key (q7's price), every row inserts a key
// and a purge deletes it soon after, and a Go map's deletes leave
// tombstones that lengthen every later probe until it grows again, while
// idTable deletes by shifting entries back, so its probes stay short. A
// key's hash is computed once per row (joinHash) and kept in its state,
// so the probe of one side, the store into the other and a later remove
// do not hash it again. Slots of removed keys are reused.
type joinIndex struct {
	table idTable
	keys  []*joinKey // by slot; nil when free
	free  []uint32
}

// joinSeed hashes the keys of every join's indexes: a row's key is
// hashed once for the probe of one side and the store into the other.
var joinSeed = maphash.MakeSeed()

// joinHash returns the hash of join key k in key form.
func joinHash(k string) uint64 { return maphash.String(joinSeed, k) }

// get returns the state of key k (h its joinHash), or nil.
func (x *joinIndex) get(k string, h uint64) *joinKey {
	id, ok := x.table.find(h, func(id uint32) bool { return x.keys[id].key == k })
	if !ok {
		return nil
	}
	return x.keys[id]
}

// put adds jk under jk.key (jk.hash its joinHash), which the index does
// not hold yet.
func (x *joinIndex) put(jk *joinKey) {
	var id uint32
	if n := len(x.free); n > 0 {
		id, x.free = x.free[n-1], x.free[:n-1]
	} else {
		id = uint32(len(x.keys))
		x.keys = append(x.keys, nil)
	}
	x.keys[id], jk.slot = jk, id
	x.table.insert(jk.hash, id)
}

// remove drops jk, which the index holds.
func (x *joinIndex) remove(jk *joinKey) {
	x.table.remove(jk.hash, jk.slot)
	x.keys[jk.slot] = nil
	x.free = append(x.free, jk.slot)
	jk.slot = noSlot
}

// noSlot is the slot of a key state no index holds.
const noSlot = ^uint32(0)

// holds reports whether an index holds jk: a key removed or evicted
// since is not (remove clears its slot), so this reads jk alone.
func holds(jk *joinKey) bool { return jk.slot != noSlot }

// len returns the number of keys held.
func (x *joinIndex) len() int { return x.table.n }

// each calls fn with every key's state until fn returns false. fn may
// remove the key it is given.
func (x *joinIndex) each(fn func(jk *joinKey) bool) {
	for _, jk := range x.keys {
		if jk != nil && !fn(jk) {
			return
		}
	}
}

// joinKeyBytes is what a key costs its joinIndex: a table slot at the
// table's mean load and its pointer in the slot slice.
const joinKeyBytes = slotBytes + ptrBytes
