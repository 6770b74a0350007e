package exec

import (
	"fmt"
	"slices"
	"sort"
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// WindowTopN is the window Top-N (planner.WindowTopN): per window and
// partition it keeps the best rows by the ORDER BY of a ROW_NUMBER(),
// RANK() or DENSE_RANK() OVER (PARTITION BY window_start, window_end …),
// and when the watermark reaches the window's end it emits those whose
// rank is at most the limit, the rank in the rank column, then drops the
// window. Output rows are inserts only and final.
//
// Ties in ORDER BY are broken by the rows' other columns, in column
// order, so ROW_NUMBER picks the same rows whatever the arrival order,
// parallelism or restarts. A row whose window_end the watermark in force
// when it arrived had reached is late: it is dropped and counted (LATE
// DATA DROP; over a window aggregate no row is ever late, its rows come
// out before the watermark passes their window).
//
// State: a sorted slice of at most Limit rows (RANK and DENSE_RANK also
// keep the rows tied with the last kept rank) per open window and
// partition, bounded by Limit × open windows × partitions. They live in
// a partStore (parts_spill.go): at most state_cache_size of them, and no
// more than fit in the operator's share of memory_limit, stay in memory
// after each batch and after each partition a closing window emits; the
// others leave memory whole (to the spill area when changed since the
// last checkpoint) and come back when a row of theirs arrives or their
// window closes. Memory keeps every open partition's key by window end
// (byEnd), to find the partitions a watermark closes: a key per open
// (window, partition). A checkpoint writes the partitions changed since
// the previous one, one key each (the partition columns), and deletes the
// ones dropped.
type WindowTopN struct {
	ranker
	id     string
	n      *planner.WindowTopN
	out    Output
	late   *lateness.Counters
	wm     int64
	store  *partStore[*topNPart]
	byEnd  map[int64][]string // open partitions' keys by window_end
	keyBuf []byte
}

// topNPart is one window and partition: its best rows, sorted.
type topNPart struct {
	end  int64
	rows []types.Row
	partState
}

// WindowTopNConfig configures a WindowTopN.
type WindowTopNConfig struct {
	ID   string // state key prefix, unique per operator
	Node *planner.WindowTopN
	Out  Output
	Late *lateness.Counters
	// Keep is the restore filter of a parallel instance (nil: all).
	Keep func(key types.Row) bool
	// Store with Budget or Memory lets partitions spill: at most Budget
	// of them (0: no cap), and no more than fit in Memory's bytes (nil:
	// no share), stay in memory.
	Store  *state.Store
	Budget int
	Memory *MemoryBudget
}

// NewWindowTopN returns the operator for c.Node.
func NewWindowTopN(c WindowTopNConfig) *WindowTopN {
	t := &WindowTopN{ranker: ranker{fn: c.Node.Fn, order: c.Node.Order, limit: c.Node.Limit}, id: c.ID, n: c.Node, out: c.Out, late: c.Late,
		wm: types.MinTime, byEnd: map[int64][]string{}}
	t.store = newPartStore(partStoreConfig{ID: c.ID, Keep: c.Keep, Store: c.Store, Budget: c.Budget, Memory: c.Memory},
		partCodec[*topNPart]{encode: func(p *topNPart) []types.Row { return p.rows }, decode: t.decodePart, size: t.partBytes})
	return t
}

// Process implements Operator: each row joins its window's partition
// unless that window has closed.
func (t *WindowTopN) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		if b.Diff(i) < 0 {
			return fmt.Errorf("window Top-N %s: input retracted a row", t.id)
		}
		end := r[t.n.EndCol]
		if end.K == types.Null {
			continue
		}
		wm := t.wm
		if b.WM != nil {
			wm = max(wm, b.WM[i])
		}
		if end.I <= wm {
			if t.late != nil {
				t.late.Add(lateness.Drop, "late", 1)
			}
			continue
		}
		if err := t.add(r, end.I); err != nil {
			return err
		}
	}
	return t.store.evict()
}

// add puts row r into the partition of window end.
func (t *WindowTopN) add(r types.Row, end int64) error {
	t.keyBuf = state.AppendKeyCols(t.keyBuf[:0], r, t.n.Partition)
	p, ok, err := t.store.get(t.keyBuf)
	if err != nil {
		return err
	}
	if !ok {
		k := string(t.keyBuf)
		p = &topNPart{end: end}
		t.store.put(k, p)
		t.byEnd[end] = append(t.byEnd[end], k)
	}
	if t.insert(p, r) {
		p.dirty = true
	}
	return nil
}

