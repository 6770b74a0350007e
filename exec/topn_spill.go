package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Spilling for TopN: at most budget partitions, and no more than fit in
// its memory share, stay in memory. Over that, whole partitions leave
// memory: their rows live in the last checkpoint when unchanged since,
// else in the spill area. A partition comes back when its next row
// arrives.

// evict moves whole partitions out of memory until at most 3/4 of the
// limit (the budget or the partitions that fit in the share, whichever is
// fewer) stay; changed ones go to the spill area in one batch, with
// whether a checkpoint holds them.
func (t *TopN) evict() error {
	if t.store == nil {
		return nil
	}
	limit := t.mem.limit(t.budget, len(t.parts), t.meanBytes)
	if limit <= 0 || len(t.parts) <= limit {
		return nil
	}
	target := limit * 3 / 4
	n := len(t.parts)
	var victims, keys []string
	var vals [][]byte
	for k, p := range t.parts {
		if n <= target {
			break
		}
		if p.dirty {
			keys, vals = append(keys, k), append(vals, t.spillValue(p))
		}
		victims = append(victims, k)
		n--
	}
	if err := t.spill.write(keys, vals); err != nil {
		return err
	}
	for _, k := range victims {
		delete(t.parts, k)
	}
	t.onDisk = true
	return nil
}

// spillValue is the spill area's value of changed partition p: whether a
// checkpoint holds it, then its rows.
func (t *TopN) spillValue(p *keyedPart) []byte {
	rows := make([]types.Row, 0, len(p.rows)+1)
	rows = append(rows, types.Row{types.BoolValue(p.persisted)})
	return state.EncodeValue(append(rows, p.rows...)...)
}

// decodeSpilled decodes a spill-area value (spillValue).
func (t *TopN) decodeSpilled(val []byte) (*keyedPart, error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.id, err)
	}
	if len(rows) < 2 || len(rows[0]) != 1 || len(rows[1]) <= t.n.RankCol {
		return nil, errCorrupt(t.id)
	}
	return &keyedPart{rows: rows[1:], persisted: rows[0][0].Bool(), dirty: true}, nil
}

// load brings the partition stored under k into memory from the spill
// area (changed since the last checkpoint) or the checkpoint; nil when
// neither holds it or it was emptied since.
func (t *TopN) load(k string) (*keyedPart, error) {
	if t.gone[k] {
		return nil, nil
	}
	var p *keyedPart
	if t.spill.has(k) {
		val, err := t.spill.get(k)
		if err != nil {
			return nil, err
		}
		if p, err = t.decodeSpilled(val); err != nil {
			return nil, fmt.Errorf("load Top-N partition: %w", err)
		}
	} else {
		val, ok, err := t.store.Get([]byte(t.id + k))
		if err != nil || !ok {
			return nil, err
		}
		t.spill.reads++
		rows, err := t.decodeRows(val)
		if err != nil {
			return nil, fmt.Errorf("load Top-N partition: %w", err)
		}
		p = &keyedPart{rows: rows, persisted: true}
	}
	t.parts[k] = p
	return p, nil
}

// checkpointSpilled writes the partitions evicted while changed, from the
// spill area; those loaded back since are written from memory.
func (t *TopN) checkpointSpilled(w *state.Writer) error {
	for k := range t.spill.spilled {
		if _, ok := t.parts[k]; ok {
			continue
		}
		val, err := t.spill.get(k)
		if err != nil {
			return err
		}
		p, err := t.decodeSpilled(val)
		if err != nil {
			return err
		}
		if err := w.Set([]byte(t.id+k), state.EncodeValue(p.rows...)); err != nil {
			return err
		}
	}
	return nil
}
