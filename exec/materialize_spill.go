package exec

import (
	"strings"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// WithSpill lets the view store keep at most budget distinct rows in
// memory (0: no limit); the others live in Badger — in the last checkpoint
// when unchanged since, else in the spill area, which no checkpoint
// contains and recovery deletes. Lookups of rows not in memory read
// Badger, and a snapshot merges both.
func (m *Materialize) WithSpill(store *state.Store, budget int) *Materialize {
	if store != nil && budget > 0 && !m.passThrough {
		m.store, m.budget = store, budget
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
	case m.hasDirty(k):
		return nil, nil // deleted since the last checkpoint
	default:
		e, err = m.loadCheckpointed(k)
	}
	if err != nil || e == nil {
		return nil, err
	}
	m.rows[k] = e
	return e, nil
}

// hasDirty reports whether k was changed since the last checkpoint (an
// absent key in dirty with false means: removed, never persisted).
func (m *Materialize) hasDirty(k string) bool {
	_, ok := m.dirty[k]
	return ok
}

// loadCheckpointed reads row k from the last checkpoint; nil when absent.
func (m *Materialize) loadCheckpointed(k string) (*matRow, error) {
	val, ok, err := m.store.Get([]byte(m.id + k))
	if err != nil || !ok {
		return nil, err
	}
	return decodeMatRow(m.id, val)
}

// loadSpilled reads row k from the spill area, whose values carry
// (count, persisted) before the row.
func (m *Materialize) loadSpilled(k string) (*matRow, error) {
	val, err := m.spill.get(k)
	if err != nil {
		return nil, err
	}
	e, err := decodeMatRow(m.id, val)
	if err != nil {
		return nil, err
	}
	rows, _ := state.DecodeValue(val)
	e.persisted = len(rows[0]) > 1 && rows[0][1].Bool()
	return e, nil
}

// evict moves rows out of memory until at most 3/4 of the budget stay.
func (m *Materialize) evict() error {
	if m.budget <= 0 || len(m.rows) <= m.budget {
		return nil
	}
	target := m.budget * 3 / 4
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
		if !m.hasDirty(k) {
			continue // unchanged: the checkpoint has it
		}
		e := m.rows[k]
		hdr := types.Row{types.IntValue(e.count), types.BoolValue(e.persisted)}
		keys, vals = append(keys, k), append(vals, state.EncodeValue(hdr, e.row))
	}
	if err := m.spill.write(keys, vals); err != nil {
		return err
	}
	for _, k := range spill {
		delete(m.rows, k)
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
		if m.hasDirty(k) {
			return nil // changed since: memory or the spill area has it (or it is gone)
		}
		e, err := decodeMatRow(m.id, val)
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

func decodeMatRow(id string, val []byte) (*matRow, error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	if len(rows) != 2 || len(rows[0]) < 1 {
		return nil, errCorrupt(id)
	}
	return &matRow{count: rows[0][0].I, row: rows[1], persisted: true}, nil
}
