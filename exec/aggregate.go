package exec

import (
	"fmt"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// Aggregate is a non-windowed GROUP BY over append-only input. Each change
// to a group retracts the group's previous row and inserts the new one.
//
// State: one accumulator set per group key. It is bounded only by STATE
// TTL: a group not updated for TTL (event time when the input has a
// watermark, the wall clock otherwise) is dropped and its row retracted
// from the view, so the view holds the groups active within the TTL.
type Aggregate struct {
	id      string
	groups  []int
	calls   []planner.AggCall
	ttl     int64
	timeCol int // input event-time column, -1 for wall-clock TTL
	out     Output
	keep    func(group types.Row) bool

	wm      int64
	now     int64
	entries map[string]*aggEntry
	// changed lists the keys of groups changed since the last
	// checkpoint; gone the keys a checkpoint wrote whose groups expired
	// since.
	changed dirtyList[string]
	gone    []string

	store    *state.Store
	budget   int
	resident int // groups whose values are in memory
	spill    spillArea
	// onDisk: groups not in entries may be in Badger (restored lazily,
	// or evicted whole: see aggregate_spill.go).
	onDisk  bool
	pending []*aggEntry
	keyBuf  []byte
}

type aggEntry struct {
	key       string
	group     types.Row
	acc       accs
	emitted   types.Row
	last      int64 // event (or processing) time of the last update
	pending   bool
	persisted bool // a checkpoint holds this key
	dirty     bool // changed since the last checkpoint (listed in changed)
	evicted   bool // acc and emitted are in Badger, not in memory
}

// AggregateConfig configures an Aggregate.
type AggregateConfig struct {
	// Store and Budget enable spilling: at most Budget groups keep their
	// accumulators in memory (0: no limit).
	Store   *state.Store
	Budget  int
	ID      string
	Node    *planner.Aggregate
	TimeCol int
	Out     Output
	Keep    func(group types.Row) bool
	Now     int64
}

// NewAggregate returns the operator for n.
func NewAggregate(c AggregateConfig) *Aggregate {
	a := &Aggregate{
		id: c.ID, groups: c.Node.GroupCols, calls: c.Node.Aggs, ttl: c.Node.TTL, timeCol: c.TimeCol,
		out: c.Out, keep: c.Keep, wm: types.MinTime, now: c.Now,
		entries: map[string]*aggEntry{},
		spill:   newSpillArea(c.Store, c.ID),
	}
	if c.Store != nil && c.Budget > 0 {
		a.store, a.budget = c.Store, c.Budget
	}
	return a
}

// Process implements Operator.
func (a *Aggregate) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		if b.Diff(i) < 0 {
			continue // inputs are append-only (the planner guarantees it)
		}
		a.keyBuf = a.keyBuf[:0]
		for _, c := range a.groups {
			a.keyBuf = state.AppendKey(a.keyBuf, r[c])
		}
		e, ok := a.entries[string(a.keyBuf)]
		if !ok && a.onDisk {
			var err error
			if e, err = a.load(string(a.keyBuf)); err != nil {
				return err
			}
			ok = e != nil
		}
		if ok {
			if err := a.use(e); err != nil {
				return err
			}
		} else {
			g := make(types.Row, len(a.groups))
			for j, c := range a.groups {
				g[j] = r[c]
			}
			e = &aggEntry{key: string(a.keyBuf), group: g, acc: newAccs(a.calls), last: types.MinTime}
			a.entries[e.key] = e
			a.resident++
		}
		e.acc.add(a.calls, r)
		if a.timeCol >= 0 && !r[a.timeCol].IsNull() {
			if t := r[a.timeCol].I; t > e.last {
				e.last = t
			}
		} else {
			e.last = a.now
		}
		a.markDirty(e)
		if !e.pending {
			e.pending = true
			a.pending = append(a.pending, e)
		}
	}
	out := &Batch{}
	for _, e := range a.pending {
		e.pending = false
		row := make(types.Row, 0, len(e.group)+len(e.acc))
		row = append(row, e.group...)
		for _, x := range e.acc {
			row = append(row, x.result())
		}
		if e.emitted != nil {
			if rowsEqual(e.emitted, row) {
				continue
			}
			out.Rows = append(out.Rows, e.emitted)
			out.Diffs = append(out.Diffs, -1)
		}
		out.Rows = append(out.Rows, row)
		out.Diffs = append(out.Diffs, 1)
		e.emitted = row
	}
	a.pending = a.pending[:0]
	if err := a.out.Emit(out); err != nil {
		return err
	}
	return a.evict()
}

// expire drops groups last updated at or before limit.
func (a *Aggregate) expire(limit int64) error {
	if a.ttl <= 0 {
		return nil
	}
	out := &Batch{}
	for k, e := range a.entries {
		if e.last+a.ttl <= limit {
			if err := a.use(e); err != nil {
				return err
			}
			a.resident--
			a.spill.forget(k)
			if e.emitted != nil {
				out.Rows = append(out.Rows, e.emitted)
				out.Diffs = append(out.Diffs, -1)
			}
			delete(a.entries, k)
			if e.persisted { // a checkpoint wrote it: the next one deletes it
				a.gone = append(a.gone, k)
			}
		}
	}
	return a.out.Emit(out)
}