// insert places r in p's sorted rows and trims what ranks past the
// limit; it reports whether p changed.
func (t *WindowTopN) insert(p *topNPart, r types.Row) bool {
	i := sort.Search(len(p.rows), func(j int) bool { return t.less(r, p.rows[j]) })
	if int64(i) >= t.limit && t.fn == "row_number" {
		return false
	}
	p.rows = slices.Insert(p.rows, i, append(types.Row(nil), r...))
	keep := t.kept(p.rows)
	changed := keep > i
	for j := keep; j < len(p.rows); j++ {
		p.rows[j] = nil
	}
	p.rows = p.rows[:keep]
	return changed
}

// Watermark implements Operator: emit and drop every window whose end
// wm reached, in end order, forwarding the watermark after each so
// downstream sees a window's rows before event time passes it.
func (t *WindowTopN) Watermark(_ int, wm int64) error {
	if wm <= t.wm {
		return nil
	}
	t.wm = wm
	var ends []int64
	for e := range t.byEnd {
		if e <= wm {
			ends = append(ends, e)
		}
	}
	slices.Sort(ends)
	for _, e := range ends {
		if err := t.close(e); err != nil {
			return err
		}
		if err := t.out.EmitWatermark(e); err != nil {
			return err
		}
	}
	return t.out.EmitWatermark(wm)
}

// close emits the ranked rows of every partition of window end and drops
// them.
func (t *WindowTopN) close(end int64) error {
	keys := t.byEnd[end]
	delete(t.byEnd, end)
	slices.Sort(keys)
	out := &Batch{}
	for _, k := range keys {
		t.keyBuf = append(t.keyBuf[:0], k...)
		p, ok, err := t.store.get(t.keyBuf)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		for i, r := range p.rows {
			row := append(types.Row(nil), r...)
			row[t.n.RankCol] = types.IntValue(t.rankAt(p.rows, i))
			out.Rows = append(out.Rows, row)
		}
		t.store.drop(k, p)
		if err := t.store.evict(); err != nil {
			return err
		}
	}
	return t.out.Emit(out)
}

// Tick implements Operator (nothing runs on the wall clock).
func (t *WindowTopN) Tick(int64) error { return nil }

// Checkpoint implements Stateful: deletes for the dropped partitions a
// checkpoint wrote, then every partition changed since (in memory or
// spilled), its rows as one value.
func (t *WindowTopN) Checkpoint(w *state.Writer) error { return t.store.checkpoint(w) }

// decodePart makes a partition back from its stored rows.
func (t *WindowTopN) decodePart(_ string, rows []types.Row) (*topNPart, error) {
	if len(rows) == 0 || len(rows[0]) <= t.n.EndCol || len(rows[0]) <= t.n.RankCol {
		return nil, errCorrupt(t.id)
	}
	return &topNPart{end: rows[0][t.n.EndCol].I, rows: rows}, nil
}

// Restore implements Stateful: reload the partitions this instance owns,
// indexing each by its window's end, and evict down to the limit as they
// come (so a restore reads every partition once).
func (t *WindowTopN) Restore(s *state.Store) error {
	return t.store.restore(s, func(k string, p *topNPart) error {
		t.byEnd[p.end] = append(t.byEnd[p.end], k)
		return nil
	})
}

// StateKeys implements stateSizer: the open (window, partition) pairs in
// memory.
func (t *WindowTopN) StateKeys() int64 { return int64(t.store.resident()) }

// stateSize implements stateMeasurer: the open (window, partition) pairs
// in memory and their estimated bytes (the mean of a sample of them times
// their number), and the spill area's bytes and reads.
func (t *WindowTopN) stateSize() StateSize { return t.store.stateSize() }

// partBytes estimates partition p of key k in memory, its key in byEnd
// included.
func (t *WindowTopN) partBytes(k string, p *topNPart) int64 {
	n := keyBytes(k) + 8 + int64(unsafe.Sizeof(*p)) + stringBytes
	for _, r := range p.rows {
		n += rowBytes(r)
	}
	return n
}

func (t *WindowTopN) releaseMemory() { t.store.release() }
