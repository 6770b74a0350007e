package exec

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// OverUpdate is the updating form of the running aggregate
// (planner.OverAggregate in a view without EMIT ON WINDOW CLOSE): each
// row comes out at once with the aggregates of its frame over the rows
// seen so far. A row that lands before others of its partition in the
// order (out of order within the watermark delay), and a delete from a
// retracting input, change the frames of the rows after it: each such
// row whose aggregates changed is retracted and re-emitted. Rows are
// ordered as in OverAggregate (ts, then every column), so a view's final
// state is the batch answer over its final input whatever the arrival
// order.
//
// Corrections are per batch: the batch's changes to a partition are
// applied first, then the rows their frames reach are recomputed once
// and only those whose aggregates moved are re-emitted.
//
// State, in memory, per partition: its rows in order, each with the row
// last emitted for it. When the input is append-only and ordered by its
// watermark column (the operator "lets go"), a row whose ts the watermark
// passed is final (no on-time row can land before it) and is kept only
// while a later row's frame can reach it: the last n such rows for ROWS n
// PRECEDING, those within the interval of the watermark for RANGE,
// folded into one accumulator per call for UNBOUNDED PRECEDING. So a
// partition holds the rows within the watermark delay plus the frame;
// rows behind the watermark are late, dropped and counted. Otherwise
// (a retracting input, or an order column without a watermark) every
// row stays, since a delete can reach any of them. Partitions are
// unbounded unless STATE TTL: on event time (the watermark passes the
// partition's newest row by the TTL; its final rows stay in the view)
// when the operator lets go, else on the wall clock (a partition
// unchanged for the TTL is dropped and its rows retracted, as an
// Aggregate's groups are). A sweep visits every partition, the evicted
// ones read in place from Badger (partStore.visit).
//
// The partitions live in a partStore (parts_spill.go): at most
// state_cache_size of them, and no more than fit in the operator's share
// of memory_limit, stay in memory after each batch and after each
// partition a watermark visits; the others leave memory whole (to the
// spill area when changed since the last checkpoint) and come back when
// a row of theirs arrives or the watermark lets go of their rows. Memory
// keeps the keys of the partitions with rows the watermark has yet to
// pass (open), bounded by the partitions active within the watermark
// delay. A checkpoint writes each partition changed since the previous
// one under its key; restore, and a partition coming back, recompute the
// emitted rows.
type OverUpdate struct {
	id     string
	n      *planner.OverAggregate
	out    Output
	late   *lateness.Counters
	order  ranker
	letsGo bool
	wm     int64
	now    int64
	store  *partStore[*overUpdPart]
	// open are the partitions with rows the watermark has yet to pass
	// (when the operator lets go).
	open map[string]bool
	// touched are the partitions the current batch changed.
	touched []string
	swept   int64
	keyBuf  []byte
}

// overEntry is one input row and the row last emitted for it (nil before
// the first emission).
type overEntry struct {
	row, out types.Row
}

// overUpdPart is one partition's state.
type overUpdPart struct {
	rows []overEntry // in order
	base accs        // UNBOUNDED PRECEDING: the rows let go
	// lo and hi are the least and greatest ts the current batch changed.
	lo, hi  int64
	changed bool
	// last is the newest row's ts (event-time TTL) or the wall time of
	// the last change (wall-clock TTL).
	last int64
	partState
}

// NewOverUpdate returns the updating operator for c.Node.
func NewOverUpdate(c OverAggregateConfig, now int64) *OverUpdate {
	o := &OverUpdate{id: c.ID, n: c.Node, out: c.Out, late: c.Late,
		order:  ranker{order: []planner.SortKey{{Col: c.Node.TimeCol}}},
		letsGo: c.Node.LetsGo(), wm: types.MinTime, now: now, swept: types.MinTime,
		open: map[string]bool{}}
	o.store = newPartStore(partStoreConfig{ID: c.ID, Keep: c.Keep, Store: c.Store, Budget: c.Budget, Memory: c.Memory},
		partCodec[*overUpdPart]{encode: o.encodePart, decode: o.decodePart, size: o.partBytes})
	return o
}

