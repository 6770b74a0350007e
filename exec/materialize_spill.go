package exec

import (
	"slices"
	"strings"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// WithSpill lets the view store keep at most budget distinct rows in
// memory (0: no cap) and, with a share of a MemoryBudget (nil: none), at
// most the share's bytes; the others live in Badger — in the last checkpoint
// when unchanged since, else in the spill area, which no checkpoint
// contains and recovery deletes. Lookups of rows not in memory read
// Badger, and a snapshot merges both. width is the number of columns of
// the view's rows (0: unknown), which point reads of rows in Badger seek
// by. Such a store restores lazily: nothing is read at Restore, rows come
// into memory as they are used.
func (m *Materialize) WithSpill(store *state.Store, budget, width int, mem *memShare) *Materialize {
	if store != nil && (budget > 0 || mem != nil) && !m.passThrough {
		m.store, m.budget, m.width, m.mem = store, budget, width, mem
		m.spill = newSpillArea(store, m.id)
	}
	return m
}

// lookup returns the entry for row key k, loading it from Badger when it
// was evicted; nil when the view does not hold the row.
func (m *Materialize) lookup(k string) (*matRow, error) {
	if e, ok := m.rows[k]; ok || !m.onDisk {
		return e, nil
	}
	var e *matRow
	var err error
	switch {
	case m.spill.has(k):
		e, err = m.loadSpilled(k)
	case m.gone[k]:
		return nil, nil // removed since the last checkpoint
	default:
		e, err = m.loadCheckpointed(k)
	}
	if err != nil || e == nil {
		return nil, err
	}
	m.rows[k] = e
	if m.index != nil {
		r, err := m.rowOf(k)
		if err != nil {
			return nil, err
		}
		m.indexAdd(k, r)
	}
	return e, nil
}

// loadCheckpointed reads row k from the last checkpoint; nil when absent.
func (m *Materialize) loadCheckpointed(k string) (*matRow, error) {
	val, ok, err := m.store.Get([]byte(m.id + k))
	if err != nil || !ok {
		return nil, err
	}
	m.spill.reads++
	e, _, err := decodeMatRow(m.id, val)
	return e, err
}

// loadSpilled reads row k from the spill area, whose values carry
// (count, persisted) before the row. A spilled row changed since the last
// checkpoint, so it comes back dirty (it is listed in changed already).
func (m *Materialize) loadSpilled(k string) (*matRow, error) {
	val, err := m.spill.get(k)
	if err != nil {
		return nil, err
	}
	e, hdr, err := decodeMatRow(m.id, val)
	if err != nil {
		return nil, err
	}
	e.persisted = len(hdr) > 1 && hdr[1].Bool()
	e.dirty = true
	return e, nil
}

// evict moves rows out of memory until at most 3/4 of the limit stay:
// the row budget or, when fewer, the rows that fit in the memory share.
func (m *Materialize) evict() error {
	limit := m.mem.limit(m.budget, m.meanBytes)
	if limit <= 0 || len(m.rows) <= limit {
		return nil
	}
	target := limit * 3 / 4
	var spill []string
	for k := range m.rows {
		if len(m.rows)-len(spill) <= target {
			break
		}
		spill = append(spill, k)
	}
	var keys []string
	var vals [][]byte
	for _, k := range spill {
		e := m.rows[k]
		if !e.dirty {
			continue // unchanged: the checkpoint has it
		}
		v := m.storedValue(types.IntValue(e.count), types.BoolValue(e.persisted))
		keys, vals = append(keys, k), append(vals, slices.Clone(v))
	}
	if err := m.spill.write(keys, vals); err != nil {
		return err
	}
	for _, k := range spill {
		delete(m.rows, k)
		if m.index != nil { // the index lists the rows in memory
			r, err := m.rowOf(k)
			if err != nil {
				return err
			}
			m.indexRemove(k, r)
		}
	}
	m.onDisk = true
	return nil
}

// allRows merges the rows in Badger with the changes in memory: memory
// wins, then the spill area, then the last checkpoint; rows removed since
// the checkpoint are left out.
func (m *Materialize) allRows() (map[string]*matRow, error) {
	all := map[string]*matRow{}
	err := m.store.Scan([]byte(m.id), func(key, val []byte) error {
		k := strings.TrimPrefix(string(key), m.id)
		if m.gone[k] {
			return nil // removed since; rows changed since are overlaid below
		}
		e, _, err := decodeMatRow(m.id, val)
		if err != nil {
			return err
		}
		all[k] = e
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range m.spill.spilled {
		if _, ok := m.rows[k]; ok {
			continue
		}
		e, err := m.loadSpilled(k)
		if err != nil {
			return nil, err
		}
		all[k] = e
	}
	for k, e := range m.rows {
		all[k] = e
	}
	return all, nil
}

// decodeMatRow decodes a stored view row's value: a header row (count,
// then for spilled values whether a checkpoint holds it), and, in values
// written before the row was left to the key, the row itself (ignored:
// the key holds the same encoding).
func decodeMatRow(id string, val []byte) (e *matRow, hdr types.Row, err error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, nil, err
	}
	if len(rows) < 1 || len(rows) > 2 || len(rows[0]) < 1 {
		return nil, nil, errCorrupt(id)
	}
	return &matRow{count: rows[0][0].I, persisted: true}, rows[0], nil
}

// decodeStoredRow decodes a stored view row from its key's row part k (the
// key after the store's id) and its value: its entry and the row.
func decodeStoredRow(id string, k, val []byte) (*matRow, types.Row, error) {
	e, _, err := decodeMatRow(id, val)
	if err != nil {
		return nil, nil, err
	}
	r, rest, err := state.DecodeRow(k)
	if err != nil || len(rest) > 0 {
		return nil, nil, errCorrupt(id)
	}
	return e, r, nil
}
