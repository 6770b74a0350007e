package exec

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// OverAggregate is the running aggregate over an event-time order
// (planner.OverAggregate, Flink's OVER aggregation): per partition it
// buffers rows until the watermark passes their ts, then emits them in
// ts order, each followed by the aggregates of its frame. Output rows are
// inserts only and final.
//
// Rows with equal ts (peers) are ordered by their other columns, in
// column order, so a ROWS frame picks the same rows whatever the arrival
// order, parallelism or restarts; a RANGE frame includes every peer of
// the current row, as in Postgres. A row whose ts the watermark in force
// when it arrived had passed is late: it is dropped and counted. A row
// whose ts is NULL has no place in the order and is skipped.
//
// State, per partition: the rows the watermark has not passed, and the
// emitted rows the frame still reaches (the last n rows for ROWS n
// PRECEDING, the rows within the interval of the newest for RANGE), or
// for UNBOUNDED PRECEDING one accumulator per call. The partitions live
// in a partStore (parts_spill.go): at most state_cache_size of them, and
// no more than fit in the operator's share of memory_limit, stay in
// memory after each batch and after each partition a watermark fires;
// the others leave memory whole (to the spill area when changed since
// the last checkpoint) and come back when a row of theirs arrives or the
// watermark passes their buffered rows. Memory keeps the keys of the
// partitions with buffered rows (waiting), bounded by the partitions
// active within the watermark delay. A checkpoint writes each partition
// changed since the previous one under one key (the partition columns).
// Under STATE TTL a partition with no buffered rows is dropped once the
// watermark passes its newest row by the TTL (swept every half TTL of
// event time, evicted partitions read in place); otherwise partitions
// are unbounded.
type OverAggregate struct {
	id    string
	n     *planner.OverAggregate
	out   Output
	late  *lateness.Counters
	order ranker
	wm    int64
	store *partStore[*overPart]
	// waiting are the keys of the partitions with buffered rows.
	waiting map[string]bool
	// swept is the watermark of the last STATE TTL sweep.
	swept  int64
	keyBuf []byte
}

// overPart is one partition's state.
type overPart struct {
	pending []types.Row // rows the watermark has not passed, unsorted
	frame   []types.Row // emitted rows the frame still reaches, in order
	accs    accs        // UNBOUNDED PRECEDING: the running aggregates
	last    int64       // the newest emitted row's ts (STATE TTL)
	partState
}

// OverAggregateConfig configures an OverAggregate.
type OverAggregateConfig struct {
	ID   string // state key prefix, unique per operator
	Node *planner.OverAggregate
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

// NewOverAggregate returns the operator for c.Node.
func NewOverAggregate(c OverAggregateConfig) *OverAggregate {
	o := &OverAggregate{id: c.ID, n: c.Node, out: c.Out, late: c.Late,
		order: ranker{order: []planner.SortKey{{Col: c.Node.TimeCol}}},
		wm:    types.MinTime, swept: types.MinTime, waiting: map[string]bool{}}
	o.store = newPartStore(partStoreConfig{ID: c.ID, Keep: c.Keep, Store: c.Store, Budget: c.Budget, Memory: c.Memory},
		partCodec[*overPart]{encode: o.encodePart, decode: o.decodePart, size: o.partBytes})
	return o
}

// Process implements Operator: each on-time row waits in its partition
// for the watermark.
func (o *OverAggregate) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		if b.Diff(i) < 0 {
			return fmt.Errorf("running aggregate %s: input retracted a row", o.id)
		}
		ts := r[o.n.TimeCol]
		if ts.IsNull() {
			continue
		}
		wm := o.wm
		if b.WM != nil {
			wm = max(wm, b.WM[i])
		}
		if ts.I < wm {
			if o.late != nil {
				o.late.Add(lateness.Drop, "late", 1)
			}
			continue
		}
		o.keyBuf = state.AppendKeyCols(o.keyBuf[:0], r, o.n.Partition)
		p, err := o.part()
		if err != nil {
			return err
		}
		p.pending = append(p.pending, append(types.Row(nil), r...))
		p.dirty = true
		o.waiting[string(o.keyBuf)] = true
	}
	return o.store.evict()
}