func (o *OverUpdate) newPart() *overUpdPart {
	p := &overUpdPart{}
	if o.n.Unbounded {
		p.base = newAccs(o.n.Aggs)
	}
	return p
}

func (o *OverUpdate) ts(e overEntry) int64 { return e.row[o.n.TimeCol].I }

// find is the position of the first row of p not ordered before r, and
// whether it equals r.
func (o *OverUpdate) find(p *overUpdPart, r types.Row) (int, bool) {
	return slices.BinarySearchFunc(p.rows, r, func(e overEntry, r types.Row) int { return o.order.cmp(e.row, r) })
}

// from is the position of p's first row with ts at least t.
func (o *OverUpdate) from(p *overUpdPart, t int64) int {
	i, _ := slices.BinarySearchFunc(p.rows, t, func(e overEntry, t int64) int {
		return cmp.Compare(o.ts(e), t)
	})
	return i
}

// Process implements Operator: apply the batch's inserts and deletes,
// then correct the rows whose frames they reach.
func (o *OverUpdate) Process(_ int, b *Batch) error {
	out := &Batch{}
	o.touched = o.touched[:0]
	for i, r := range b.Rows {
		ts := r[o.n.TimeCol]
		if ts.IsNull() {
			continue
		}
		if o.letsGo {
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
		}
		o.keyBuf = state.AppendKeyCols(o.keyBuf[:0], r, o.n.Partition)
		p, ok, err := o.store.get(o.keyBuf)
		if err != nil {
			return err
		}
		if b.Diff(i) > 0 {
			if !ok {
				p = o.newPart()
				o.store.put(string(o.keyBuf), p)
			}
			at, _ := o.find(p, r)
			p.rows = slices.Insert(p.rows, at, overEntry{row: append(types.Row(nil), r...)})
		} else {
			if !ok {
				continue // a row it does not hold (dropped by STATE TTL)
			}
			at, ok := o.find(p, r)
			if !ok {
				continue
			}
			if old := p.rows[at].out; old != nil {
				out.Rows, out.Diffs = append(out.Rows, old), append(out.Diffs, -1)
			}
			clear(p.rows[at : at+1])
			p.rows = slices.Delete(p.rows, at, at+1)
		}
		if !p.changed {
			p.changed, p.lo, p.hi = true, ts.I, ts.I
			o.touched = append(o.touched, string(o.keyBuf))
		}
		p.lo, p.hi = min(p.lo, ts.I), max(p.hi, ts.I)
		p.dirty = true
		if o.letsGo {
			p.last = max(p.last, ts.I)
			o.open[string(o.keyBuf)] = true
		} else {
			p.last = o.now
		}
	}
	for _, k := range o.touched {
		p := o.store.parts[k]
		p.changed = false
		if err := o.correct(p, p.lo, p.hi, out); err != nil {
			return err
		}
		if len(p.rows) == 0 && !o.letsGo {
			o.drop(k, p)
		}
	}
	if len(out.Rows) > 0 {
		if err := o.out.Emit(out); err != nil {
			return err
		}
	}
	return o.store.evict()
}

// drop forgets partition k (in memory, or read in place by a sweep).
func (o *OverUpdate) drop(k string, p *overUpdPart) {
	o.store.drop(k, p)
	delete(o.open, k)
}