// Watermark implements Operator: event-time TTL expiry.
func (a *Aggregate) Watermark(_ int, wm int64) error {
	if wm <= a.wm {
		return nil
	}
	a.wm = wm
	if a.timeCol >= 0 {
		if err := a.expire(wm); err != nil {
			return err
		}
	}
	return a.out.EmitWatermark(wm)
}

// Tick implements Operator: wall-clock TTL expiry.
func (a *Aggregate) Tick(now int64) error {
	a.now = now
	if a.timeCol < 0 {
		return a.expire(now)
	}
	return nil
}

// Checkpoint implements Stateful.
func (a *Aggregate) Checkpoint(w *state.Writer) error {
	for _, k := range a.gone {
		if err := w.Delete([]byte(a.id + k)); err != nil {
			return err
		}
	}
	a.gone = nil
	for _, k := range a.changed.take() {
		e, ok := a.entries[k]
		var val []byte
		var err error
		switch {
		case ok && !e.dirty:
			continue // listed twice
		case ok:
			val, err = a.value(e)
		case a.spill.has(k): // evicted whole while changed
			val, err = a.spill.get(k)
		default:
			continue // expired since
		}
		if err != nil {
			return err
		}
		if err := w.Set([]byte(a.id+k), val); err != nil {
			return err
		}
		if ok {
			e.dirty, e.persisted = false, true
		}
	}
	return a.spill.clear(w)
}

// markDirty lists e as changed since the last checkpoint.
func (a *Aggregate) markDirty(e *aggEntry) {
	if !e.dirty {
		e.dirty = true
		a.changed.add(e.key, len(a.entries), func(k string) bool {
			x := a.entries[k]
			return (x != nil && x.dirty) || a.spill.has(k)
		})
	}
}

// encode is the state value of a group in memory: its last update time,
// the group, the emitted row, then one row per accumulator.
func (a *Aggregate) encode(e *aggEntry) []byte { return a.encodeWith(e) }

// encodeWith is encode with extra values after the last update time.
func (a *Aggregate) encodeWith(e *aggEntry, extra ...types.Value) []byte {
	rows := []types.Row{append(types.Row{types.IntValue(e.last)}, extra...), e.group, e.emitted}
	rows = append(rows, e.acc.encode()...)
	return state.EncodeValue(rows...)
}

// owns reports whether this instance keeps the group stored under key,
// from the key alone (the group's values in key form, which Owner hashes
// alike).
func (a *Aggregate) owns(key []byte) (bool, error) {
	if a.keep == nil {
		return true, nil
	}
	g, err := state.DecodeKeys(key[len(a.id):])
	if err != nil {
		return false, fmt.Errorf("%s: %w", a.id, err)
	}
	return a.keep(g), nil
}

// Restore implements Stateful. A spilling aggregate without TTL reads
// nothing: a group comes into memory from the checkpoint when its next
// row arrives (lazy), so a restart costs no time per stored group. With
// TTL every owned group is loaded, since expiry visits them all.
func (a *Aggregate) Restore(s *state.Store) error {
	if a.evictsWhole() {
		a.onDisk = true
		return nil
	}
	err := s.ScanOwned([]byte(a.id), a.owns, func(key, val []byte) error {
		e, err := a.decodeEntry(string(key[len(a.id):]), val, false)
		if err != nil {
			return err
		}
		if a.keep != nil && !a.keep(e.group) {
			return nil
		}
		a.entries[e.key] = e
		a.resident++
		return nil
	})
	if err != nil {
		return err
	}
	return a.evict()
}

// decodeEntry decodes the group stored under key: checkpointed, or from
// the spill area (spilled), whose values carry (last, persisted) and whose
// groups are still changed since the checkpoint (listed in changed).
func (a *Aggregate) decodeEntry(key string, val []byte, spilled bool) (*aggEntry, error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	if len(rows) < 3 || len(rows[0]) < 1 {
		return nil, errCorrupt(a.id)
	}
	e := &aggEntry{key: key, last: rows[0][0].I, group: rows[1], acc: newAccs(a.calls), persisted: true}
	if len(rows[2]) > 0 {
		e.emitted = rows[2]
	}
	if err := e.acc.decode(rows[3:]); err != nil {
		return nil, err
	}
	if spilled {
		e.persisted, e.dirty = len(rows[0]) > 1 && rows[0][1].Bool(), true
	}
	return e, nil
}

// load brings the group stored under key into memory from Badger (a
// group evicted whole, or not loaded since a lazy restore): from the spill
// area when it changed since the last checkpoint, else from the
// checkpoint; nil when neither holds it.
func (a *Aggregate) load(key string) (*aggEntry, error) {
	spilled := a.spill.has(key)
	var val []byte
	var err error
	if spilled {
		val, err = a.spill.get(key)
	} else {
		var ok bool
		if val, ok, err = a.store.Get([]byte(a.id + key)); err == nil && !ok {
			return nil, nil
		}
		a.spill.reads++
	}
	if err != nil {
		return nil, err
	}
	e, err := a.decodeEntry(key, val, spilled)
	if err != nil {
		return nil, fmt.Errorf("load group state: %w", err)
	}
	a.entries[key] = e
	a.resident++
	return e, nil
}

// StateKeys implements stateSizer: the groups in memory.
func (a *Aggregate) StateKeys() int64 { return int64(len(a.entries)) }
