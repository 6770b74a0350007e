package exec

import (
	"fmt"
	"slices"
	"sort"
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TopN is the keyed Top-N (planner.TopN): per partition it keeps the best
// rows by the ORDER BY of a ROW_NUMBER(), RANK() or DENSE_RANK() OVER
// (PARTITION BY k…) and maintains, as an updating view, those whose rank
// is at most the limit, with their rank in the rank column. After each
// input batch it compares every partition the batch touched with what it
// emitted before and emits the difference: deletes first (a displaced
// row, or a row whose rank moved, with its old rank), then inserts.
//
// Ties in ORDER BY are broken by the rows' other columns (ranker), so the
// rows kept never depend on arrival order, parallelism or restarts.
//
// State: per partition a sorted slice of rows. Over an append-only input it holds
// at most Limit rows (RANK and DENSE_RANK also the rows tied with the last
// kept rank); over a retracting input (KeepAll) it holds every live input
// row of the partition, so a retracted top row gives way to the next. A
// checkpoint writes the partitions changed since the previous one, one
// key each (the partition columns), and deletes the emptied ones. With a
// store and a state budget or memory share, partitions past it leave
// memory whole (topn_spill.go) and come back when their next row arrives.
type TopN struct {
	ranker
	id      string
	n       *planner.TopN
	keepAll bool
	out     Output
	keep    func(key types.Row) bool
	parts   map[string]*keyedPart
	// gone are the keys of emptied partitions a checkpoint wrote.
	gone   map[string]bool
	keyBuf []byte

	store  *state.Store
	budget int
	mem    *memShare // its share of the memory budget, or nil
	spill  spillArea
	// onDisk: partitions not in parts may be in Badger (restored lazily,
	// or evicted whole).
	onDisk bool
}

// keyedPart is one partition of a TopN: its rows, sorted.
type keyedPart struct {
	rows      []types.Row
	dirty     bool // changed since the last checkpoint
	persisted bool // a checkpoint holds it
}

// TopNConfig configures a TopN.
type TopNConfig struct {
	ID   string // state key prefix, unique per operator
	Node *planner.TopN
	// KeepAll keeps every row of a partition: the input retracts.
	KeepAll bool
	Out     Output
	// Keep is the restore filter of a parallel instance (nil: all).
	Keep func(key types.Row) bool
	// Store with Budget or Memory enables spilling: at most Budget
	// partitions (0: no cap), and no more than fit in Memory's bytes
	// (nil: no share), stay in memory.
	Store  *state.Store
	Budget int
	Memory *MemoryBudget
}

// NewTopN returns the operator for c.Node.
func NewTopN(c TopNConfig) *TopN {
	t := &TopN{ranker: ranker{fn: c.Node.Fn, order: c.Node.Order, limit: c.Node.Limit},
		id: c.ID, n: c.Node, keepAll: c.KeepAll, out: c.Out, keep: c.Keep, parts: map[string]*keyedPart{},
		gone: map[string]bool{}, spill: newSpillArea(c.Store, c.ID)}
	if c.Store != nil && (c.Budget > 0 || c.Memory != nil) {
		t.store, t.budget, t.mem = c.Store, c.Budget, c.Memory.join()
	}
	return t
}

// Process implements Operator: apply the batch's inserts and retractions
// to their partitions, then emit how each touched partition's ranked rows
// changed.
func (t *TopN) Process(_ int, b *Batch) error {
	before := map[string][]rankedRow{}
	var touched []string
	for i, r := range b.Rows {
		t.keyBuf = state.AppendKeyCols(t.keyBuf[:0], r, t.n.Partition)
		p, err := t.part(t.keyBuf)
		if err != nil {
			return err
		}
		if p == nil {
			if b.Diff(i) < 0 {
				continue // nothing to retract from
			}
			p = t.create(string(t.keyBuf))
		} else if b.Diff(i) > 0 && t.beyond(p, r) {
			continue
		}
		if _, ok := before[string(t.keyBuf)]; !ok {
			k := string(t.keyBuf)
			before[k] = t.ranked(p.rows)
			touched = append(touched, k)
		}
		if b.Diff(i) < 0 {
			p.dirty = t.remove(p, r) || p.dirty
		} else {
			p.dirty = t.insert(p, r) || p.dirty
		}
	}
	if err := t.emit(touched, before); err != nil {
		return err
	}
	return t.evict()
}

// part returns the partition stored under key, loading it from Badger
// when it is not in memory; nil when there is none.
func (t *TopN) part(key []byte) (*keyedPart, error) {
	if p, ok := t.parts[string(key)]; ok || !t.onDisk {
		return p, nil
	}
	return t.load(string(key))
}

// create adds an empty partition under k; when a checkpoint holds k's
// emptied partition, the new one will overwrite it.
func (t *TopN) create(k string) *keyedPart {
	p := &keyedPart{}
	if t.gone[k] {
		p.persisted = true
		delete(t.gone, k)
	}
	t.parts[k] = p
	return p
}

// beyond reports whether r, inserted over an append-only input, would
// rank past ROW_NUMBER's limit of the full partition p: it changes
// nothing.
func (t *TopN) beyond(p *keyedPart, r types.Row) bool {
	return !t.keepAll && t.fn == "row_number" && int64(len(p.rows)) >= t.limit && t.limit > 0 &&
		!t.less(r, p.rows[t.limit-1])
}

// insert places r in p's sorted rows and, over an append-only input,
// trims what ranks past the limit; it reports whether p changed.
func (t *TopN) insert(p *keyedPart, r types.Row) bool {
	i := sort.Search(len(p.rows), func(j int) bool { return t.less(r, p.rows[j]) })
	if !t.keepAll && int64(i) >= t.limit && t.fn == "row_number" {
		return false
	}
	p.rows = slices.Insert(p.rows, i, append(types.Row(nil), r...))
	if t.keepAll {
		return true
	}
	keep := t.kept(p.rows)
	changed := keep > i
	clear(p.rows[keep:])
	p.rows = p.rows[:keep]
	return changed
}

// remove takes one copy of r out of p's rows; it reports whether p held
// it.
func (t *TopN) remove(p *keyedPart, r types.Row) bool {
	i := sort.Search(len(p.rows), func(j int) bool { return t.cmp(p.rows[j], r) >= 0 })
	if i == len(p.rows) || t.cmp(p.rows[i], r) != 0 {
		return false
	}
	p.rows = slices.Delete(p.rows, i, i+1)
	return true
}

// rankedRow is a stored row the view holds and its rank.
type rankedRow struct {
	row  types.Row
	rank int64
}

// ranked is the rows the view holds for sorted rows: those within the
// limit, with their rank, in the rows' order.
func (t *TopN) ranked(rows []types.Row) []rankedRow {
	out := make([]rankedRow, 0, min(len(rows), int(max(t.limit, 0))))
	rank, dense := int64(0), int64(0)
	for i, r := range rows {
		if i == 0 || t.orderCmp(rows[i-1], r) != 0 {
			rank, dense = int64(i)+1, dense+1
		}
		v := int64(i) + 1
		switch t.fn {
		case "rank":
			v = rank
		case "dense_rank":
			v = dense
		}
		if v > t.limit {
			break
		}
		out = append(out, rankedRow{row: r, rank: v})
	}
	return out
}

// emit sends, for every touched partition, the ranked rows it no longer
// holds (or holds with another rank) as deletes and the ones it newly
// holds as inserts, and forgets the partitions left empty.
func (t *TopN) emit(touched []string, before map[string][]rankedRow) error {
	out := &Batch{}
	var ins []types.Row
	for _, k := range touched {
		p := t.parts[k]
		ins = t.diff(out, ins, before[k], t.ranked(p.rows))
		if len(p.rows) == 0 {
			delete(t.parts, k)
			t.spill.forget(k)
			if p.persisted {
				t.gone[k] = true
			}
		}
	}
	for _, r := range ins {
		out.Rows, out.Diffs = append(out.Rows, r), append(out.Diffs, 1)
	}
	if len(out.Rows) == 0 {
		return nil
	}
	return t.out.Emit(out)
}

// diff merges old and now (both in the stored rows' order) and appends
// the rows of old that now lacks, or ranks differently, to out as
// deletes, and returns ins with the rows of now that old lacks appended.
func (t *TopN) diff(out *Batch, ins []types.Row, old, now []rankedRow) []types.Row {
	i, j := 0, 0
	for i < len(old) || j < len(now) {
		c := -1
		switch {
		case i == len(old):
			c = 1
		case j < len(now):
			c = t.cmp(old[i].row, now[j].row)
		}
		if c == 0 && old[i].rank == now[j].rank {
			i, j = i+1, j+1
			continue
		}
		if c <= 0 {
			out.Rows, out.Diffs = append(out.Rows, t.withRank(old[i])), append(out.Diffs, -1)
			i++
		}
		if c >= 0 {
			ins = append(ins, t.withRank(now[j]))
			j++
		}
	}
	return ins
}

// withRank is a copy of r's row with its rank in the rank column.
func (t *TopN) withRank(r rankedRow) types.Row {
	row := append(types.Row(nil), r.row...)
	row[t.n.RankCol] = types.IntValue(r.rank)
	return row
}

// Watermark implements Operator: the rows do not wait for event time;
// the watermark passes on.
func (t *TopN) Watermark(_ int, wm int64) error { return t.out.EmitWatermark(wm) }

// Tick implements Operator (nothing runs on the wall clock).
func (t *TopN) Tick(int64) error { return nil }

// Checkpoint implements Stateful: deletes for the emptied partitions a
// checkpoint wrote, then every partition changed since, its rows as one
// value: the evicted ones from the spill area, the others from memory.
func (t *TopN) Checkpoint(w *state.Writer) error {
	for k := range t.gone {
		if err := w.Delete([]byte(t.id + k)); err != nil {
			return err
		}
	}
	clear(t.gone)
	if err := t.checkpointSpilled(w); err != nil {
		return err
	}
	for k, p := range t.parts {
		if !p.dirty {
			continue
		}
		if err := w.Set([]byte(t.id+k), state.EncodeValue(p.rows...)); err != nil {
			return err
		}
		p.dirty, p.persisted = false, true
	}
	return t.spill.clear(w)
}

// Restore implements Stateful: reload the partitions this instance owns.
// A spilling Top-N reads nothing: a partition comes into memory from the
// checkpoint when its next row arrives (lazy), so a restart costs no time
// per stored partition.
func (t *TopN) Restore(s *state.Store) error {
	if t.store != nil {
		t.onDisk = true
		return nil
	}
	return s.ScanOwned([]byte(t.id), t.owns, func(key, val []byte) error {
		rows, err := t.decodeRows(val)
		if err != nil {
			return err
		}
		t.parts[string(key[len(t.id):])] = &keyedPart{rows: rows, persisted: true}
		return nil
	})
}

// decodeRows decodes a checkpointed partition's rows.
func (t *TopN) decodeRows(val []byte) ([]types.Row, error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.id, err)
	}
	if len(rows) == 0 || len(rows[0]) <= t.n.RankCol {
		return nil, errCorrupt(t.id)
	}
	return rows, nil
}