// part returns the partition of key o.keyBuf, loaded when it left memory,
// made when absent.
func (o *OverAggregate) part() (*overPart, error) {
	p, ok, err := o.store.get(o.keyBuf)
	if ok || err != nil {
		return p, err
	}
	p = &overPart{}
	if o.n.Unbounded {
		p.accs = newAccs(o.n.Aggs)
	}
	o.store.put(string(o.keyBuf), p)
	return p, nil
}

// Watermark implements Operator: emit every buffered row wm passed, per
// partition in ts order, then forward the watermark.
func (o *OverAggregate) Watermark(_ int, wm int64) error {
	if wm <= o.wm {
		return nil
	}
	o.wm = wm
	keys := make([]string, 0, len(o.waiting))
	for k := range o.waiting {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := &Batch{}
	for _, k := range keys {
		o.keyBuf = append(o.keyBuf[:0], k...)
		p, err := o.part()
		if err != nil {
			return err
		}
		o.fire(p, wm, out)
		if len(p.pending) == 0 {
			delete(o.waiting, k)
		}
		if err := o.store.evict(); err != nil {
			return err
		}
	}
	if err := o.sweep(wm); err != nil {
		return err
	}
	if len(out.Rows) > 0 {
		if err := o.out.Emit(out); err != nil {
			return err
		}
	}
	return o.out.EmitWatermark(wm)
}

// sweep drops, under STATE TTL, the partitions with no buffered rows
// whose newest row the watermark has passed by the TTL. It runs once the
// watermark has moved half a TTL since the last sweep, so a partition
// outlives its TTL by at most half of it and a sweep's cost is spread
// over that much event time. Evicted partitions are read in place.
func (o *OverAggregate) sweep(wm int64) error {
	ttl := o.n.TTL
	if ttl <= 0 || o.swept != types.MinTime && wm-o.swept < max(ttl/2, 1) {
		return nil
	}
	o.swept = wm
	return o.store.visit(func(k string, p *overPart) error {
		if len(p.pending) == 0 && p.last <= wm-ttl {
			o.store.drop(k, p)
		}
		return nil
	})
}

// fire emits p's buffered rows whose ts wm passed, in order, each with
// its frame's aggregates.
func (o *OverAggregate) fire(p *overPart, wm int64, out *Batch) {
	var ready []types.Row
	rest := p.pending[:0]
	for _, r := range p.pending {
		if r[o.n.TimeCol].I < wm {
			ready = append(ready, r)
		} else {
			rest = append(rest, r)
		}
	}
	clear(p.pending[len(rest):])
	p.pending = rest
	if len(ready) == 0 {
		return
	}
	p.dirty = true
	slices.SortFunc(ready, o.order.cmp)
	p.last = ready[len(ready)-1][o.n.TimeCol].I
	for i := 0; i < len(ready); {
		j := i + 1
		for j < len(ready) && ready[j][o.n.TimeCol].I == ready[i][o.n.TimeCol].I {
			j++
		}
		if o.n.Rows {
			for _, r := range ready[i:j] {
				out.Rows = append(out.Rows, o.advance(p, r))
			}
		} else {
			o.advanceRange(p, ready[i:j], out)
		}
		i = j
	}
}

// advance moves a ROWS frame on by row r and returns r with its
// aggregates.
func (o *OverAggregate) advance(p *overPart, r types.Row) types.Row {
	if o.n.Unbounded {
		p.accs.add(o.n.Aggs, r)
		return withResults(r, p.accs)
	}
	p.frame = append(p.frame, r)
	vals := o.fold(p.frame)
	if drop := len(p.frame) - int(o.n.Preceding); drop > 0 {
		clear(p.frame[:drop])
		p.frame = p.frame[drop:]
	}
	return withResults(r, vals)
}

// advanceRange moves a RANGE frame on by peers, the rows of one ts, and
// emits each with the aggregates of the frame ending at that ts.
func (o *OverAggregate) advanceRange(p *overPart, peers []types.Row, out *Batch) {
	var vals accs
	if o.n.Unbounded {
		for _, r := range peers {
			p.accs.add(o.n.Aggs, r)
		}
		vals = p.accs
	} else {
		p.frame = append(p.frame, peers...)
		from := peers[0][o.n.TimeCol].I - o.n.Preceding
		drop := 0
		for drop < len(p.frame) && p.frame[drop][o.n.TimeCol].I < from {
			drop++
		}
		clear(p.frame[:drop])
		p.frame = p.frame[drop:]
		vals = o.fold(p.frame)
	}
	for _, r := range peers {
		out.Rows = append(out.Rows, withResults(r, vals))
	}
}

// fold aggregates rows afresh.
func (o *OverAggregate) fold(rows []types.Row) accs {
	a := newAccs(o.n.Aggs)
	for _, r := range rows {
		a.add(o.n.Aggs, r)
	}
	return a
}

// withResults is r followed by the results of a: a running aggregate's
// output row (OverAggregate and OverUpdate).
func withResults(r types.Row, a accs) types.Row {
	row := make(types.Row, len(r), len(r)+len(a))
	copy(row, r)
	for _, x := range a {
		row = append(row, x.result())
	}
	return row
}

// Tick implements Operator (nothing runs on the wall clock).
func (o *OverAggregate) Tick(int64) error { return nil }

// Checkpoint implements Stateful: deletes for the dropped partitions a
// checkpoint wrote, then every partition changed since (in memory or
// spilled).
func (o *OverAggregate) Checkpoint(w *state.Writer) error { return o.store.checkpoint(w) }

// encodePart is partition p's stored value: a header row (pending and
// frame counts, the newest emitted ts), the pending rows, the frame rows,
// then the accumulators' states (UNBOUNDED PRECEDING).
func (o *OverAggregate) encodePart(p *overPart) []types.Row {
	rows := make([]types.Row, 0, 1+len(p.pending)+len(p.frame)+len(p.accs))
	rows = append(rows, types.Row{types.IntValue(int64(len(p.pending))), types.IntValue(int64(len(p.frame))), types.TimestampValue(p.last)})
	rows = append(rows, p.pending...)
	rows = append(rows, p.frame...)
	return append(rows, p.accs.encode()...)
}

// Restore implements Stateful: reload the partitions this instance owns,
// evicting down to the limit as they come (so a restore reads every
// partition once).
func (o *OverAggregate) Restore(s *state.Store) error {
	return o.store.restore(s, func(k string, p *overPart) error {
		if len(p.pending) > 0 {
			o.waiting[k] = true
		}
		return nil
	})
}

// decodePart rebuilds a partition from the rows encodePart gave.
func (o *OverAggregate) decodePart(_ string, rows []types.Row) (*overPart, error) {
	if len(rows) == 0 || len(rows[0]) != 3 {
		return nil, errCorrupt(o.id)
	}
	np, nf := int(rows[0][0].I), int(rows[0][1].I)
	na := 0
	if o.n.Unbounded {
		na = len(o.n.Aggs)
	}
	if np < 0 || nf < 0 || 1+np+nf+na != len(rows) {
		return nil, errCorrupt(o.id)
	}
	// Clipped: appending to one must not overwrite the next.
	p := &overPart{pending: slices.Clip(rows[1 : 1+np]), frame: slices.Clip(rows[1+np : 1+np+nf]), last: rows[0][2].I}
	if o.n.Unbounded {
		p.accs = newAccs(o.n.Aggs)
		if err := p.accs.decode(rows[1+np+nf:]); err != nil {
			return nil, fmt.Errorf("%s: %w", o.id, err)
		}
	}
	return p, nil
}

// StateKeys implements stateSizer: the partitions in memory.
func (o *OverAggregate) StateKeys() int64 { return int64(o.store.resident()) }

// stateSize implements stateMeasurer: the partitions in memory and their
// estimated bytes (the mean of a sample of them times their number), and
// the spill area's bytes and reads.
func (o *OverAggregate) stateSize() StateSize { return o.store.stateSize() }

// partBytes estimates partition p of key k in memory.
func (o *OverAggregate) partBytes(k string, p *overPart) int64 {
	n := keyBytes(k) + int64(unsafe.Sizeof(*p)) + accsBytes(p.accs)
	for _, r := range p.pending {
		n += rowBytes(r)
	}
	for _, r := range p.frame {
		n += rowBytes(r)
	}
	return n
}

func (o *OverAggregate) releaseMemory() { o.store.release() }
