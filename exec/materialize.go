package exec

import (
	"sort"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Materialize keeps a view's contents: a multiset of rows (retractions
// remove an identical row). It turns each batch into a changelog for the
// view's sinks: upserts and deletes by the view key.
//
// State: the view contents themselves, bounded by what the view's query
// bounds (windows by lateness, aggregates by TTL).
//
// Each distinct row is held once, as its AppendRow encoding: the map key.
// The row's values are decoded from it when read (Rows, Get), so a stored
// row costs its encoding, a map slot and a small pointer-free entry, and a
// checkpoint writes the encoding without decoding it.
type Materialize struct {
	passThrough bool // keep nothing, only forward the changelog
	id          string
	key         []int
	rows        map[string]*matRow
	// changed lists the row keys changed since the last checkpoint; gone
	// holds the rows a checkpoint wrote that were removed since.
	changed dirtyList[string]
	gone    map[string]bool
	sink    func(changes []Change)
	wm      int64

	// Spilling (see materialize_spill.go): at most budget rows stay in
	// memory; onDisk is set once rows may live only in Badger.
	store  *state.Store
	budget int
	mem    *memShare // the view's share of the memory budget, or nil
	width  int       // columns of a row, for seeking rows in Badger (0: unknown)
	onDisk bool
	spill  spillArea

	index keyIndex // view key → row keys in memory, built by the first Get

	hbuf, vbuf []byte // scratch for stored values
}

// matRow is the entry of one distinct row (the row is its map key). It
// holds no pointers, so the garbage collector never scans it.
type matRow struct {
	count     int64
	persisted bool // a checkpoint holds this row
	dirty     bool // changed since the last checkpoint (listed in changed)
}

// Change is one changelog entry of a view: Delete is true for a removal.
type Change struct {
	Delete bool
	Row    types.Row
}

// NewMaterialize returns the view store; sink (may be nil) receives the
// changelog of every batch.
func NewMaterialize(id string, key []int, sink func([]Change)) *Materialize {
	return &Materialize{id: id, key: key, rows: map[string]*matRow{}, gone: map[string]bool{}, sink: sink, wm: types.MinTime}
}

// NewPassThrough returns a view root that keeps nothing: it only turns
// batches into the changelog for sink (CREATE SINK ... AS query).
func NewPassThrough(key []int, sink func([]Change)) *Materialize {
	m := NewMaterialize("", key, sink)
	m.passThrough = true
	return m
}

// Process implements Operator.
func (m *Materialize) Process(_ int, b *Batch) error {
	if m.passThrough {
		return m.forward(b)
	}
	var changes []Change
	var kb []byte
	for i, r := range b.Rows {
		kb = state.AppendRow(kb[:0], r)
		k := string(kb)
		e, err := m.lookup(k)
		if err != nil {
			return err
		}
		if b.Diff(i) < 0 {
			if e == nil {
				continue
			}
			e.count--
			if e.count <= 0 {
				delete(m.rows, k)
				m.indexRemove(k, r)
				m.spill.forget(k)
				if e.persisted { // a checkpoint wrote it: the next one deletes it
					m.gone[k] = true
				}
			} else {
				m.markDirty(k, e)
			}
			changes = append(changes, Change{Delete: true, Row: r})
			continue
		}
		if e == nil {
			e = &matRow{}
			m.rows[k] = e
			m.indexAdd(k, r)
		}
		e.count++
		m.markDirty(k, e)
		changes = append(changes, Change{Row: r})
	}
	if m.sink != nil && len(changes) > 0 {
		m.sink(consolidate(changes, m.key))
	}
	return m.evict()
}

// forward turns a batch into changes without storing it.
func (m *Materialize) forward(b *Batch) error {
	if m.sink == nil || len(b.Rows) == 0 {
		return nil
	}
	changes := make([]Change, len(b.Rows))
	for i, r := range b.Rows {
		changes[i] = Change{Delete: b.Diff(i) < 0, Row: r}
	}
	m.sink(consolidate(changes, m.key))
	return nil
}

// consolidate keeps, for each key, only the last change of the batch: a
// retraction followed by an insert becomes one upsert, an insert followed
// by its retraction one delete. Order between keys is kept.
func consolidate(changes []Change, key []int) []Change {
	if len(key) == 0 {
		return changes
	}
	var kb []byte // reused: only the map's strings are allocated
	keyOf := func(r types.Row) string {
		kb = kb[:0]
		for _, c := range key {
			kb = state.AppendKey(kb, r[c])
		}
		return string(kb)
	}
	last := make(map[string]int, len(changes))
	keys := make([]string, len(changes))
	for i, c := range changes {
		keys[i] = keyOf(c.Row)
		last[keys[i]] = i
	}
	out := changes[:0:0]
	for i, c := range changes {
		if last[keys[i]] == i {
			out = append(out, c)
		}
	}
	return out
}

// Watermark implements Operator.
func (m *Materialize) Watermark(_ int, wm int64) error {
	if wm > m.wm {
		m.wm = wm
	}
	return nil
}

// Tick implements Operator.
func (m *Materialize) Tick(int64) error { return nil }

// Rows returns a snapshot of the view's contents (each row repeated by its
// multiplicity), in a deterministic order. With spilled rows it reads them
// from Badger.
func (m *Materialize) Rows() ([]types.Row, error) {
	all := m.rows
	if m.onDisk {
		var err error
		if all, err = m.allRows(); err != nil {
			return nil, err
		}
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []types.Row
	for _, k := range keys {
		var err error
		if out, err = m.appendRow(out, k, all[k].count); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendRow appends the row of key k, decoded, count times.
func (m *Materialize) appendRow(out []types.Row, k string, count int64) ([]types.Row, error) {
	r, err := m.rowOf(k)
	if err != nil {
		return nil, err
	}
	for i := int64(0); i < count; i++ {
		out = append(out, r)
	}
	return out, nil
}

// rowOf decodes the row whose AppendRow encoding is k.
func (m *Materialize) rowOf(k string) (types.Row, error) {
	r, rest, err := state.DecodeRow([]byte(k))
	if err != nil || len(rest) > 0 {
		return nil, errCorrupt(m.id)
	}
	return r, nil
}

// storedValue is the value a checkpoint or the spill area stores for a
// row: the header row (count, and for the spill area whether a checkpoint
// holds the row), as state.EncodeValue writes it. The row itself is the
// key's (a copy in the value would double what Badger writes, logs and
// flushes per row). It reuses m.vbuf: the writer copies it.
func (m *Materialize) storedValue(hdr ...types.Value) []byte {
	h := state.AppendRow(m.hbuf[:0], hdr)
	m.hbuf = h
	m.vbuf = state.AppendEncodedValue(m.vbuf[:0], h)
	return m.vbuf
}

// Checkpoint implements Stateful.
func (m *Materialize) Checkpoint(w *state.Writer) error {
	var key []byte
	for k := range m.gone {
		key = append(append(key[:0], m.id...), k...)
		if err := w.Delete(key); err != nil {
			return err
		}
	}
	m.gone = map[string]bool{}
	for _, k := range m.changed.take() {
		e, ok := m.rows[k]
		switch {
		case ok && !e.dirty:
			continue // listed twice
		case !ok && m.spill.has(k):
			var err error
			if e, err = m.loadSpilled(k); err != nil {
				return err
			}
		case !ok:
			continue // removed since
		}
		key = append(append(key[:0], m.id...), k...)
		if err := w.Set(key, m.storedValue(types.IntValue(e.count))); err != nil {
			return err
		}
		e.dirty, e.persisted = false, true
	}
	if m.store == nil {
		return nil
	}
	return m.spill.clear(w)
}

// markDirty lists row k as changed since the last checkpoint.
func (m *Materialize) markDirty(k string, e *matRow) {
	if !e.dirty {
		e.dirty = true
		m.changed.add(k, len(m.rows), func(k2 string) bool {
			x := m.rows[k2]
			return (x != nil && x.dirty) || m.spill.has(k2)
		})
	}
}

// Restore implements Stateful. A spilling store reads nothing: its rows
// stay in the checkpoint and are read from there when used (lookup, Get,
// Rows), so a restart costs no time per stored row. Otherwise every row
// is loaded.
func (m *Materialize) Restore(s *state.Store) error {
	if m.passThrough {
		return nil
	}
	m.index = nil
	if m.store != nil {
		m.onDisk = true
		return nil
	}
	err := s.Scan([]byte(m.id), func(key, val []byte) error {
		e, _, err := decodeMatRow(m.id, val)
		if err != nil {
			return err
		}
		m.rows[string(key[len(m.id):])] = e
		return nil
	})
	if err != nil {
		return err
	}
	return m.evict()
}

// StateKeys implements stateSizer: the view's distinct rows in memory.
func (m *Materialize) StateKeys() int64 { return int64(len(m.rows)) }