// owns reports whether this instance keeps the partition stored under
// key, from the key alone.
func (t *TopN) owns(key []byte) (bool, error) {
	if t.keep == nil {
		return true, nil
	}
	k, err := state.DecodeKeys(key[len(t.id):])
	if err != nil {
		return false, fmt.Errorf("%s: %w", t.id, err)
	}
	return t.keep(k), nil
}

// StateKeys implements stateSizer: the partitions in memory.
func (t *TopN) StateKeys() int64 { return int64(len(t.parts)) }

// stateSize implements stateMeasurer: the partitions in memory, their
// estimated bytes (the mean of a sample of them times their number) and
// the spill area's.
func (t *TopN) stateSize() StateSize {
	return t.spill.size(t.StateKeys(), t.mem.bytes(t.StateKeys(), t.meanBytes))
}

// meanBytes is the mean in-memory size of up to sizeSample partitions:
// the map entry, the partition and its rows.
func (t *TopN) meanBytes() int64 {
	var s sampler
	for k, p := range t.parts {
		if s.full() {
			break
		}
		n := keyBytes(k) + 8 + allocBytes(int64(unsafe.Sizeof(*p))) + allocBytes(int64(cap(p.rows))*24)
		for _, r := range p.rows {
			n += rowBytes(r)
		}
		s.add(int(n))
	}
	return s.times(1)
}