// correct recomputes the rows of p whose frames reach a row with ts in
// [lo, hi] and emits, for each whose aggregates moved, the retraction of
// its old row and its new row (out nil: only record them, as restore
// does).
func (o *OverUpdate) correct(p *overUpdPart, lo, hi int64, out *Batch) error {
	a := o.from(p, lo)
	z := len(p.rows)
	switch {
	case o.n.Unbounded:
	case o.n.Rows:
		z = min(z, o.from(p, hi+1)+int(o.n.Preceding))
	default:
		if end := hi + o.n.Preceding; end >= hi {
			z = o.from(p, end+1)
		}
	}
	if a >= z {
		return nil
	}
	set := func(j int, vals accs) {
		e := &p.rows[j]
		row := withResults(e.row, vals)
		if e.out != nil && rowsEqual(e.out, row) {
			return
		}
		if out != nil {
			if e.out != nil {
				out.Rows, out.Diffs = append(out.Rows, e.out), append(out.Diffs, -1)
			}
			out.Rows, out.Diffs = append(out.Rows, row), append(out.Diffs, 1)
		}
		e.out = row
	}
	if o.n.Unbounded {
		run, err := o.running(p, a)
		if err != nil {
			return err
		}
		for j := a; j < z; {
			k := j + 1
			if !o.n.Rows {
				for k < z && o.ts(p.rows[k]) == o.ts(p.rows[j]) {
					k++
				}
			}
			for _, e := range p.rows[j:k] {
				run.add(o.n.Aggs, e.row)
			}
			for i := j; i < k; i++ {
				set(i, run)
			}
			j = k
		}
		return nil
	}
	for j := a; j < z; j++ {
		var s, e int
		if o.n.Rows {
			s, e = max(0, j-int(o.n.Preceding)), j+1
		} else {
			t := o.ts(p.rows[j])
			s, e = o.from(p, t-o.n.Preceding), o.from(p, t+1)
		}
		vals := newAccs(o.n.Aggs)
		for _, x := range p.rows[s:e] {
			vals.add(o.n.Aggs, x.row)
		}
		set(j, vals)
	}
	return nil
}

// running is the UNBOUNDED PRECEDING aggregates of p's rows let go and
// its first a rows.
func (o *OverUpdate) running(p *overUpdPart, a int) (accs, error) {
	run := newAccs(o.n.Aggs)
	if err := run.decode(p.base.encode()); err != nil {
		return nil, fmt.Errorf("%s: %w", o.id, err)
	}
	for _, e := range p.rows[:a] {
		run.add(o.n.Aggs, e.row)
	}
	return run, nil
}

// Watermark implements Operator: let go of the rows no later change can
// reach, sweep STATE TTL on event time, forward the watermark.
func (o *OverUpdate) Watermark(_ int, wm int64) error {
	if wm <= o.wm {
		return nil
	}
	o.wm = wm
	if o.letsGo {
		for k := range o.open {
			o.keyBuf = append(o.keyBuf[:0], k...)
			p, ok, err := o.store.get(o.keyBuf)
			if err != nil {
				return err
			}
			if !ok {
				delete(o.open, k)
				continue
			}
			o.letGo(p, wm)
			if n := len(p.rows); n == 0 || o.ts(p.rows[n-1]) < wm {
				delete(o.open, k)
			}
			if err := o.store.evict(); err != nil {
				return err
			}
		}
		if err := o.sweepEvent(wm); err != nil {
			return err
		}
	}
	return o.out.EmitWatermark(wm)
}

// letGo drops the rows of p whose ts wm passed and that no later row's
// frame reaches (folding them into the base for UNBOUNDED PRECEDING).
func (o *OverUpdate) letGo(p *overUpdPart, wm int64) {
	f := o.from(p, wm)
	drop := f
	switch {
	case o.n.Unbounded:
		for _, e := range p.rows[:f] {
			p.base.add(o.n.Aggs, e.row)
		}
	case o.n.Rows:
		drop = max(0, f-int(o.n.Preceding))
	default:
		if from := wm - o.n.Preceding; from <= wm {
			drop = o.from(p, from)
		} else {
			drop = 0
		}
	}
	if drop == 0 {
		return
	}
	clear(p.rows[:drop])
	p.rows = p.rows[drop:]
	p.dirty = true
}

// sweepEvent drops, under STATE TTL on event time, the partitions whose
// newest row the watermark passed by the TTL, once the watermark moved
// half a TTL since the last sweep; their final rows stay in the view.
func (o *OverUpdate) sweepEvent(wm int64) error {
	ttl := o.n.TTL
	if ttl <= 0 || wm-ttl > wm || o.swept != types.MinTime && wm-o.swept < max(ttl/2, 1) {
		return nil
	}
	o.swept = wm
	return o.store.visit(func(k string, p *overUpdPart) error {
		if !o.open[k] && p.last <= wm-ttl {
			o.drop(k, p)
		}
		return nil
	})
}

