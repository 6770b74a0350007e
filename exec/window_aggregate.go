package exec

import (
	"sort"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// WindowAggregate is TUMBLE / HOP / SESSION window assignment fused with
// aggregation. Output rows are the group columns, window_start,
// window_end, then the aggregates; retractions replace rows it emitted
// before (late updates, EMIT ON UPDATE, session merges).
//
// State: one accumulator set per (group key, window), in memory, written
// to Badger at checkpoints when changed. A window fires when the watermark
// reaches its end and its state is dropped once the watermark reaches
// end + allowed lateness, so state is bounded by the number of keys active
// within size + lateness of event time. With a budget, at most that many
// windows keep their accumulators in memory: the others keep only their
// key, bounds and group (the index) and their values live in Badger — in
// the last checkpoint when unchanged since, else in a spill area that is
// not part of any checkpoint (see spill.go).
type WindowAggregate struct {
	id       string
	groups   []int
	calls    []planner.AggCall
	win      planner.WindowSpec
	contract planner.Contract
	policy   lateness.Policy
	out      Output
	side     func(row types.Row, reason string, wm int64)
	late     *lateness.Counters
	keep     func(group types.Row) bool // restore filter for this instance

	wm      int64
	windows map[string]*winEntry
	byGroup map[string][]*winEntry // sessions of a group, by start
	ends    []int64                // distinct window ends held, sorted
	endSet  map[int64][]*winEntry
	// changed lists the windows marked dirty since the last checkpoint;
	// gone the keys a checkpoint wrote whose windows were removed since.
	// Flags on winEntry avoid map churn per row.
	changed  dirtyList[*winEntry]
	gone     []string
	pending  []*winEntry // entries to (re-)emit at the end of this batch
	lastTick int64
	keyBuf   []byte

	partialInput bool // the global phase of a split aggregate: input rows are partials
	judge        windowJudge

	store    *state.Store
	budget   int // windows with values in memory; 0 = no limit
	resident int // windows whose values are in memory
	spill    spillArea
}

// winEntry is one window of one group.
type winEntry struct {
	key        string
	group      types.Row
	start, end int64
	acc        accs
	fired      bool
	emitted    types.Row // the row downstream holds for this window, or nil
	pending    bool
	changed    bool // changed since the last early firing (EMIT EVERY)
	gone       bool
	evicted    bool // acc and emitted are in Badger, not in memory
	persisted  bool // a checkpoint holds this key
	dirty      bool // changed since the last checkpoint (listed in changed)
	// stale are rows downstream still holds for sessions merged into this
	// one; its next emission retracts them.
	stale []types.Row
}

// WindowAggregateConfig configures a WindowAggregate.
type WindowAggregateConfig struct {
	ID       string // state key prefix, unique per operator
	Node     *planner.WindowAggregate
	Out      Output
	Side     func(row types.Row, reason string, wm int64)
	Late     *lateness.Counters
	Keep     func(group types.Row) bool
	StartsAt int64 // processing time at start (EMIT EVERY)
	// Store and Budget enable spilling: at most Budget windows keep their
	// values in memory (0: no limit). Store is needed when Budget > 0.
	Store  *state.Store
	Budget int
	// Partial makes this the global phase of a split aggregate: its input
	// is LocalWindowAggregate's partial rows.
	Partial bool
}

// NewWindowAggregate returns the operator for n.
func NewWindowAggregate(c WindowAggregateConfig) *WindowAggregate {
	n := c.Node
	w := &WindowAggregate{
		id: c.ID, groups: n.GroupCols, calls: n.Aggs, win: n.Window, contract: n.Contract,
		policy: n.Contract.Policy, out: c.Out, side: c.Side, late: c.Late, keep: c.Keep,
		wm: types.MinTime, windows: map[string]*winEntry{}, byGroup: map[string][]*winEntry{},
		endSet: map[int64][]*winEntry{}, lastTick: c.StartsAt,
		store: c.Store, budget: c.Budget, spill: newSpillArea(c.Store, c.ID), partialInput: c.Partial,
	}
	if w.store == nil {
		w.budget = 0
	}
	if w.policy == 0 {
		w.policy = lateness.Drop
	}
	w.judge = windowJudge{win: w.win, contract: w.contract, policy: w.policy, side: w.side, late: w.late}
	return w
}

func (w *WindowAggregate) groupOf(r types.Row) types.Row {
	g := make(types.Row, len(w.groups))
	for i, c := range w.groups {
		g[i] = r[c]
	}
	return g
}

func (w *WindowAggregate) entryKey(group types.Row, start int64) string {
	w.keyBuf = state.AppendKeyRow(w.keyBuf[:0], group)
	w.keyBuf = state.AppendRow(w.keyBuf, types.Row{types.TimestampValue(start)})
	return string(w.keyBuf)
}

func reasonOf(v lateness.Verdict) string {
	if v == lateness.Expired {
		return "expired"
	}
	return "late"
}

// Process implements Operator.
func (w *WindowAggregate) Process(_ int, b *Batch) error {
	if w.partialInput {
		return w.mergePartials(b)
	}
	var procErr error
	for i, r := range b.Rows {
		if procErr != nil {
			return procErr
		}
		t := r[w.win.TimeCol]
		if t.IsNull() {
			w.late.Add(w.policy, "null_time", 1)
			continue
		}
		wm := w.wm
		if b.WM != nil && b.WM[i] > wm {
			wm = b.WM[i]
		}
		if w.win.Kind == "session" {
			if err := w.addSession(r, t.I, wm); err != nil {
				return err
			}
			continue
		}
		var group types.Row
		w.judge.row(r, t.I, wm, func(start, end int64, late bool) {
			if group == nil {
				group = w.groupOf(r)
			}
			e, err := w.entry(group, start, end, late)
			if err != nil {
				procErr = err
				return
			}
			e.acc.add(w.calls, r)
			w.touch(e)
		})
	}
	if procErr != nil {
		return procErr
	}
	if err := w.flushPending(); err != nil {
		return err
	}
	return w.evict()
}

// entry finds or creates the window of group starting at start. A window
// created for a late row is born fired (Flink's late firing).
func (w *WindowAggregate) entry(group types.Row, start, end int64, late bool) (*winEntry, error) {
	k := w.entryKey(group, start)
	if e, ok := w.windows[k]; ok {
		return e, w.use(e)
	}
	e := &winEntry{key: k, group: group, start: start, end: end, acc: newAccs(w.calls), fired: late}
	w.windows[k] = e
	w.resident++
	w.addEnd(e)
	return e, nil
}

func (w *WindowAggregate) addEnd(e *winEntry) {
	if _, ok := w.endSet[e.end]; !ok {
		i := sort.Search(len(w.ends), func(i int) bool { return w.ends[i] >= e.end })
		w.ends = append(w.ends, 0)
		copy(w.ends[i+1:], w.ends[i:])
		w.ends[i] = e.end
	}
	w.endSet[e.end] = append(w.endSet[e.end], e)
}

// touch marks e changed: dirty for the checkpoint and, when it must be
// (re-)emitted now, pending.
func (w *WindowAggregate) touch(e *winEntry) {
	w.markDirty(e)
	e.changed = true
	if (e.fired || w.contract.Emit == "on_update") && !e.pending {
		e.pending = true
		w.pending = append(w.pending, e)
	}
}

func (w *WindowAggregate) outputRow(e *winEntry) types.Row {
	row := make(types.Row, 0, len(e.group)+2+len(e.acc))
	row = append(row, e.group...)
	row = append(row, types.TimestampValue(e.start), types.TimestampValue(e.end))
	for _, a := range e.acc {
		row = append(row, a.result())
	}
	return row
}

// emit replaces e's row downstream with its current value.
func (w *WindowAggregate) emit(e *winEntry, out *Batch) {
	for _, s := range e.stale {
		out.Rows = append(out.Rows, s)
		out.Diffs = append(out.Diffs, -1)
	}
	if e.stale != nil {
		e.stale = nil
		w.markDirty(e)
	}
	row := w.outputRow(e)
	if e.emitted != nil {
		if rowsEqual(e.emitted, row) {
			return
		}
		out.Rows = append(out.Rows, e.emitted)
		out.Diffs = append(out.Diffs, -1)
	}
	out.Rows = append(out.Rows, row)
	out.Diffs = append(out.Diffs, 1)
	e.emitted = row
	e.changed = false
	w.markDirty(e)
}

func rowsEqual(a, b types.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].K != b[i].K || types.Compare(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

func (w *WindowAggregate) flushPending() error {
	if len(w.pending) == 0 {
		return nil
	}
	out := &Batch{}
	for _, e := range w.pending {
		e.pending = false
		if !e.gone {
			w.emit(e, out)
		}
	}
	w.pending = w.pending[:0]
	return w.out.Emit(out)
}

// Watermark implements Operator: fire windows whose end is <= wm (in end
// order, forwarding the watermark in steps so downstream sees each
// window's rows before event time passes it), then drop windows whose
// end + lateness is <= wm.
func (w *WindowAggregate) Watermark(_ int, wm int64) error {
	if wm <= w.wm {
		return nil
	}
	w.wm = wm
	for _, end := range w.ends {
		if w.closeAt(end) > wm {
			break
		}
		out := &Batch{}
		for _, e := range w.endSet[end] {
			if e.fired || e.gone {
				continue
			}
			if err := w.use(e); err != nil {
				return err
			}
			e.fired = true
			w.markDirty(e)
			if w.contract.Emit != "on_update" || e.emitted == nil {
				w.emit(e, out)
			}
		}
		if err := w.out.Emit(out); err != nil {
			return err
		}
		if err := w.out.EmitWatermark(w.closeAt(end)); err != nil {
			return err
		}
	}
	w.purge(wm)
	if err := w.evict(); err != nil {
		return err
	}
	return w.out.EmitWatermark(wm)
}

// closeAt is the watermark at which a window ending at end closes: end for
// TUMBLE and HOP, whose rows all lie before end; one microsecond later for
// SESSION, because a row exactly at a session's end touches it and still
// merges into it (next_ts <= last_ts + gap), and such a row is on time
// while the watermark equals its time. Lateness counts from this moment.
func (w *WindowAggregate) closeAt(end int64) int64 {
	if w.win.Kind == "session" {
		return end + 1
	}
	return end
}

// purge drops every window whose state is gone at watermark wm.
func (w *WindowAggregate) purge(wm int64) {
	n := 0
	for _, end := range w.ends {
		if w.closeAt(end)+w.contract.Lateness > wm {
			break
		}
		// drop removes sessions from endSet[end]: iterate over a copy.
		for _, e := range append([]*winEntry(nil), w.endSet[end]...) {
			if e.gone {
				continue
			}
			w.drop(e)
		}
		delete(w.endSet, end)
		n++
	}
	w.ends = w.ends[n:]
}

func (w *WindowAggregate) drop(e *winEntry) {
	if !e.evicted {
		w.resident--
	}
	e.gone = true
	delete(w.windows, e.key)
	// A removed key needs a delete in the next checkpoint only if an
	// earlier one wrote it.
	if e.persisted {
		w.gone = append(w.gone, e.key)
	}
	if w.win.Kind == "session" {
		w.removeSession(e)
	}
}

// Tick implements Operator: EMIT EVERY fires early results of open
// windows on the wall clock.
func (w *WindowAggregate) Tick(now int64) error {
	if w.contract.Emit != "every" || w.contract.Every <= 0 || now-w.lastTick < w.contract.Every {
		return nil
	}
	w.lastTick = now
	out := &Batch{}
	for _, end := range w.ends {
		for _, e := range w.endSet[end] {
			if !e.fired && !e.gone && e.changed {
				if err := w.use(e); err != nil {
					return err
				}
				w.emit(e, out)
			}
		}
	}
	return w.out.Emit(out)
}

// Checkpoint implements Stateful.
func (w *WindowAggregate) Checkpoint(wr *state.Writer) error {
	for _, k := range w.gone {
		if err := wr.Delete([]byte(w.id + k)); err != nil {
			return err
		}
	}
	for _, e := range w.changed.take() {
		if e.gone || !e.dirty {
			continue // removed since, or listed twice
		}
		val, err := w.value(e)
		if err != nil {
			return err
		}
		if err := wr.Set([]byte(w.id+e.key), val); err != nil {
			return err
		}
		e.dirty, e.persisted = false, true
	}
	w.gone = nil
	return w.spill.clear(wr)
}

// markDirty lists e as changed since the last checkpoint.
func (w *WindowAggregate) markDirty(e *winEntry) {
	if !e.dirty {
		e.dirty = true
		w.changed.add(e, len(w.windows), func(x *winEntry) bool { return !x.gone && x.dirty })
	}
}

// encode is the state value of a resident window: a header (start, end,
// fired, number of stale rows), the group, the emitted row, the stale
// rows, then one row per accumulator.
func (w *WindowAggregate) encode(e *winEntry) []byte {
	hdr := types.Row{types.TimestampValue(e.start), types.TimestampValue(e.end), types.BoolValue(e.fired), types.IntValue(int64(len(e.stale)))}
	rows := []types.Row{hdr, e.group, e.emitted}
	rows = append(rows, e.stale...)
	rows = append(rows, e.acc.encode()...)
	return state.EncodeValue(rows...)
}

// decodeValues fills e's emitted row, stale rows and accumulators from a
// value written by encode.
func (w *WindowAggregate) decodeValues(e *winEntry, rows []types.Row) error {
	if len(rows) < 3 || len(rows[0]) < 4 {
		return errCorrupt(w.id)
	}
	n := int(rows[0][3].I)
	if n < 0 || 3+n > len(rows) {
		return errCorrupt(w.id)
	}
	e.emitted, e.stale = nil, nil
	if len(rows[2]) > 0 {
		e.emitted = rows[2]
	}
	if n > 0 {
		e.stale = append([]types.Row(nil), rows[3:3+n]...)
	}
	e.acc = newAccs(w.calls)
	return e.acc.decode(rows[3+n:])
}

// Restore implements Stateful.
func (w *WindowAggregate) Restore(s *state.Store) error {
	err := s.Scan([]byte(w.id), func(key, val []byte) error {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		if len(rows) < 3 || len(rows[0]) < 4 {
			return errCorrupt(w.id)
		}
		e := &winEntry{key: string(key[len(w.id):]), start: rows[0][0].I, end: rows[0][1].I, fired: rows[0][2].Bool(), group: rows[1], persisted: true}
		if w.keep != nil && !w.keep(e.group) {
			return nil
		}
		if err := w.decodeValues(e, rows); err != nil {
			return err
		}
		w.windows[e.key] = e
		w.resident++
		w.addEnd(e)
		if w.win.Kind == "session" {
			w.insertSession(e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return w.evict()
}

// StateKeys implements stateSizer: the windows (per group) in memory.
func (w *WindowAggregate) StateKeys() int64 { return int64(len(w.windows)) }
