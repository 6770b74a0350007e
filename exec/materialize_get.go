package exec

import (
	"maps"
	"slices"
	"strings"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// keyIndex maps the encoding of a row's view-key columns to the row keys
// (full-row encodings) of m.rows holding that key. It is built on the
// first Get and kept up to date by Process, lookups and evictions
// afterwards, so views nobody point-queries pay nothing. It lists the rows
// in memory only; Get finds the others in Badger.
type keyIndex map[string][]string

// Get returns the rows whose view-key columns equal key (values already of
// the columns' kinds), in the order Rows would list them. It serves point
// queries without copying the whole view; rows in Badger are found by a
// seek when the key's columns lead the row (getOnDisk).
func (m *Materialize) Get(key types.Row) ([]types.Row, error) {
	if len(key) != len(m.key) {
		return nil, nil
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
	if m.onDisk {
		return m.getOnDisk(key, m.index[string(kb)])
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
	var inMem []string
	for k, e := range m.rows {
		if e != nil && (!ok || strings.HasPrefix(k, string(seek))) {
			inMem = append(inMem, k)
		}
	}
	if m.onDisk {
		return m.getOnDisk(eq, inMem)
	}
	slices.Sort(inMem)
	var out []types.Row
	for _, k := range inMem {
		r, err := m.rowOf(k)
		if err != nil {
			return nil, err
		}
		if m.keyEqual(r, eq) {
			for range m.rows[k].count {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// getOnDisk is Get for a store whose rows are partly in Badger: the rows
// of the last checkpoint and of the spill area under key's seek prefix,
// overlaid by the rows in memory (inMem, from the index), which win;
// rows removed since the checkpoint are left out. A key that does not
// lead the row (or a width unknown) reads every row.
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
	// Memory holds the current count of its rows; rows removed since the
	// checkpoint are left out; spill entries of rows removed since they
	// spilled are stale.
	if err := m.scanCounts(m.id, seek, found, func(k string) bool { return m.rows[k] == nil && !m.gone[k] }); err != nil {
		return nil, err
	}
	if err := m.scanCounts(m.spill.prefix, seek, found, func(k string) bool { return m.rows[k] == nil && m.spill.has(k) }); err != nil {
		return nil, err
	}
	for _, k := range inMem {
		found[k] = m.rows[k].count
	}
	var out []types.Row
	for _, k := range slices.Sorted(maps.Keys(found)) {
		r, err := m.rowOf(k)
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

// scanCounts adds to found the count of each stored row under
// prefix + seek (the key after prefix is the row key) that keep accepts.
func (m *Materialize) scanCounts(prefix string, seek []byte, found map[string]int64, keep func(k string) bool) error {
	return m.store.Scan(append([]byte(prefix), seek...), func(sk, val []byte) error {
		k := string(sk[len(prefix):])
		if !keep(k) {
			return nil
		}
		e, _, err := decodeMatRow(m.id, val)
		if err == nil {
			found[k] = e.count
		}
		return err
	})
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
