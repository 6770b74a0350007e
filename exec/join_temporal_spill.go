package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// Spilling for TemporalJoin: at most budget keys (state_cache_size), and
// no more than fit in its memory share, stay in memory. Over that, whole
// keys leave memory (their versions or a lookup join's current rows,
// their pending delete and their waiting stream rows): they live in the
// last checkpoint when unchanged since, else in the spill area. A key
// comes back when a stream or table row of it arrives, or when the
// frontier reaches its waiting rows or its pending delete. What stays in
// memory for keys out of it is their name in waiting (with the time of
// their earliest waiting row: the keys with stream rows in the lag
// between the two watermarks) and in deleting (the keys the TABLE
// deleted since the frontier last moved), so the frontier finds them
// without reading the others. A flush loads every key it joins, so
// memory may pass the budget by those keys until the eviction that
// follows it.

// evict moves whole keys out of memory until at most 3/4 of the limit
// (the budget or the keys that fit in the share, whichever is fewer)
// stay; changed ones go to the spill area in one batch.
func (t *TemporalJoin) evict() error {
	if t.store == nil {
		return nil
	}
	limit := t.mem.limit(t.budget, len(t.keys), t.meanBytes)
	if limit <= 0 || len(t.keys) <= limit {
		return nil
	}
	target := limit * 3 / 4
	n := len(t.keys)
	var victims, keys []string
	var vals [][]byte
	for k, e := range t.keys {
		if n <= target {
			break
		}
		if t.dirty[k] {
			keys, vals = append(keys, k), append(vals, t.encodeKey(e))
		}
		victims = append(victims, k)
		n--
	}
	if err := t.spill.write(keys, vals); err != nil {
		return err
	}
	for _, k := range victims {
		delete(t.keys, k)
	}
	t.onDisk = true
	return nil
}

// load brings key k into memory: from the spill area when it changed
// since the last checkpoint, else from the checkpoint; nil when neither
// holds it or it was dropped since (changed, yet neither in memory nor
// spilled).
func (t *TemporalJoin) load(k string) (*temporalKey, error) {
	var val []byte
	switch {
	case t.spill.has(k):
		v, err := t.spill.get(k)
		if err != nil {
			return nil, err
		}
		val = v
	case t.dirty[k]:
		return nil, nil
	default:
		v, ok, err := t.store.Get(t.stateKey(k))
		if err != nil || !ok {
			return nil, err
		}
		t.spill.reads++
		val = v
	}
	e, err := t.decodeKey(val)
	if err != nil {
		return nil, fmt.Errorf("load temporal join key: %w", err)
	}
	t.keys[k] = e
	return e, nil
}

// meanBytes is the mean in-memory size of a key in memory, over up to
// sizeSample of them.
func (t *TemporalJoin) meanBytes() int64 {
	var s sampler
	for k, e := range t.keys {
		if s.full() {
			break
		}
		s.add(int(keyBytes(k) + temporalKeyBytes(e)))
	}
	if s.n == 0 {
		return 0
	}
	return s.bytes / s.n
}

// temporalKeyBytes is the memory of one key's state besides its name.
func temporalKeyBytes(e *temporalKey) int64 {
	n := int64(3*24+24) + rowsBytes(e.rows) + rowsBytes(e.wait) // the struct, three slice headers and del's
	if e.del != nil {
		n += rowBytes(e.del)
	}
	return n
}

// rowsBytes is the memory of rows: each row, and the slice's spare room.
func rowsBytes(rows []types.Row) int64 {
	n := int64(cap(rows)-len(rows)) * 24
	for _, r := range rows {
		n += rowBytes(r)
	}
	return n
}

func (t *TemporalJoin) stateSize() StateSize {
	return t.spill.size(t.StateKeys(), t.mem.bytes(int64(len(t.keys)), t.meanBytes))
}

func (t *TemporalJoin) releaseMemory() { t.mem.release(); t.mem = nil }
