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
// partition, in memory; a checkpoint writes the partitions changed since
// the previous one, one key each (the partition columns), and deletes the ones dropped. State is bounded by Limit × open
// windows × partitions. It does not spill: each partition is at most
// Limit rows.
type WindowTopN struct {
	ranker
	id    string
	n     *planner.WindowTopN
	out   Output
	late  *lateness.Counters
	keep  func(key types.Row) bool
	wm    int64
	parts map[string]*topNPart
	byEnd map[int64][]string // open partitions' keys by window_end
	// gone are the keys of dropped partitions a checkpoint wrote.
	gone   []string
	keyBuf []byte
}

// topNPart is one window and partition: its best rows, sorted.
type topNPart struct {
	end       int64
	rows      []types.Row
	dirty     bool // changed since the last checkpoint
	persisted bool // a checkpoint holds it
}

// WindowTopNConfig configures a WindowTopN.
type WindowTopNConfig struct {
	ID   string // state key prefix, unique per operator
	Node *planner.WindowTopN
	Out  Output
	Late *lateness.Counters
	// Keep is the restore filter of a parallel instance (nil: all).
	Keep func(key types.Row) bool
}

// NewWindowTopN returns the operator for c.Node.
func NewWindowTopN(c WindowTopNConfig) *WindowTopN {
	return &WindowTopN{ranker: ranker{fn: c.Node.Fn, order: c.Node.Order, limit: c.Node.Limit}, id: c.ID, n: c.Node, out: c.Out, late: c.Late, keep: c.Keep,
		wm: types.MinTime, parts: map[string]*topNPart{}, byEnd: map[int64][]string{}}
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
		t.add(r, end.I)
	}
	return nil
}

// add puts row r into the partition of window end.
func (t *WindowTopN) add(r types.Row, end int64) {
	t.keyBuf = state.AppendKeyCols(t.keyBuf[:0], r, t.n.Partition)
	p, ok := t.parts[string(t.keyBuf)]
	if !ok {
		k := string(t.keyBuf)
		p = &topNPart{end: end}
		t.parts[k] = p
		t.byEnd[end] = append(t.byEnd[end], k)
	}
	if t.insert(p, r) {
		p.dirty = true
	}
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
		p := t.parts[k]
		for i, r := range p.rows {
			row := append(types.Row(nil), r...)
			row[t.n.RankCol] = types.IntValue(t.rankAt(p.rows, i))
			out.Rows = append(out.Rows, row)
		}
		delete(t.parts, k)
		if p.persisted {
			t.gone = append(t.gone, k)
		}
	}
	return t.out.Emit(out)
}

// Tick implements Operator (nothing runs on the wall clock).
func (t *WindowTopN) Tick(int64) error { return nil }

// Checkpoint implements Stateful: deletes for the dropped partitions a
// checkpoint wrote, then every partition changed since, its rows as one
// value.
func (t *WindowTopN) Checkpoint(w *state.Writer) error {
	err := writeParts(w, t.id, t.gone, t.parts, func(p *topNPart) bool { return p.dirty },
		func(p *topNPart) []types.Row { return p.rows },
		func(p *topNPart) { p.dirty, p.persisted = false, true })
	t.gone = t.gone[:0]
	return err
}

// Restore implements Stateful: reload the partitions this instance owns.
func (t *WindowTopN) Restore(s *state.Store) error {
	return s.ScanOwned([]byte(t.id), t.owns, func(key, val []byte) error {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return fmt.Errorf("%s: %w", t.id, err)
		}
		if len(rows) == 0 || len(rows[0]) <= t.n.EndCol || len(rows[0]) <= t.n.RankCol {
			return errCorrupt(t.id)
		}
		k := string(key[len(t.id):])
		end := rows[0][t.n.EndCol].I
		t.parts[k] = &topNPart{end: end, rows: rows, persisted: true}
		t.byEnd[end] = append(t.byEnd[end], k)
		return nil
	})
}

// owns reports whether this instance keeps the partition stored under
// key, from the key alone (its values in key form, which Owner hashes
// alike).
func (t *WindowTopN) owns(key []byte) (bool, error) { return ownsStored(t.keep, t.id, key) }

// StateKeys implements stateSizer: the open (window, partition) pairs.
func (t *WindowTopN) StateKeys() int64 { return int64(len(t.parts)) }

// stateSize implements stateMeasurer: the open (window, partition) pairs
// and their estimated bytes in memory (the mean of a sample of them times
// their number); nothing spills.
func (t *WindowTopN) stateSize() StateSize {
	return sampledParts(t.parts, func(k string, p *topNPart) int64 {
		n := keyBytes(k) + 8 + int64(unsafe.Sizeof(*p))
		for _, r := range p.rows {
			n += rowBytes(r)
		}
		return n
	})
}
