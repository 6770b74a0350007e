package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Spilling for Join: at most budget keys per side keep their rows in
// memory. An evicted key's rows live in the last checkpoint when
// unchanged since, else in the spill area; the expiry heap and the
// persisted set stay in memory.

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

// rowsOf returns the rows side holds for key k, loading them from Badger
// when the key was evicted.
func (j *Join) rowsOf(side int, k string) ([]joinRow, error) {
	if rows, ok := j.sides[side][k]; ok || !j.evicted[side][k] {
		return rows, nil
	}
	val, err := loadValue(j.store, &j.spill, j.id, j.stateKey(side, k))
	if err != nil {
		return nil, fmt.Errorf("load join rows: %w", err)
	}
	enc, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	rows := make([]joinRow, 0, len(enc))
	for _, r := range enc[1:] {
		rows = append(rows, joinRow{time: r[0].I, row: r[1:]})
	}
	delete(j.evicted[side], k)
	j.sides[side][k] = rows
	return rows, nil
}

// evict moves keys' rows out of memory until each side holds at most 3/4
// of the budget; changed keys go to the spill area in one batch.
func (j *Join) evict() error {
	if j.budget <= 0 {
		return nil
	}
	var spill []string
	var vals [][]byte
	for side := 0; side < 2; side++ {
		if len(j.sides[side]) <= j.budget {
			continue
		}
		target := j.budget * 3 / 4
		for k, rows := range j.sides[side] {
			if len(j.sides[side]) <= target {
				break
			}
			sk := j.stateKey(side, k)
			if j.dirty[sk] {
				spill = append(spill, sk)
				vals = append(vals, j.encode(rows))
			} else if !j.persisted[sk] {
				continue // neither changed nor checkpointed: cannot happen, keep it
			}
			delete(j.sides[side], k)
			j.evicted[side][k] = true
		}
	}
	return j.spill.write(spill, vals)
}
