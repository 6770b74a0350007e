package exec

import (
	"slices"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// keyIndex maps the encoding of a row's view-key columns to the row keys
// (full-row encodings) of m.rows holding that key. It is built on the
// first Get and kept up to date by Process afterwards, so views nobody
// point-queries pay nothing. It is dropped once rows spill to Badger.
type keyIndex map[string][]string

// Get returns the rows whose view-key columns equal key (values already of
// the columns' kinds), in the order Rows would list them. It serves point
// queries without copying the whole view; with spilled rows it falls back
// to a scan of every row.
func (m *Materialize) Get(key types.Row) ([]types.Row, error) {
	if len(key) != len(m.key) {
		return nil, nil
	}
	if m.onDisk {
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
	if m.index == nil {
		index := keyIndex{}
		for k := range m.rows {
			r, err := m.rowOf(k)
			if err != nil {
				return nil, err
			}
			index.add(k, m.keyOf(r))
		}
		m.index = index
	}
	var kb []byte
	for _, v := range key {
		kb = state.AppendKey(kb, v)
	}
	ks := m.index[string(kb)]
	if len(ks) > 1 {
		ks = slices.Clone(ks)
		slices.Sort(ks)
	}
	var out []types.Row
	for _, k := range ks {
		if e := m.rows[k]; e != nil {
			var err error
			if out, err = m.appendRow(out, k, e.count); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Key returns the positions of the view-key columns (nil: none).
func (m *Materialize) Key() []int { return m.key }

func (m *Materialize) keyEqual(r, key types.Row) bool {
	for i, c := range m.key {
		if !types.Equal(r[c], key[i]) {
			return false
		}
	}
	return true
}

func (m *Materialize) keyOf(r types.Row) string {
	var kb []byte
	for _, c := range m.key {
		kb = state.AppendKey(kb, r[c])
	}
	return string(kb)
}

// indexAdd and indexRemove keep the key index (when built) in step with
// m.rows.
func (m *Materialize) indexAdd(k string, r types.Row) {
	if m.index != nil {
		m.index.add(k, m.keyOf(r))
	}
}

// add lists row key k under view key ik.
func (x keyIndex) add(k, ik string) { x[ik] = append(x[ik], k) }

func (m *Materialize) indexRemove(k string, r types.Row) {
	if m.index == nil {
		return
	}
	ik := m.keyOf(r)
	ks := m.index[ik]
	for i, x := range ks {
		if x == k {
			ks[i] = ks[len(ks)-1]
			ks = ks[:len(ks)-1]
			break
		}
	}
	if len(ks) == 0 {
		delete(m.index, ik)
	} else {
		m.index[ik] = ks
	}
}
