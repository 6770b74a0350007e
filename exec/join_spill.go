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

func (j *Join) spillKey(sk string) []byte { return []byte(SpillPrefix + j.id + sk) }

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
	sk := j.stateKey(side, k)
	key := []byte(j.id + sk)
	if j.spilled[sk] {
		key = j.spillKey(sk)
	}
	val, ok, err := j.store.Get(key)
	if err != nil {
		return nil, fmt.Errorf("load join rows: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("load join rows of %s: key missing: %w", j.id, state.ErrVersion)
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
	if len(spill) == 0 {
		return nil
	}
	err := j.store.Batch(func(w *state.Writer) error {
		for i, sk := range spill {
			if err := w.Set(j.spillKey(sk), vals[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("spill join rows: %w", err)
	}
	for _, sk := range spill {
		j.spilled[sk] = true
		delete(j.garbage, sk)
	}
	return nil
}

// clearSpill deletes the spill area once a checkpoint holds its rows; the
// keys it holds are now clean and load from the checkpoint.
func (j *Join) clearSpill(w *state.Writer) error {
	for _, set := range []map[string]bool{j.spilled, j.garbage} {
		for sk := range set {
			if err := w.Delete(j.spillKey(sk)); err != nil {
				return err
			}
		}
	}
	j.spilled, j.garbage = map[string]bool{}, map[string]bool{}
	return nil
}