// Tick implements Operator: STATE TTL on the wall clock retracts and
// drops the partitions unchanged for the TTL, once the clock moved half
// a TTL since the last sweep.
func (o *OverUpdate) Tick(now int64) error {
	o.now = now
	ttl := o.n.TTL
	if o.letsGo || ttl <= 0 || o.swept != types.MinTime && now-o.swept < max(ttl/2, 1) {
		return nil
	}
	o.swept = now
	out := &Batch{}
	err := o.store.visit(func(k string, p *overUpdPart) error {
		if p.last > now-ttl {
			return nil
		}
		for _, e := range p.rows {
			if e.out != nil {
				out.Rows, out.Diffs = append(out.Rows, e.out), append(out.Diffs, -1)
			}
		}
		o.drop(k, p)
		return nil
	})
	if err != nil || len(out.Rows) == 0 {
		return err
	}
	return o.out.Emit(out)
}

// Checkpoint implements Stateful: deletes for the dropped partitions a
// checkpoint wrote, then every partition changed since (in memory or
// spilled).
func (o *OverUpdate) Checkpoint(w *state.Writer) error { return o.store.checkpoint(w) }

// encodePart is partition p's stored value: a header row (row count,
// last), the rows, then the base accumulators (UNBOUNDED PRECEDING).
func (o *OverUpdate) encodePart(p *overUpdPart) []types.Row {
	rows := make([]types.Row, 0, 1+len(p.rows)+len(p.base))
	rows = append(rows, types.Row{types.IntValue(int64(len(p.rows))), types.IntValue(p.last)})
	for _, e := range p.rows {
		rows = append(rows, e.row)
	}
	return append(rows, p.base.encode()...)
}

// decodePart makes a partition back from the rows encodePart gave and
// recomputes the rows emitted for it. (A row already let go of may get a
// partial frame here; no change can reach it, so that row is never
// emitted again.)
func (o *OverUpdate) decodePart(_ string, rows []types.Row) (*overUpdPart, error) {
	na := 0
	if o.n.Unbounded {
		na = len(o.n.Aggs)
	}
	if len(rows) == 0 || len(rows[0]) != 2 || int(rows[0][0].I) < 0 || 1+int(rows[0][0].I)+na != len(rows) {
		return nil, errCorrupt(o.id)
	}
	nr := int(rows[0][0].I)
	p := o.newPart()
	p.last = rows[0][1].I
	if o.n.Unbounded {
		if err := p.base.decode(rows[1+nr:]); err != nil {
			return nil, fmt.Errorf("%s: %w", o.id, err)
		}
	}
	p.rows = make([]overEntry, nr)
	for i, r := range rows[1 : 1+nr] {
		p.rows[i].row = r
	}
	if nr > 0 {
		if err := o.correct(p, o.ts(p.rows[0]), o.ts(p.rows[nr-1]), nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Restore implements Stateful: reload the partitions this instance owns,
// recomputing the rows emitted for them, and evict down to the limit as
// they come (so a restore reads every partition once).
func (o *OverUpdate) Restore(s *state.Store) error {
	return o.store.restore(s, func(k string, _ *overUpdPart) error {
		if o.letsGo {
			o.open[k] = true
		}
		return nil
	})
}

// StateKeys implements stateSizer: the partitions in memory.
func (o *OverUpdate) StateKeys() int64 { return int64(o.store.resident()) }

// stateSize implements stateMeasurer: the partitions in memory and their
// estimated bytes (the mean of a sample of them times their number), and
// the spill area's bytes and reads.
func (o *OverUpdate) stateSize() StateSize { return o.store.stateSize() }

// partBytes estimates partition p of key k in memory.
func (o *OverUpdate) partBytes(k string, p *overUpdPart) int64 {
	n := keyBytes(k) + int64(unsafe.Sizeof(*p)) + accsBytes(p.base)
	for _, e := range p.rows {
		n += rowBytes(e.row) + rowBytes(e.out)
	}
	return n
}

func (o *OverUpdate) releaseMemory() { o.store.release() }
