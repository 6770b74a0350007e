package exec

import (
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// WithSpill lets the view store keep at most budget distinct rows in
// memory (0: no cap) and, with a share of a MemoryBudget (nil: none), at
// most the share's bytes, besides the rows changed since the last
// checkpoint, which stay in memory until it writes them; the others live
// in the last checkpoint in Badger. Lookups of rows not in memory read
// Badger, and a snapshot merges both. width is the number of columns of
// the view's rows (0: unknown), which point reads of rows in Badger seek
// by. Such a store restores lazily: nothing is read at Restore, rows come
// into memory as they are used.
func (m *Materialize) WithSpill(store *state.Store, budget, width int, mem *memShare) *Materialize {
	if store != nil && (budget > 0 || mem != nil) && !m.passThrough {
		m.store, m.budget, m.width, m.mem = store, budget, width, mem
	}
	return m
}

// lookup returns the id of the row encoded as k (h its hash), loading
// it from Badger when it was evicted; ok is false when the view does not
// hold the row. A tombstone (count 0: removed since the last checkpoint)
// is found like a row.
func (m *Materialize) lookup(k []byte, h uint64) (id uint32, ok bool, err error) {
	if id, ok := m.rows.find(k, h); ok || !m.onDisk || !m.restored && !m.evicted.has(h) {
		return id, ok, nil
	}
	count, ok, err := m.loadCheckpointed(string(k))
	if err != nil || !ok {
		return 0, false, err
	}
	id = m.rows.add(k, h, count, recPersisted)
	m.live++
	if m.index != nil {
		r, err := m.rowOf(k)
		if err != nil {
			return 0, false, err
		}
		m.indexAdd(id, r)
	}
	return id, true, nil
}

// loadCheckpointed reads row k's count from the last checkpoint; ok is
// false when it does not hold the row.
func (m *Materialize) loadCheckpointed(k string) (count int64, ok bool, err error) {
	val, ok, err := m.store.Get([]byte(m.id + k))
	if err != nil || !ok {
		return 0, false, err
	}
	m.reads++
	count, err = decodeMatRow(m.id, val)
	return count, err == nil, err
}

// evict moves rows out of memory until at most 3/4 of the limit stay:
// the row budget or, when fewer, the rows that fit in the memory share.
// Only rows unchanged since the last checkpoint leave (it holds them: they
// are dropped, nothing is written); tombstones and changed rows stay
// until the checkpoint. A changed row used to go to the spill area, but
// the area keeps each spilled row's key — for a view store the whole
// row's encoding — in memory until the checkpoint copies it, so it freed
// nothing, and the round trip (written, read back, written again and
// deleted) was a third of Badger's bytes in q20 at 10 M events. Once a
// pass finds too few unchanged rows, none is looked for again until the
// next checkpoint (rows become unchanged only there, besides those read
// back from it).
func (m *Materialize) evict() error {
	if m.evictWait {
		return nil
	}
	limit := m.mem.limit(m.budget, m.live, m.meanBytes)
	if limit <= 0 || m.live <= limit {
		return nil
	}
	want := m.live - limit*3/4
	victims := m.victims(want)
	m.evictWait = len(victims) < want
	for _, id := range victims {
		k := m.rows.key(id)
		if m.index != nil { // the index lists the rows in memory
			r, err := m.rowOf(k)
			if err != nil {
				return err
			}
			m.indexRemove(id, r)
		}
		h := m.rows.hash(k)
		m.evicted.add(h)
		if m.rows.lead != nil {
			if lh := m.rows.leadHash(k); !m.leadEvicted.has(lh) {
				m.leadEvicted.add(lh)
			}
		}
		m.rows.remove(id, h)
		m.live--
	}
	if len(victims) > 0 {
		m.onDisk = true
	}
	return nil
}

// victims returns the ids of up to n rows with a count that the last
// checkpoint holds unchanged, taken round the record table from m.hand
// as a clock: a row added or inserted again since the hand last passed it
// (recRef) gets a second chance, its mark cleared, and is taken only when
// the unmarked rows are too few. Top-N views delete the rows they
// inserted recently (a displaced top row, a rank that moved), so without
// it the hand evicted those as readily as cold rows and each delete read
// its row back from Badger. Changed rows are passed over (evict).
func (m *Materialize) victims(n int) []uint32 {
	out := make([]uint32, 0, n)
	var marked []uint32
	recs := len(m.rows.recs)
	i := 0
	for ; i < recs && len(out) < n; i++ {
		id := uint32((m.hand + i) % recs)
		e := m.rows.rec(id)
		if e.flags&(recUsed|recDirty) != recUsed || e.count <= 0 {
			continue
		}
		if e.flags&recRef != 0 {
			e.flags &^= recRef
			marked = append(marked, id)
			continue
		}
		out = append(out, id)
	}
	out = append(out, marked[:min(len(marked), n-len(out))]...)
	if recs > 0 {
		m.hand = (m.hand + i) % recs
	}
	return out
}

// allRows merges the rows in Badger with the rows in memory: memory wins
// (its tombstones hide rows removed since the checkpoint), then the last
// checkpoint. It returns each row's count by its encoding.
func (m *Materialize) allRows() (map[string]int64, error) {
	all := map[string]int64{}
	if err := m.storedCounts(nil, all); err != nil {
		return nil, err
	}
	for _, id := range m.liveIDs(nil) {
		all[string(m.rows.key(id))] = m.rows.rec(id).count
	}
	return all, nil
}

// storedCounts adds to found the count of each row the last checkpoint
// holds under the row-key prefix seek (nil: every row) that memory does
// not hold: memory has its current count, or its tombstone.
func (m *Materialize) storedCounts(seek []byte, found map[string]int64) error {
	return m.store.Scan(append([]byte(m.id), seek...), func(sk, val []byte) error {
		k := sk[len(m.id):]
		if _, ok := m.rows.find(k, m.rows.hash(k)); ok {
			return nil
		}
		count, err := decodeMatRow(m.id, val)
		if err == nil {
			found[string(k)] = count
		}
		return err
	})
}

// decodeMatRow decodes a stored view row's value: a header row (its
// count first) and, in values written before the row was left to the key,
// the row itself (ignored: the key holds the same encoding).
func decodeMatRow(id string, val []byte) (count int64, err error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return 0, err
	}
	if len(rows) < 1 || len(rows) > 2 || len(rows[0]) < 1 {
		return 0, errCorrupt(id)
	}
	return rows[0][0].I, nil
}

// decodeStoredRow decodes a stored view row from its key's row part k (the
// key after the store's id) and its value: its count and the row.
func decodeStoredRow(id string, k, val []byte) (int64, types.Row, error) {
	count, err := decodeMatRow(id, val)
	if err != nil {
		return 0, nil, err
	}
	r, rest, err := state.DecodeRow(k)
	if err != nil || len(rest) > 0 {
		return 0, nil, errCorrupt(id)
	}
	return count, r, nil
}
