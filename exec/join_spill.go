package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// Spilling for Join: at most budget rows per side, and no more rows of
// both sides than fit in its memory share, stay in memory. Over that, whole keys leave memory: their rows live in the last checkpoint when
// unchanged since, else in the spill area, and their expiry in the stored
// timers (join_timers.go), so memory holds nothing for them. A key comes
// back when a row probes or joins it or its timer fires.

// encode is the state value of one key's rows: the watermarks, then one
// (time, row...) per row, copied from their encodings. extra values follow
// the watermarks (a spilled key's flags: see spillValue).
func (j *Join) encode(rows *joinRows, extra ...types.Value) []byte {
	return encodeRows(append(types.Row{types.IntValue(j.wm[0]), types.IntValue(j.wm[1])}, extra...), rows)
}

// spillValue is the spill-area value of a key evicted while changed: its
// rows, whether a checkpoint holds the key and the timer the checkpoint
// has for it.
func (j *Join) spillValue(jk *joinKey) []byte {
	return j.encode(&jk.rows, types.BoolValue(jk.persisted), types.IntValue(jk.indexed))
}

// decodeKey decodes a stored key's value. A spilled value's flags are
// returned in jk (persisted, indexed); a checkpointed key is persisted
// and its timer is the earliest expiry of its rows.
func (j *Join) decodeKey(side int, val []byte, spilled bool) (*joinKey, error) {
	hdr, rows, err := decodeRows(val)
	if err != nil {
		return nil, err
	}
	if len(hdr) < 2 {
		return nil, errCorrupt(j.id)
	}
	jk := &joinKey{rows: rows, persisted: true, heapAt: noTimer}
	if spilled {
		if len(hdr) < 4 {
			return nil, errCorrupt(j.id)
		}
		jk.persisted, jk.indexed = hdr[2].Bool(), hdr[3].I
	} else {
		jk.indexed = j.minExpiry(side, &jk.rows)
	}
	return jk, nil
}

// keyOf is key for a key given in bytes: a key the side holds is found
// without making the key's string (the conversion for the lookup does not
// escape, so it stays on the stack), and only a key looked for in Badger
// or created allocates it: q7's probe misses and most of its stores hit.
func (j *Join) keyOf(side int, kb []byte, h uint64, create bool) (*joinKey, error) {
	if jk := j.sides[side].get(string(kb), h); jk != nil || (!create && !j.onDisk) {
		return jk, nil
	}
	return j.key(side, string(kb), h, create)
}

// key returns side's state for key k (h its joinHash) with its rows in
// memory (loading them from Badger when the key is not in memory); nil
// when absent, unless create is set.
func (j *Join) key(side int, k string, h uint64, create bool) (*joinKey, error) {
	jk := j.sides[side].get(k, h)
	if jk == nil && j.onDisk {
		var err error
		if jk, err = j.load(side, k, h); err != nil {
			return nil, err
		}
	}
	if jk != nil || !create {
		return jk, nil
	}
	jk = &joinKey{key: k, hash: h, indexed: noTimer, heapAt: noTimer}
	if old, ok := j.gone[side][k]; ok { // stored, removed since: rewritten
		jk.persisted, jk.indexed = true, old
		delete(j.gone[side], k)
	}
	j.sides[side].put(jk)
	return jk, nil
}

// load brings key k of side into memory from the spill area (changed
// since the last checkpoint) or the checkpoint; nil when neither holds it
// or it was removed since. Its rows have no entries in the expiry heap
// (heapAt is noTimer): the stored timer covers them.
func (j *Join) load(side int, k string, h uint64) (*joinKey, error) {
	if _, ok := j.gone[side][k]; ok {
		return nil, nil
	}
	sk := j.stateKey(side, k)
	var val []byte
	dirty := j.spill.has(sk)
	if dirty {
		var err error
		if val, err = j.spill.get(sk); err != nil {
			return nil, fmt.Errorf("load join rows: %w", err)
		}
	} else {
		v, ok, err := j.store.Get([]byte(j.id + sk))
		if err != nil || !ok {
			return nil, err
		}
		j.spill.reads++
		val = v
	}
	jk, err := j.decodeKey(side, val, dirty)
	if err != nil {
		return nil, fmt.Errorf("load join rows: %w", err)
	}
	jk.key, jk.hash, jk.dirty = k, h, dirty // a spilled key is still listed in changed
	j.sides[side].put(jk)
	j.resident[side] += jk.rows.len()
	return jk, nil
}

// value is the state value to checkpoint for key k of side, and its
// flags: from memory, else from the spill area; nil when neither has it.
func (j *Join) value(side int, k string) (val []byte, jk *joinKey, err error) {
	if jk = j.sides[side].get(k, joinHash(k)); jk != nil {
		return j.encode(&jk.rows), jk, nil
	}
	sk := j.stateKey(side, k)
	if !j.spill.has(sk) {
		return nil, nil, nil
	}
	if val, err = j.spill.get(sk); err != nil {
		return nil, nil, err
	}
	spilled, err := j.decodeKey(side, val, true)
	if err != nil {
		return nil, nil, err
	}
	spilled.dirty = true
	return j.encode(&spilled.rows), spilled, nil
}

// evict moves whole keys out of memory until each side holds at most 3/4
// of its limit: the budget's rows, or when fewer the side's part (by its
// rows) of the rows that fit in the memory share. Changed keys go to the
// spill area in one batch.
func (j *Join) evict() error {
	if j.budget <= 0 && j.mem == nil {
		return nil
	}
	limits := j.limits()
	for side := 0; side < 2; side++ {
		if limits[side] <= 0 || j.resident[side] <= limits[side] {
			continue
		}
		if err := j.evictSide(side, limits[side]*3/4); err != nil {
			return err
		}
	}
	return nil
}

// limits returns the rows each side may keep (0: no limit).
func (j *Join) limits() [2]int {
	l := [2]int{j.budget, j.budget}
	total := j.resident[0] + j.resident[1]
	share := j.mem.limit(0, total, j.meanBytes)
	if share <= 0 || total <= share {
		return l
	}
	for side := range l {
		// the side's part of the share, at least one row
		part := max(int(int64(share)*int64(j.resident[side])/int64(total)), 1)
		if l[side] <= 0 || part < l[side] {
			l[side] = part
		}
	}
	return l
}

// evictSide moves whole keys of side out of memory until it holds at
// most target rows.
func (j *Join) evictSide(side, target int) error {
	if side == j.scanned {
		return j.evictBuckets(side, target)
	}
	var keys []string
	var vals [][]byte
	var victims []*joinKey
	j.sides[side].each(func(jk *joinKey) bool {
		if j.resident[side] <= target {
			return false
		}
		if jk.dirty {
			keys = append(keys, j.stateKey(side, jk.key))
			vals = append(vals, j.spillValue(jk))
		}
		victims = append(victims, jk)
		j.resident[side] -= jk.rows.len()
		return true
	})
	if err := j.spill.write(keys, vals); err != nil {
		return err
	}
	for _, jk := range victims {
		// the changed list may still hold the state: not its rows
		jk.rows = joinRows{}
		j.sides[side].remove(jk)
	}
	j.onDisk = true
	return nil
}
