package exec

import (
	"bytes"
	"maps"
	"slices"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Get returns the rows whose view-key columns equal key (values already of
// the columns' kinds), in the order Rows would list them. It serves point
// queries without copying the whole view; rows in Badger are found by a
// seek when the key's columns lead the row (getOnDisk). The rows in
// memory are found by the key index (m.index: the hash of a row's view-key
// encoding → its id), built on the first Get and kept up to date by
// Process, lookups and evictions afterwards, so views nobody point-queries
// pay nothing.
func (m *Materialize) Get(key types.Row) ([]types.Row, error) {
	if len(key) != len(m.key) {
		return nil, nil
	}
	if m.index == nil {
		if err := m.buildIndex(); err != nil {
			return nil, err
		}
	}
	var kb []byte
	for _, v := range key {
		kb = state.AppendKey(kb, v)
	}
	var ids []uint32
	var err error
	m.index.each(m.rows.hash(kb), func(id uint32) {
		if err != nil {
			return
		}
		var r types.Row
		if r, err = m.rowOf(m.rows.key(id)); err == nil && string(m.keyOf(r)) == string(kb) {
			ids = append(ids, id)
		}
	})
	if err != nil {
		return nil, err
	}
	m.rows.sortByKey(ids)
	if m.onDisk {
		inMem := make([]string, len(ids))
		for i, id := range ids {
			inMem[i] = string(m.rows.key(id))
		}
		return m.getOnDisk(key, inMem)
	}
	return m.appendRows(nil, ids)
}

// buildIndex builds the key index over the rows in memory.
func (m *Materialize) buildIndex() error {
	m.index = &idTable{}
	for _, id := range m.liveIDs(nil) {
		r, err := m.rowOf(m.rows.key(id))
		if err != nil {
			m.index = nil
			return err
		}
		m.indexAdd(id, r)
	}
	return nil
}

// GetPrefix returns the rows whose leading view-key columns equal eq
// (values already of the columns' kinds; eq no longer than the key), in
// the order Rows would list them: Get for a key prefix. The rows in
// memory are told by their encoding when the key's columns lead the row
// (decoded otherwise); spilled ones are found by the same seek as Get's.
func (m *Materialize) GetPrefix(eq types.Row) ([]types.Row, error) {
	if len(eq) == len(m.key) {
		return m.Get(eq)
	}
	seek, ok := m.seekPrefix(eq)
	ids := m.liveIDs(func(k []byte) bool { return !ok || bytes.HasPrefix(k, seek) })
	m.rows.sortByKey(ids)
	if m.onDisk {
		inMem := make([]string, len(ids))
		for i, id := range ids {
			inMem[i] = string(m.rows.key(id))
		}
		return m.getOnDisk(eq, inMem)
	}
	var out []types.Row
	for _, id := range ids {
		r, err := m.rowOf(m.rows.key(id))
		if err != nil {
			return nil, err
		}
		if m.keyEqual(r, eq) {
			for range m.rows.rec(id).count {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// getOnDisk is Get for a store whose rows are partly in Badger: the rows
// of the last checkpoint under key's seek prefix, overlaid by the rows in
// memory (inMem, the encodings of those matching key), which win; rows
// removed since the checkpoint (tombstones in memory) are left out. A key that does not lead the row (or a width
// unknown) reads every row.
func (m *Materialize) getOnDisk(key types.Row, inMem []string) ([]types.Row, error) {
	seek, ok := m.seekPrefix(key)
	if !ok {
		all, err := m.Rows()
		if err != nil {
			return nil, err
		}
		var out []types.Row
		for _, r := range all {
			if m.keyEqual(r, key) {
				out = append(out, r)
			}
		}
		return out, nil
	}
	found := map[string]int64{}
	if err := m.storedCounts(seek, found); err != nil {
		return nil, err
	}
	for _, k := range inMem {
		id, _ := m.rows.find([]byte(k), m.rows.hash([]byte(k)))
		found[k] = m.rows.rec(id).count
	}
	var out []types.Row
	for _, k := range slices.Sorted(maps.Keys(found)) {
		r, err := m.rowOf([]byte(k))
		if err != nil {
			return nil, err
		}
		if !m.keyEqual(r, key) {
			continue // the seek prefix covers only the leading key columns
		}
		for i := int64(0); i < found[k]; i++ {
			out = append(out, r)
		}
	}
	return out, nil
}

// seekPrefix returns the AppendRow prefix every row with view key key
// starts with: the row width and the values of the key columns that lead
// the row. ok is false when none leads (or the width is unknown). Floats
// and decimals end the prefix: equal values can encode differently.
func (m *Materialize) seekPrefix(key types.Row) (prefix []byte, ok bool) {
	lead := leadingKey(m.width, m.key, key)
	if m.width == 0 || len(lead) == 0 {
		return nil, false
	}
	return state.AppendRowPrefix(nil, m.width, lead...), true
}

// leadingKey returns the values of key (for the columns keyCols, or the
// first len(key) of them, of rows of width columns) that are the rows' first columns, in order, up to the
// first float or decimal.
func leadingKey(width int, keyCols []int, key types.Row) types.Row {
	var lead types.Row
	for c := 0; c < width; c++ {
		i := slices.Index(keyCols, c)
		if i < 0 || i >= len(key) || key[i].K == types.Float || key[i].K == types.Decimal {
			break // floats and decimals have several encodings of one value
		}
		lead = append(lead, key[i])
	}
	return lead
}

// Key returns the positions of the view-key columns (nil: none).
func (m *Materialize) Key() []int { return m.key }

// keyEqual reports whether r's view-key columns (the first len(key) of
// them) equal key.
func (m *Materialize) keyEqual(r, key types.Row) bool {
	for i, v := range key {
		if !types.Equal(r[m.key[i]], v) {
			return false
		}
	}
	return true
}

// keyOf returns the encoding of r's view-key columns, in a scratch
// buffer (valid until the next call).
func (m *Materialize) keyOf(r types.Row) []byte {
	kb := m.ikb[:0]
	for _, c := range m.key {
		kb = state.AppendKey(kb, r[c])
	}
	m.ikb = kb
	return kb
}

// indexAdd and indexRemove keep the key index (when built) in step with
// the rows in memory that have a count.
func (m *Materialize) indexAdd(id uint32, r types.Row) {
	if m.index != nil {
		m.index.insert(m.rows.hash(m.keyOf(r)), id)
	}
}

func (m *Materialize) indexRemove(id uint32, r types.Row) {
	if m.index != nil {
		m.index.remove(m.rows.hash(m.keyOf(r)), id)
	}
}
