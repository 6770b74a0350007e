package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Spilling for Join: at most budget keys per side keep their rows in
// memory. An evicted key keeps its joinKey (flags, no rows) and its
// expiry-heap entries in memory; its rows live in the last checkpoint when
// unchanged since, else in the spill area.

// encode is the state value of one key's rows: the watermarks, then one
// (time, row...) per row.
func (j *Join) encode(rows []joinRow) []byte {
	enc := make([]types.Row, 0, len(rows)+1)
	enc = append(enc, types.Row{types.IntValue(j.wm[0]), types.IntValue(j.wm[1])})
	for _, r := range rows {
		enc = append(enc, append(types.Row{types.IntValue(r.time)}, r.row...))
	}
	return state.EncodeValue(enc...)
}

// key returns side's state for key k with its rows in memory (loading them
// when evicted); nil when absent, unless create is set.
func (j *Join) key(side int, k string, create bool) (*joinKey, error) {
	jk := j.sides[side][k]
	if jk == nil {
		if !create {
			return nil, nil
		}
		jk = &joinKey{}
		j.sides[side][k] = jk
		return jk, nil
	}
	if !jk.evicted {
		return jk, nil
	}
	val, err := loadValue(j.store, &j.spill, j.id, j.stateKey(side, k))
	if err != nil {
		return nil, fmt.Errorf("load join rows: %w", err)
	}
	enc, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	jk.rows = make([]joinRow, 0, len(enc))
	for _, r := range enc[1:] {
		jk.rows = append(jk.rows, joinRow{time: r[0].I, row: r[1:]})
	}
	jk.evicted = false
	j.evicted[side]--
	return jk, nil
}

// value is the state value to checkpoint for key k.
func (j *Join) value(side int, k string, jk *joinKey) ([]byte, error) {
	if jk.evicted {
		return j.spill.get(j.stateKey(side, k))
	}
	return j.encode(jk.rows), nil
}

// evict moves keys' rows out of memory until each side holds at most 3/4
// of the budget; changed keys go to the spill area in one batch.
func (j *Join) evict() error {
	if j.budget <= 0 {
		return nil
	}
	var keys []string
	var vals [][]byte
	var victims []*joinKey
	for side := 0; side < 2; side++ {
		resident := len(j.sides[side]) - j.evicted[side]
		if resident <= j.budget {
			continue
		}
		target := j.budget * 3 / 4
		for k, jk := range j.sides[side] {
			if resident <= target {
				break
			}
			if jk.evicted {
				continue
			}
			if jk.dirty {
				keys = append(keys, j.stateKey(side, k))
				vals = append(vals, j.encode(jk.rows))
			}
			victims = append(victims, jk)
			j.evicted[side]++
			resident--
		}
	}
	if err := j.spill.write(keys, vals); err != nil {
		return err
	}
	for _, jk := range victims {
		jk.evicted, jk.rows = true, nil
	}
	return nil
}
