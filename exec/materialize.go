package exec

import (
	"bytes"
	"hash/maphash"
	"maps"
	"slices"
	"sync"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Materialize keeps a view's contents: a multiset of rows (retractions
// remove an identical row). It turns each batch into a changelog for the
// view's sinks: upserts and deletes by the view key.
//
// State: the view contents themselves, bounded by what the view's query
// bounds (windows by lateness, aggregates by TTL). With spilling
// (WithSpill) memory holds the rows within the budget, or more when more
// rows changed since the last checkpoint: those stay until it.
//
// Each distinct row is held once, as its AppendRow encoding, in a
// rowStore: byte chunks, a flat record table and an open-addressing hash
// table, none of which holds a pointer per row, so the garbage collector
// never walks the view. The row's values are decoded from the encoding
// when read (Rows, Get), and a checkpoint writes the encoding without
// decoding it. A row a checkpoint holds that is removed since stays as a
// tombstone (count 0) until the next checkpoint deletes it.
type Materialize struct {
	passThrough bool // keep nothing, only forward the changelog
	id          string
	key         []int
	rows        *rowStore
	live        int // rows held with a count (tombstones excluded)
	// changed lists the ids of rows changed since the last checkpoint;
	// dirty is its liveness test.
	changed dirtyList[uint32]
	dirty   func(id uint32) bool
	// changedBytes sums the encodings of the rows changed since the last
	// checkpoint (Pipeline.ChangedBytes).
	changedBytes int64
	sink         func(changes []connectors.Change)
	// feed, when set, receives every change to the stored rows as made,
	// before the sink's consolidation into upserts by key: the exact
	// multiset changelog the views reading this one consume.
	feed func(changes []connectors.Change)
	// onWM, when set, learns each advance of the view's watermark (the
	// views reading this one follow it).
	onWM func(wm int64)
	cons consolidator // the changelog's scratch
	wm   int64

	// Spilling (see materialize_spill.go): at most budget rows stay in
	// memory besides those changed since the last checkpoint, the rest
	// only in the last checkpoint (a view store writes no spill area);
	// onDisk is set once rows may live only in Badger. evicted
	// has the hashes of the rows evict moved out: unless a restore left
	// the rows in Badger unread (restored), a row it lacks is new and
	// lookup reads nothing for it.
	store    *state.Store
	budget   int
	mem      *memShare // the view's share of the memory budget, or nil
	width    int       // columns of a row, for seeking rows in Badger (0: unknown)
	onDisk   bool
	restored bool
	evicted  evictedFilter
	reads    int64 // rows read back from Badger (StateSize.SpillReads)
	hand     int   // where the next eviction starts looking, in record ids
	// evictWait is set when an eviction found too few unchanged rows to
	// drop: no eviction is tried again until the next checkpoint.
	evictWait bool

	index *idTable // hash of the view key → ids of rows in memory, built by the first Get

	// leadMu and leadEvicted serve a keyed Top-N reading its partitions
	// from the view (materialize_lead.go); leadMu is nil otherwise.
	leadMu      *sync.Mutex
	leadEvicted evictedFilter

	kb, ikb, hbuf, vbuf []byte // scratch for row keys, view keys and stored values
}

// NewMaterialize returns the view store; sink (may be nil) receives the
// changelog of every batch.
func NewMaterialize(id string, key []int, sink func([]connectors.Change)) *Materialize {
	m := &Materialize{id: id, key: key, rows: newRowStore(), sink: sink, wm: types.MinTime}
	m.dirty = func(id uint32) bool { return m.rows.rec(id).flags&recDirty != 0 }
	return m
}

// NewPassThrough returns a view root that keeps nothing: it only turns
// batches into the changelog for sink (CREATE SINK ... AS query).
func NewPassThrough(key []int, sink func([]connectors.Change)) *Materialize {
	m := NewMaterialize("", key, sink)
	m.passThrough = true
	return m
}

// Process implements Operator.
func (m *Materialize) Process(_ int, b *Batch) error {
	if m.passThrough {
		return m.forward(b)
	}
	if m.leadMu != nil {
		m.leadMu.Lock()
		defer m.leadMu.Unlock()
	}
	var changes []connectors.Change
	for i, r := range b.Rows {
		m.kb = state.AppendRow(m.kb[:0], r)
		h := m.rows.hash(m.kb)
		id, ok, err := m.lookup(m.kb, h)
		if err != nil {
			return err
		}
		if b.Diff(i) < 0 {
			if !ok || m.rows.rec(id).count <= 0 {
				continue
			}
			m.retract(id, h, r)
			changes = append(changes, connectors.Change{Op: connectors.Delete, Row: r})
			continue
		}
		if !ok {
			id = m.rows.add(m.kb, h, 0, 0)
		}
		m.rows.rec(id).flags |= recRef
		if e := m.rows.rec(id); e.count <= 0 {
			e.flags &^= recGone
			m.live++
			m.indexAdd(id, r)
		}
		m.rows.rec(id).count++
		m.markDirty(id)
		changes = append(changes, connectors.Change{Op: connectors.Upsert, Row: r})
	}
	if m.feed != nil && len(changes) > 0 {
		m.feed(changes)
	}
	if m.sink != nil && len(changes) > 0 {
		m.sink(m.cons.run(changes, m.key))
	}
	return m.evict()
}

// retract removes one copy of row r (id, its encoding's hash h). The last
// copy leaves memory, or stays as a tombstone when a checkpoint holds the
// row, for the next one to delete.
func (m *Materialize) retract(id uint32, h uint64, r types.Row) {
	e := m.rows.rec(id)
	e.count--
	if e.count > 0 {
		m.markDirty(id)
		return
	}
	m.live--
	m.indexRemove(id, r)
	if e.flags&recPersisted != 0 {
		e.flags |= recGone
		m.markDirty(id)
		return
	}
	m.rows.remove(id, h)
}

// forward turns a batch into changes without storing it.
func (m *Materialize) forward(b *Batch) error {
	if m.sink == nil || len(b.Rows) == 0 {
		return nil
	}
	changes := make([]connectors.Change, len(b.Rows))
	for i, r := range b.Rows {
		op := connectors.Upsert
		if b.Diff(i) < 0 {
			op = connectors.Delete
		}
		changes[i] = connectors.Change{Op: op, Row: r}
	}
	m.sink(m.cons.run(changes, m.key))
	return nil
}

// consolidate keeps, for each key, only the last change of the batch: a
// retraction followed by an insert becomes one upsert, an insert followed
// by its retraction one delete. Order between keys is kept.
func consolidate(changes []connectors.Change, key []int) []connectors.Change {
	var c consolidator
	return c.run(changes, key)
}

// consolidator is consolidate with its scratch kept from batch to batch.
// The changes' keys are encoded back to back into one buffer and found by
// a hash of their bytes, so a change costs no allocation of its own; two
// different keys with one hash (never seen with 64 bits) take the map of
// strings.
type consolidator struct {
	buf    []byte
	ends   []int
	hashes []uint64
	last   map[uint64]int
}

// run is consolidate.
func (c *consolidator) run(changes []connectors.Change, key []int) []connectors.Change {
	if len(key) == 0 {
		return changes
	}
	if c.last == nil {
		c.last = make(map[uint64]int, len(changes))
	}
	defer clear(c.last)
	c.buf, c.ends, c.hashes = c.buf[:0], c.ends[:0], c.hashes[:0]
	for i, ch := range changes {
		at := len(c.buf)
		for _, col := range key {
			c.buf = state.AppendKey(c.buf, ch.Row[col])
		}
		c.ends = append(c.ends, len(c.buf))
		h := maphash.Bytes(consolidateSeed, c.buf[at:])
		c.hashes = append(c.hashes, h)
		if j, ok := c.last[h]; ok && !bytes.Equal(c.buf[at:], keyAt(c.buf, c.ends, j)) {
			return consolidateByString(changes, key)
		}
		c.last[h] = i
	}
	out := changes[:0:0]
	for i, ch := range changes {
		if c.last[c.hashes[i]] == i {
			out = append(out, ch)
		}
	}
	return out
}

// consolidateSeed seeds consolidate's key hashes.
var consolidateSeed = maphash.MakeSeed()

// keyAt is change i's key: the bytes in buf from the end of change
// i-1's to ends[i].
func keyAt(buf []byte, ends []int, i int) []byte {
	if i == 0 {
		return buf[:ends[0]]
	}
	return buf[ends[i-1]:ends[i]]
}

// consolidateByString is consolidate by a map of the keys as strings,
// taken only when two keys share a hash.
func consolidateByString(changes []connectors.Change, key []int) []connectors.Change {
	keys := make([]string, len(changes))
	last := make(map[string]int, len(changes))
	var kb []byte
	for i, c := range changes {
		kb = kb[:0]
		for _, col := range key {
			kb = state.AppendKey(kb, c.Row[col])
		}
		keys[i] = string(kb)
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
		if m.onWM != nil {
			m.onWM(wm)
		}
	}
	return nil
}

// OnWatermark sets fn to learn each advance of the view's watermark, the
// output watermark its changelog's readers follow.
func (m *Materialize) OnWatermark(fn func(wm int64)) { m.onWM = fn }

// OnChanges sets fn to receive every change to the view's rows, unconsolidated
// (a delete and an insert each), before the sink sees them.
func (m *Materialize) OnChanges(fn func(changes []connectors.Change)) { m.feed = fn }

// OutputWatermark is the highest watermark the view has seen: its rows
// with a time column are complete up to it.
func (m *Materialize) OutputWatermark() int64 { return m.wm }

// Tick implements Operator.
func (m *Materialize) Tick(int64) error { return nil }

// Rows returns a snapshot of the view's contents (each row repeated by its
// multiplicity), in a deterministic order. With spilled rows it reads them
// from Badger.
func (m *Materialize) Rows() ([]types.Row, error) {
	if m.onDisk {
		all, err := m.allRows()
		if err != nil {
			return nil, err
		}
		var out []types.Row
		for _, k := range slices.Sorted(maps.Keys(all)) {
			if out, err = m.appendRow(out, []byte(k), all[k]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	ids := m.liveIDs(nil)
	m.rows.sortByKey(ids)
	return m.appendRows(nil, ids)
}

// liveIDs returns the ids of the rows in memory with a count that keep
// (nil: all) accepts.
func (m *Materialize) liveIDs(keep func(k []byte) bool) []uint32 {
	ids := make([]uint32, 0, m.live)
	m.rows.each(func(id uint32) bool {
		if m.rows.rec(id).count > 0 && (keep == nil || keep(m.rows.key(id))) {
			ids = append(ids, id)
		}
		return true
	})
	return ids
}

// appendRows appends the rows of ids, decoded, each repeated by its
// count.
func (m *Materialize) appendRows(out []types.Row, ids []uint32) ([]types.Row, error) {
	for _, id := range ids {
		var err error
		if out, err = m.appendRow(out, m.rows.key(id), m.rows.rec(id).count); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendRow appends the row encoded as k, decoded, count times.
func (m *Materialize) appendRow(out []types.Row, k []byte, count int64) ([]types.Row, error) {
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
func (m *Materialize) rowOf(k []byte) (types.Row, error) {
	r, rest, err := state.DecodeRow(k)
	if err != nil || len(rest) > 0 {
		return nil, errCorrupt(m.id)
	}
	return r, nil
}

// storedValue is the value a checkpoint stores for a row of count copies:
// a header row holding the count, as state.EncodeValue writes it. The row itself is the
// key's (a copy in the value would double what Badger writes, logs and
// flushes per row). It reuses m.vbuf: the writer copies it.
func (m *Materialize) storedValue(count int64) []byte {
	h := state.AppendRow(m.hbuf[:0], types.Row{types.IntValue(count)})
	m.hbuf = h
	m.vbuf = state.AppendEncodedValue(m.vbuf[:0], h)
	return m.vbuf
}

// Checkpoint implements Stateful. It writes the rows changed since the
// last checkpoint: those listed in changed, deleting tombstones.
func (m *Materialize) Checkpoint(w *state.Writer) error {
	var key []byte
	for _, id := range m.changed.take() {
		e := m.rows.rec(id)
		if e.flags&recDirty == 0 {
			continue // listed twice, or removed since
		}
		k := m.rows.key(id)
		key = append(append(key[:0], m.id...), k...)
		if e.flags&recGone != 0 {
			if err := w.Delete(key); err != nil {
				return err
			}
			m.rows.remove(id, m.rows.hash(k))
			continue
		}
		if err := w.Set(key, m.storedValue(e.count)); err != nil {
			return err
		}
		e.flags = e.flags&^recDirty | recPersisted
	}
	m.evictWait = false
	m.changedBytes = 0
	return nil
}

// markDirty lists row id as changed since the last checkpoint.
func (m *Materialize) markDirty(id uint32) {
	if e := m.rows.rec(id); e.flags&recDirty == 0 {
		e.flags |= recDirty
		m.changedBytes += int64(e.klen)
		m.changed.add(id, m.rows.held, m.dirty)
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
		m.onDisk, m.restored = true, true
		return nil
	}
	err := s.Scan([]byte(m.id), func(key, val []byte) error {
		count, err := decodeMatRow(m.id, val)
		if err != nil {
			return err
		}
		k := key[len(m.id):]
		h := m.rows.hash(k)
		if id, ok := m.rows.find(k, h); ok { // restored over rows held: the checkpoint wins
			e := m.rows.rec(id)
			if e.count <= 0 {
				m.live++
			}
			e.count, e.flags = count, recUsed|recPersisted
			return nil
		}
		m.rows.add(k, h, count, recPersisted)
		m.live++
		return nil
	})
	if err != nil {
		return err
	}
	return m.evict()
}

// StateKeys implements stateSizer: the view's distinct rows in memory.
func (m *Materialize) StateKeys() int64 { return int64(m.live) }
