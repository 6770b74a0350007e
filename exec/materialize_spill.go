package exec

import (
	"fmt"
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
		m.spilled, m.garbage = map[string]bool{}, map[string]bool{}
	}
	return m
}

func (m *Materialize) spillKey(k string) []byte { return []byte(SpillPrefix + m.id + k) }

// lookup returns the entry for row key k, loading it from Badger when it
// was evicted; nil when the view does not hold the row.
func (m *Materialize) lookup(k string) (*matRow, error) {
	if e, ok := m.rows[k]; ok || !m.onDisk {
		return e, nil
	}
	var e *matRow
	var err error
	switch {
	case m.spilled[k]:
		e, err = m.load(m.spillKey(k), true)
	case m.hasDirty(k):
		return nil, nil // deleted since the last checkpoint
	default:
		e, err = m.load([]byte(m.id+k), false)
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

// load reads one stored row: a checkpoint value is (count) row, a spill
// value (count, persisted) row.
func (m *Materialize) load(key []byte, spill bool) (*matRow, error) {
	val, ok, err := m.store.Get(key)
	if err != nil {
		return nil, fmt.Errorf("load view row: %w", err)
	}
	if !ok {
		if spill {
			return nil, fmt.Errorf("view %s: spilled row missing", m.id)
		}
		return nil, nil
	}
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	if len(rows) != 2 || len(rows[0]) < 1 {
		return nil, errCorrupt(m.id)
	}
	e := &matRow{count: rows[0][0].I, row: rows[1], persisted: !spill}
	if spill && len(rows[0]) > 1 {
		e.persisted = rows[0][1].Bool()
	}
	return e, nil
}

// unspill forgets the spilled copy of a row that was just deleted.
func (m *Materialize) unspill(k string) {
	if m.spilled[k] {
		delete(m.spilled, k)
		m.garbage[k] = true
	}
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
	err := m.store.Batch(func(w *state.Writer) error {
		for _, k := range spill {
			e := m.rows[k]
			if !m.hasDirty(k) {
				continue // unchanged: the checkpoint has it
			}
			hdr := types.Row{types.IntValue(e.count), types.BoolValue(e.persisted)}
			if err := w.Set(m.spillKey(k), state.EncodeValue(hdr, e.row)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("spill view rows: %w", err)
	}
	for _, k := range spill {
		if m.hasDirty(k) {
			m.spilled[k] = true
			delete(m.garbage, k)
		}
		delete(m.rows, k)
	}
	m.onDisk = true
	return nil
}

// clearSpill deletes the spill area once a checkpoint holds its rows.
func (m *Materialize) clearSpill(w *state.Writer) error {
	for _, set := range []map[string]bool{m.spilled, m.garbage} {
		for k := range set {
			if err := w.Delete(m.spillKey(k)); err != nil {
				return err
			}
		}
	}
	if m.spilled != nil {
		m.spilled, m.garbage = map[string]bool{}, map[string]bool{}
	}
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
	for k := range m.spilled {
		if _, ok := m.rows[k]; ok {
			continue
		}
		e, err := m.load(m.spillKey(k), true)
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
