package exec

import (
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TemporalFilter keeps the rows inside time bounds relative to a moving
// clock (WHERE ts > now() - INTERVAL '1' HOUR): a row enters when it
// arrives inside its bounds, or later when the clock reaches its upper
// bound, and is retracted when the clock passes its lower bound. The
// clock is the input's watermark, or the wall clock (Tick) under
// PROCTIME(); before the clock is known every lower bound holds and no
// upper bound does.
//
// State: one entry per distinct row that can still change (a row inside
// a lower bound, or waiting for the clock to reach its upper bound), with
// its multiplicity and whether the view holds it. A row that has entered
// and has no lower bound is final and forgotten; a row past its lower
// bound is retracted and deleted. So the clock bounds the state: it holds
// the rows of the sliding window plus the rows ahead of the clock.
// Each bound has a timer queue (timers.go) ordered by the row's side of
// the comparison, in memory and, from each checkpoint, in Badger beside
// the rows, with the clock; a restart reads only the clock and brings a
// row back when its next copy arrives or its stored timer fires.
type TemporalFilter struct {
	id           string
	lower, upper *clockBound
	proc         bool // the clock is the wall clock (Tick), not the watermark
	clockKind    types.Kind
	out          Output
	wm           int64
	clock        bool // a clock value has been seen

	entries map[string]*tfEntry
	dirty   map[string]bool
	// gone holds the stored timers of the entries a checkpoint wrote that
	// have left state since (the next checkpoint deletes them).
	gone   map[string][2]int64
	timers [2]timerQueue // lower, upper
	store  *state.Store
	marked bool
	keyBuf []byte
}

// clockBound is one compiled bound: the row's value op the clock's.
type clockBound struct {
	row, clock Evaluator
	op         string
	at         int64 // the clock side at the last clock value
	ok         bool  // at is known (the clock side is not NULL)
}

// tfEntry is one distinct row in a TemporalFilter's state.
type tfEntry struct {
	key       string
	row       types.Row
	count     int64
	visible   bool     // the view holds count copies of row
	indexed   [2]int64 // stored timers in the last checkpoint (noTimer: none)
	queued    [2]bool  // a timer in the memory heap covers it
	persisted bool
}

// TemporalFilterConfig configures a TemporalFilter.
type TemporalFilterConfig struct {
	ID    string
	Node  *planner.TemporalFilter
	Out   Output
	Store *state.Store
	Errs  *EvalErrors
}

// NewTemporalFilter compiles n's bounds into a TemporalFilter.
func NewTemporalFilter(c TemporalFilterConfig) (*TemporalFilter, error) {
	f := &TemporalFilter{id: c.ID, out: c.Out, wm: types.MinTime, proc: c.Node.Clock == planner.ClockProcessing,
		clockKind: c.Node.ClockKind(),
		entries:   map[string]*tfEntry{}, dirty: map[string]bool{}, gone: map[string][2]int64{}, store: c.Store}
	base := c.ID[:len(c.ID)-1]
	f.timers[0] = newTimerQueueAt(c.Store, base+"@lo/", base+"@m")
	f.timers[1] = newTimerQueueAt(c.Store, base+"@up/", base+"@m")
	var err error
	if f.lower, err = compileBound(c.Node.Lower, c.Errs); err != nil {
		return nil, err
	}
	if f.upper, err = compileBound(c.Node.Upper, c.Errs); err != nil {
		return nil, err
	}
	return f, nil
}

func compileBound(b *planner.TemporalBound, errs *EvalErrors) (*clockBound, error) {
	if b == nil {
		return nil, nil
	}
	row, err := CompileScalar(b.Row, errs)
	if err != nil {
		return nil, err
	}
	clock, err := CompileScalar(b.Clock, errs)
	if err != nil {
		return nil, err
	}
	return &clockBound{row: row, clock: clock, op: b.Op}, nil
}

// holds reports whether row value v satisfies the bound at the clock.
func (b *clockBound) holds(v types.Value) bool {
	if !b.ok || v.IsNull() {
		return false
	}
	switch b.op {
	case ">":
		return v.I > b.at
	case ">=":
		return v.I >= b.at
	case "<":
		return v.I < b.at
	}
	return v.I <= b.at
}

// dueTo is the largest row value whose timer is due at the clock: a
// lower bound's row leaves once it stops holding, an upper bound's
// enters once it starts to.
func (b *clockBound) dueTo() int64 {
	if b.op == ">=" || b.op == "<" {
		return b.at - 1
	}
	return b.at
}

// state is what the bounds say of row r now: dead (a lower bound fails,
// or a bound's row value is NULL: it never enters again) or visible.
func (f *TemporalFilter) state(r types.Row) (dead, visible bool) {
	if f.lower != nil {
		if v := f.lower.row(r); v.IsNull() || (f.clock && !f.lower.holds(v)) {
			return true, false
		}
	}
	if f.upper == nil {
		return false, true
	}
	v := f.upper.row(r)
	if v.IsNull() {
		return true, false
	}
	return false, f.clock && f.upper.holds(v)
}

// Process implements Operator.
func (f *TemporalFilter) Process(_ int, b *Batch) error {
	out := &Batch{}
	for i, r := range b.Rows {
		f.keyBuf = state.AppendKeyRow(f.keyBuf[:0], r)
		e, err := f.lookup(string(f.keyBuf))
		if err != nil {
			return err
		}
		if e == nil {
			e = f.newEntry(string(f.keyBuf), r)
		}
		d := int64(b.Diff(i))
		e.count += d
		if e.visible {
			change(out, r, int8(d))
		}
		f.settle(e, out)
	}
	return f.out.Emit(out)
}

// newEntry starts the entry of row r under key k.
func (f *TemporalFilter) newEntry(k string, r types.Row) *tfEntry {
	e := &tfEntry{key: k, row: r, indexed: [2]int64{noTimer, noTimer}}
	if old, ok := f.gone[k]; ok { // stored, left since: rewritten
		e.persisted, e.indexed = true, old
		delete(f.gone, k)
	}
	f.entries[k] = e
	return e
}

// settle brings entry e in line with the clock: it enters or leaves the
// view (changes into out), and it stays in state, with its timers, while
// the clock can still change it.
func (f *TemporalFilter) settle(e *tfEntry, out *Batch) {
	dead, visible := f.state(e.row)
	if visible != e.visible && e.count != 0 {
		for range abs64(e.count) {
			if visible == (e.count > 0) {
				change(out, e.row, 1)
			} else {
				change(out, e.row, -1)
			}
		}
	}
	e.visible = visible
	if dead || e.count == 0 || (visible && f.lower == nil) {
		f.remove(e)
		return
	}
	f.dirty[e.key] = true
	if f.lower != nil && !e.queued[0] {
		f.timers[0].push(f.lower.row(e.row).I, e.key)
		e.queued[0] = true
	}
	if !visible && !e.queued[1] {
		f.timers[1].push(f.upper.row(e.row).I, e.key)
		e.queued[1] = true
	}
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// change appends row r with sign d to b.
func change(b *Batch, r types.Row, d int8) {
	b.Rows = append(b.Rows, r)
	b.Diffs = append(b.Diffs, d)
}

// remove forgets entry e; a checkpoint that wrote it owes a delete.
func (f *TemporalFilter) remove(e *tfEntry) {
	delete(f.entries, e.key)
	delete(f.dirty, e.key)
	if e.persisted {
		f.gone[e.key] = e.indexed
	}
}

// lookup returns the entry stored under k, loading it from Badger after
// a restore; nil when there is none.
func (f *TemporalFilter) lookup(k string) (*tfEntry, error) {
	if e, ok := f.entries[k]; ok || f.store == nil || !f.marked {
		return e, nil
	}
	if _, ok := f.gone[k]; ok {
		return nil, nil
	}
	val, ok, err := f.store.Get([]byte(f.id + k))
	if err != nil || !ok {
		return nil, err
	}
	e, err := f.decode(k, val)
	if err != nil {
		return nil, err
	}
	f.entries[k] = e
	return e, nil
}

// advance moves the clock to now: entries whose upper bound the clock
// reached enter the view, then entries whose lower bound it passed leave.
func (f *TemporalFilter) advance(now int64) error {
	if f.clock && now <= f.wm {
		return nil
	}
	f.setClock(now)
	out := &Batch{}
	for q, b := range []*clockBound{f.lower, f.upper} {
		if b == nil || !b.ok {
			continue
		}
		if err := f.fire(q, b.dueTo(), out); err != nil {
			return err
		}
	}
	return f.out.Emit(out)
}

// setClock sets the clock to now and evaluates each bound's clock side.
func (f *TemporalFilter) setClock(now int64) {
	f.wm, f.clock = now, true
	clockRow := types.Row{{K: f.clockKind, I: now}}
	for _, b := range []*clockBound{f.lower, f.upper} {
		if b != nil {
			v := b.clock(clockRow)
			b.at, b.ok = v.I, !v.IsNull()
		}
	}
}

// fire settles the entries whose timers in queue q are due at upTo.
func (f *TemporalFilter) fire(q int, upTo int64, out *Batch) error {
	due, err := f.timers[q].due(upTo, f.marked, func(string) (bool, error) { return true, nil })
	if err != nil {
		return err
	}
	for _, it := range due {
		e, err := f.lookup(it.key)
		if err != nil {
			return err
		}
		if e != nil {
			e.queued[q] = false
			f.settle(e, out)
		}
	}
	return nil
}

// Watermark implements Operator: the watermark clock moves.
func (f *TemporalFilter) Watermark(_ int, wm int64) error {
	if !f.proc {
		if err := f.advance(wm); err != nil {
			return err
		}
	}
	return f.out.EmitWatermark(wm)
}

// Tick implements Operator: the wall clock moves (PROCTIME()).
func (f *TemporalFilter) Tick(now int64) error {
	if f.proc {
		return f.advance(now)
	}
	return nil
}

// Checkpoint implements Stateful: deletes for the entries that left
// state, then every entry changed since, each with its stored timers
// moved to its row's bound values.
func (f *TemporalFilter) Checkpoint(w *state.Writer) error {
	if err := w.Set(f.timers[0].marker, timersMark); err != nil {
		return err
	}
	if f.clock {
		if err := w.Set(f.clockKey(), state.EncodeValue(types.Row{types.IntValue(f.wm)})); err != nil {
			return err
		}
	}
	for k, old := range f.gone {
		if err := f.write(w, k, nil, old, [2]int64{noTimer, noTimer}); err != nil {
			return err
		}
	}
	clear(f.gone)
	for k := range f.dirty {
		e := f.entries[k]
		if err := f.write(w, k, e, e.indexed, f.timerAt(e)); err != nil {
			return err
		}
		e.persisted, e.indexed = true, f.timerAt(e)
	}
	clear(f.dirty)
	for q := range f.timers {
		f.timers[q].prune(func(k string) bool { return f.entries[k] != nil })
	}
	return nil
}

// timerAt is where entry e's stored timers belong.
func (f *TemporalFilter) timerAt(e *tfEntry) [2]int64 {
	at := [2]int64{noTimer, noTimer}
	if f.lower != nil {
		at[0] = f.lower.row(e.row).I
	}
	if f.upper != nil && !e.visible {
		at[1] = f.upper.row(e.row).I
	}
	return at
}

// write stores entry e under k (deletes it when nil) and moves its
// stored timers from old to now.
func (f *TemporalFilter) write(w *state.Writer, k string, e *tfEntry, old, now [2]int64) error {
	var err error
	if e == nil {
		err = w.Delete([]byte(f.id + k))
	} else {
		err = w.Set([]byte(f.id+k), state.EncodeValue(types.Row{types.IntValue(e.count), types.BoolValue(e.visible)}, e.row))
	}
	for q := range f.timers {
		if err == nil {
			err = f.timers[q].move(w, k, old[q], now[q])
		}
	}
	return err
}

// decode decodes the entry stored under k.
func (f *TemporalFilter) decode(k string, val []byte) (*tfEntry, error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	if len(rows) != 2 || len(rows[0]) != 2 {
		return nil, errCorrupt(f.id)
	}
	e := &tfEntry{key: k, row: rows[1], count: rows[0][0].I, visible: rows[0][1].Bool(), persisted: true}
	e.indexed = f.timerAt(e)
	return e, nil
}

// Restore implements Stateful: only the clock is read; a stored row
// comes back (lazily) when its next copy arrives or one of its stored
// timers fires.
func (f *TemporalFilter) Restore(s *state.Store) error {
	marked, err := f.timers[0].marked(s)
	if err != nil {
		return err
	}
	f.store, f.marked = s, marked
	for q := range f.timers {
		f.timers[q].store = s
	}
	val, ok, err := s.Get(f.clockKey())
	if err != nil || !ok {
		return err
	}
	rows, err := state.DecodeValue(val)
	if err != nil {
		return err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return errCorrupt(f.id)
	}
	f.setClock(rows[0][0].I)
	return nil
}

// clockKey is where a checkpoint keeps the clock, beside the timers.
func (f *TemporalFilter) clockKey() []byte { return []byte(f.id[:len(f.id)-1] + "@c") }

// StateKeys implements stateSizer: the rows in memory.
func (f *TemporalFilter) StateKeys() int64 { return int64(len(f.entries)) }
