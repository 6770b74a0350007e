package exec

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/types"
)

// Spilling for Join: at most budget rows per side, and no more rows of
// both sides than fit in its memory share (split between the sides by
// their recent key lookups: split), stay in memory. Over that, whole keys
// leave memory, those looked up least recently first: their rows live in
// the last checkpoint when unchanged since, else in the spill area, and
// their expiry in the stored timers (join_timers.go), so memory holds
// nothing for them. A key comes back when a row probes or joins it or its
// timer fires. Until a side first evicts, a key its memory lacks is
// absent and is not looked for in Badger.

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
// The lookup counts as a touch of the side and dates the key's use.
func (j *Join) keyOf(side int, kb []byte, h uint64, create bool) (*joinKey, error) {
	j.touches[side]++
	jk := j.sides[side].get(string(kb), h)
	if jk == nil && (create || j.onDisk[side]) {
		var err error
		if jk, err = j.key(side, string(kb), h, create); err != nil {
			return nil, err
		}
	}
	if jk != nil {
		jk.used = j.clock
	}
	return jk, nil
}

// key returns side's state for key k (h its joinHash) with its rows in
// memory (loading them from Badger when the key is not in memory); nil
// when absent, unless create is set.
func (j *Join) key(side int, k string, h uint64, create bool) (*joinKey, error) {
	jk := j.sides[side].get(k, h)
	if jk == nil && j.onDisk[side] {
		var err error
		if jk, err = j.load(side, k, h); err != nil {
			return nil, err
		}
	}
	if jk != nil || !create {
		return jk, nil
	}
	jk = &joinKey{key: k, hash: h, indexed: noTimer, heapAt: noTimer, used: j.clock}
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
	jk.key, jk.hash, jk.dirty, jk.used = k, h, dirty, j.clock // a spilled key is still listed in changed
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

// limits returns the rows each side may keep (0: no limit): the
// budget's rows, or when fewer the side's part of the rows that fit in the
// memory share (split).
func (j *Join) limits() [2]int {
	l := [2]int{j.budget, j.budget}
	total := j.resident[0] + j.resident[1]
	share := j.mem.limit(0, total, j.meanBytes)
	if share <= 0 || total <= share {
		return l
	}
	part := j.split(share)
	for side := range l {
		if l[side] <= 0 || part[side] < l[side] {
			l[side] = part[side]
		}
	}
	return l
}

// touchWindow is how many recent key lookups (both sides) split weighs:
// past it both counts are halved.
const touchWindow = 1 << 20

// split divides share rows between the sides by how often each side's
// keys were looked up lately (touches: a probe from the other input, a
// store or retraction of its own), not by the rows each holds: a key out
// of memory costs a Badger read each time it is looked up. Nexmark q20's
// bids probe the auctions, a side of a few rows per key, once per bid: by
// rows it got a hundredth of the share, and nearly every bid read
// Badger. A side holding fewer rows than its part leaves the rest to the
// other; each part is at least one row.
func (j *Join) split(share int) [2]int {
	if j.touches[0]+j.touches[1] > touchWindow {
		j.touches[0], j.touches[1] = j.touches[0]/2, j.touches[1]/2
	}
	t0, t1 := j.touches[0]+1, j.touches[1]+1
	p0 := int(int64(share) * t0 / (t0 + t1))
	p1 := share - p0
	switch {
	case j.resident[0] < p0:
		p0, p1 = j.resident[0], share-j.resident[0]
	case j.resident[1] < p1:
		p0, p1 = share-j.resident[1], j.resident[1]
	}
	return [2]int{max(p0, 1), max(p1, 1)}
}

// evictSide moves whole keys of side out of memory until it holds at
// most target rows. The victims are the keys looked up least recently (by
// the batch that last did: joinKey.used), so the keys rows keep arriving
// for stay however many rows they hold: evicting one would write all its
// rows to the spill area and its next row would read and decode them
// again.
func (j *Join) evictSide(side, target int) error {
	if side == j.scanned {
		return j.evictBuckets(side, target)
	}
	cutoff := j.evictionAge(side, j.resident[side]-target)
	var keys []string
	var vals [][]byte
	var victims []*joinKey
	j.sides[side].each(func(jk *joinKey) bool {
		if j.resident[side] <= target {
			return false
		}
		if jk.used > cutoff {
			return true
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
	j.onDisk[side] = true
	return nil
}

// keyAge is a key's last use and its rows, which evictionAge orders.
type keyAge struct {
	used uint64
	rows int
}

// evictionAge returns the last use of the newest of the keys of side that,
// taken least recently used first, hold at least rows rows: evictSide
// takes the keys used no later than it.
func (j *Join) evictionAge(side, rows int) uint64 {
	j.ages = j.ages[:0]
	j.sides[side].each(func(jk *joinKey) bool {
		j.ages = append(j.ages, keyAge{jk.used, jk.rows.len()})
		return true
	})
	slices.SortFunc(j.ages, func(a, b keyAge) int { return cmp.Compare(a.used, b.used) })
	var cutoff uint64
	for _, a := range j.ages {
		if rows <= 0 {
			break
		}
		cutoff = a.used
		rows -= a.rows
	}
	return cutoff
}
