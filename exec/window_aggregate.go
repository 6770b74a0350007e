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
// within size + lateness of event time. When each window in memory next
// needs the watermark (its close, then its drop) is kept in buckets by
// that time (window_timers.go); a stored TUMBLE or HOP window's key
// starts with its end, so the stored windows a watermark closes are a
// range scan of their own keys (window_store.go), while a stored SESSION
// window, whose end moves, has a stored timer beside it (timers.go). Under
// a row cap (state_cache_size) or a share of the memory budget
// (MemoryBudget), at most that many windows, or that many bytes of them
// by their estimate (meanBytes), stay in memory: the others leave it
// whole and live in Badger — in the last checkpoint when unchanged since,
// else in a spill area that is not part of any checkpoint (see spill.go)
// — and come back when a row, a partial or the watermark needs them;
// restore reads nothing. SESSION windows leave and come back a group at a
// time (window_session.go): a row must see every open session of its
// group to merge them, and a group's sessions are stored under its key,
// so one short seek finds them all.
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
	byGroup map[string][]*winEntry // the held groups' sessions, by start
	timers  windowTimers           // covers the windows in memory
	// sessionTimers are the stored sessions' timers (TUMBLE and HOP
	// windows' keys are their timers); its heap is unused.
	sessionTimers timerQueue
	// changed lists the keys of windows marked dirty since the last
	// checkpoint; gone the keys a checkpoint wrote whose windows were
	// removed since, with a session's stored timer (noTimer for TUMBLE
	// and HOP). Flags on winEntry avoid map churn per row.
	changed dirtyList[string]
	gone    map[string]int64
	marked  bool // this run wrote a session aggregate's timer marker
	// Every window ending at or before closedTo has fired, and every
	// stored one ending at or before droppedTo is dropped (storedDue).
	closedTo, droppedTo int64
	// oldKeys are the keys of an older layout that the next checkpoint
	// deletes; until then (migrating) every window is in memory or
	// the spill area.
	oldKeys   [][]byte
	migrating bool
	cols      []int       // 0, 1, 2, ...: a group row's own columns
	pending   []*winEntry // entries to (re-)emit at the end of this batch
	every     []string    // EMIT EVERY: keys changed since the last early firing
	lastTick  int64
	keyBuf    []byte

	partialInput bool  // the global phase of a split aggregate: input rows are partials
	scratch      accs  // partials decode into these (partialAccs)
	widths       []int // each call's partial width
	judge        windowJudge

	store    *state.Store
	budget   int       // windows with values in memory; 0 = no cap
	mem      *memShare // its share of the memory budget, or nil
	resident int       // windows whose values are in memory
	spill    spillArea
	onDisk   bool // windows not in windows may be in Badger
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
	indexed    int64 // a session's timer in the last checkpoint (noTimer: none)
	out        bool  // left memory whole (a later load makes a new entry)
	persisted  bool  // a checkpoint holds this key
	dirty      bool  // changed since the last checkpoint (listed in changed)
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
	// Store with Budget or Memory enables spilling: at most Budget
	// windows (0: no cap), and no more than fit in an equal share of
	// Memory (nil: none), keep their values in memory.
	Store  *state.Store
	Budget int
	Memory *MemoryBudget
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
		gone: map[string]int64{}, closedTo: types.MinTime, droppedTo: types.MinTime, lastTick: c.StartsAt,
		store: c.Store, spill: newSpillArea(c.Store, c.ID), partialInput: c.Partial,
		sessionTimers: newTimerQueue(c.Store, c.ID),
	}
	if c.Store != nil && (c.Budget > 0 || c.Memory != nil) {
		w.budget, w.mem = c.Budget, c.Memory.join()
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

// entryKey is the key of group's window [start, end).
func (w *WindowAggregate) entryKey(group types.Row, start, end int64) string {
	w.keyBuf = w.appendWindowKey(w.keyBuf[:0], group, w.allCols(len(group)), start, end)
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
			e, err := w.entry(r, w.groups, &group, start, end, late)
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

// entry finds or creates the window [start, end) of the group in columns
// cols of r; a new window's group row is *group, made from r when nil. A
// window created for a late row is born fired (Flink's late firing).
func (w *WindowAggregate) entry(r types.Row, cols []int, group *types.Row, start, end int64, late bool) (*winEntry, error) {
	w.keyBuf = w.appendWindowKey(w.keyBuf[:0], r, cols, start, end)
	if e, ok := w.windows[string(w.keyBuf)]; ok {
		return e, nil
	}
	k := string(w.keyBuf)
	if w.onDisk {
		if e, err := w.load(k); e != nil || err != nil {
			return e, err
		}
	}
	if *group == nil {
		*group = make(types.Row, len(cols))
		for i, c := range cols {
			(*group)[i] = r[c]
		}
	}
	e := &winEntry{key: k, group: *group, start: start, end: end, acc: newAccs(w.calls), fired: late, indexed: noTimer}
	w.revive(e)
	if !late && end <= w.closedTo {
		w.closedTo = end - 1 // below a restored watermark: still to fire
	}
	w.add(e)
	return e, nil
}

// revive lets the new window e take over what the last checkpoint holds
// under its key for a window removed since: the checkpoint's value and
// timer are rewritten rather than deleted.
func (w *WindowAggregate) revive(e *winEntry) {
	if old, ok := w.gone[e.key]; ok {
		e.persisted, e.indexed = true, old
		delete(w.gone, e.key)
	}
}

// add holds the new window e and covers it in the timer heap.
func (w *WindowAggregate) add(e *winEntry) {
	w.windows[e.key] = e
	w.resident++
	w.timers.push(w.nextEvent(e), e)
}

// lookup returns the window stored under key k with its values in
// memory, loading it from Badger when it is not held; nil when there is
// none.
func (w *WindowAggregate) lookup(k string) (*winEntry, error) {
	if w.win.Kind == "session" {
		return w.lookupSession(k)
	}
	if e, ok := w.windows[k]; ok {
		return e, nil
	}
	if !w.onDisk {
		return nil, nil
	}
	return w.load(k)
}

// nextEvent is the watermark window e next needs: its close until it
// has fired, then the end of its allowed lateness, when it is dropped.
func (w *WindowAggregate) nextEvent(e *winEntry) int64 {
	if !e.fired {
		return w.closeAt(e.end)
	}
	return w.closeAt(e.end) + w.contract.Lateness
}

// touch marks e changed: dirty for the checkpoint and, when it must be
// (re-)emitted now, pending.
func (w *WindowAggregate) touch(e *winEntry) {
	w.markDirty(e)
	if !e.changed && w.contract.Emit == "every" {
		w.every = append(w.every, e.key)
	}
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

// Watermark implements Operator: visit the windows whose timers wm
// passed, in time order — fire those whose end is <= wm, forwarding the
// watermark in steps so downstream sees each window's rows before event
// time passes it, and drop those whose end + lateness is <= wm.
func (w *WindowAggregate) Watermark(_ int, wm int64) error {
	if wm <= w.wm {
		return nil
	}
	prev := w.wm
	w.wm = wm
	due := w.timers.due(wm, nil)
	n := len(due)
	due, err := w.storedDue(wm, due)
	if err != nil {
		return err
	}
	if len(due) > n && n > 0 {
		sort.SliceStable(due, func(a, b int) bool { return due[a].at < due[b].at })
	}
	w.closedTo = max(w.closedTo, wm)
	w.droppedTo = max(w.droppedTo, subSat(wm, w.contract.Lateness))
	for len(due) > 0 {
		n := 1
		for n < len(due) && due[n].at == due[0].at {
			n++
		}
		if err := w.visitAt(max(due[0].at, prev), due[:n], wm); err != nil {
			return err
		}
		due = due[n:]
	}
	return w.out.EmitWatermark(wm)
}

// visitAt visits the windows of timers due at time at: emits the rows of
// the windows that fire, then the watermark at, and evicts what the visit
// loaded past the budget.
func (w *WindowAggregate) visitAt(at int64, items []windowDue, wm int64) error {
	out := &Batch{}
	for _, it := range items {
		e, err := w.dueWindow(it)
		if err != nil {
			return err
		}
		if e != nil && !e.gone {
			w.visit(e, wm, out)
		}
	}
	if len(out.Rows) > 0 {
		if err := w.out.Emit(out); err != nil {
			return err
		}
		if err := w.out.EmitWatermark(at); err != nil {
			return err
		}
	}
	return w.evict()
}

// dueWindow returns the window of it with its values in memory: its
// entry, unless that left memory whole since (then, like a stored
// window's key, its key finds it).
func (w *WindowAggregate) dueWindow(it windowDue) (*winEntry, error) {
	if it.e == nil || it.e.out {
		k := it.key
		if it.e != nil {
			k = it.e.key
		}
		return w.lookup(k)
	}
	if it.e.gone {
		return nil, nil
	}
	return it.e, nil
}

// visit fires window e if watermark wm passed its close, drops it if wm
// passed the end of its lateness, and otherwise covers it again at its
// next event.
func (w *WindowAggregate) visit(e *winEntry, wm int64, out *Batch) {
	if !e.fired && w.closeAt(e.end) <= wm {
		e.fired = true
		w.markDirty(e)
		if w.contract.Emit != "on_update" || e.emitted == nil {
			w.emit(e, out)
		}
	}
	if w.closeAt(e.end)+w.contract.Lateness <= wm {
		w.drop(e)
		return
	}
	w.timers.push(w.nextEvent(e), e)
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

// drop removes window e; a checkpoint that wrote it owes a delete.
func (w *WindowAggregate) drop(e *winEntry) {
	w.resident--
	e.gone = true
	delete(w.windows, e.key)
	w.spill.forget(e.key)
	// A removed key needs a delete in the next checkpoint only if an
	// earlier one wrote it.
	if e.persisted {
		w.gone[e.key] = e.indexed
	}
	if w.win.Kind == "session" {
		w.removeSession(e)
	}
}

// Tick implements Operator: EMIT EVERY fires early results of the open
// windows changed since the last early firing. A key listed twice is
// visited once; a window loaded back from Badger lost its changed flag
// (and a session's whole group comes back with it), so emit replaces its
// row only if it differs.
func (w *WindowAggregate) Tick(now int64) error {
	if w.contract.Emit != "every" || w.contract.Every <= 0 || now-w.lastTick < w.contract.Every {
		return nil
	}
	w.lastTick = now
	out := &Batch{}
	keys := w.every
	w.every = nil
	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		if _, ok := seen[k]; ok {
			continue
		}
		seen[k] = struct{}{}
		e, err := w.lookup(k)
		if err != nil {
			return err
		}
		if e != nil && !e.fired && !e.gone {
			w.emit(e, out)
		}
	}
	if err := w.out.Emit(out); err != nil {
		return err
	}
	return w.evict()
}

// spills reports whether windows may leave memory for Badger: under a
// row cap or a share of the memory budget.
func (w *WindowAggregate) spills() bool { return w.budget > 0 || w.mem != nil }

// timed reports whether the windows are keyed by their end, so that their
// keys are their timers: TUMBLE and HOP windows (sessions, whose end
// moves, have stored timers beside them).
func (w *WindowAggregate) timed() bool { return w.win.Kind != "session" }

// Checkpoint implements Stateful: the layout marker, deletes for removed
// windows a checkpoint wrote (and an older layout's keys, and a removed
// session's stored timer), then every window changed since (a session
// with its stored timer moved to its next event); the heap then forgets
// the windows no longer in memory.
func (w *WindowAggregate) Checkpoint(wr *state.Writer) error {
	if err := w.checkpointLayout(wr); err != nil {
		return err
	}
	for k, old := range w.gone {
		if err := wr.Delete([]byte(w.id + k)); err != nil {
			return err
		}
		if w.timed() {
			continue
		}
		if err := w.sessionTimers.move(wr, k, old, noTimer); err != nil {
			return err
		}
	}
	clear(w.gone)
	for _, k := range w.changed.take() {
		if err := w.checkpointWindow(wr, k); err != nil {
			return err
		}
	}
	if err := w.spill.clear(wr); err != nil {
		return err
	}
	if w.onDisk {
		w.timers.prune(func(e *winEntry) bool { return !e.out && !e.gone })
	}
	return nil
}

// checkpointWindow writes the window stored under k, if it changed since
// the last checkpoint: from memory, else from the spill area (evicted
// whole).
func (w *WindowAggregate) checkpointWindow(wr *state.Writer, k string) error {
	e, ok := w.windows[k]
	var val []byte
	var err error
	switch {
	case ok && !e.dirty:
		return nil // listed twice
	case ok:
		val = w.encode(e)
	case !w.spill.has(k):
		return nil // removed since
	default:
		if val, err = w.spill.get(k); err == nil {
			e, err = w.decodeEntry(k, val, true)
		}
	}
	if err != nil {
		return err
	}
	if err := wr.Set([]byte(w.id+k), val); err != nil {
		return err
	}
	now := noTimer
	if !w.timed() {
		now = w.nextEvent(e)
		if err := w.sessionTimers.move(wr, k, e.indexed, now); err != nil {
			return err
		}
	}
	e.dirty, e.persisted, e.indexed = false, true, now
	return nil
}

// markDirty lists e as changed since the last checkpoint.
func (w *WindowAggregate) markDirty(e *winEntry) {
	if !e.dirty {
		e.dirty = true
		w.changed.add(e.key, len(w.windows), func(k string) bool {
			x := w.windows[k]
			return (x != nil && x.dirty) || w.spill.has(k)
		})
	}
}

// encode is the state value of a resident window: a header (start, end,
// fired, number of stale rows, then any extra values), the group, the
// emitted row, the stale rows, then one row per accumulator.
func (w *WindowAggregate) encode(e *winEntry, extra ...types.Value) []byte {
	hdr := types.Row{types.TimestampValue(e.start), types.TimestampValue(e.end), types.BoolValue(e.fired), types.IntValue(int64(len(e.stale)))}
	rows := []types.Row{append(hdr, extra...), e.group, e.emitted}
	rows = append(rows, e.stale...)
	rows = append(rows, e.acc.encode()...)
	return state.EncodeValue(rows...)
}

// spillValue is the spill-area value of a window evicted whole while
// changed: encode's, with whether a checkpoint holds it and, for a
// session, the timer the checkpoint has for it.
func (w *WindowAggregate) spillValue(e *winEntry) []byte {
	return w.encode(e, types.BoolValue(e.persisted), types.IntValue(e.indexed))
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

// decodeEntry decodes the window stored under key: checkpointed, or from
// the spill area (spilled), whose values carry whether a checkpoint holds
// the window and whose windows are still changed since the checkpoint
// (listed in changed).
func (w *WindowAggregate) decodeEntry(key string, val []byte, spilled bool) (*winEntry, error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	if len(rows) < 3 || len(rows[0]) < 4 {
		return nil, errCorrupt(w.id)
	}
	hdr := rows[0]
	e := &winEntry{key: key, start: hdr[0].I, end: hdr[1].I, fired: hdr[2].Bool(), group: rows[1], persisted: true}
	if err := w.decodeValues(e, rows); err != nil {
		return nil, err
	}
	e.indexed = noTimer
	if !w.timed() {
		e.indexed = w.nextEvent(e)
	}
	if spilled {
		if len(hdr) < 6 {
			return nil, errCorrupt(w.id)
		}
		e.persisted, e.indexed, e.dirty = hdr[4].Bool(), hdr[5].I, true
	}
	return e, nil
}

// StateKeys implements stateSizer: the windows (per group) in memory.
func (w *WindowAggregate) StateKeys() int64 { return int64(len(w.windows)) }
