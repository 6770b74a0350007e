package exec

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// Aggregate is a non-windowed GROUP BY. Each change to a group retracts
// the group's previous row and inserts the new one. Over an append-only
// input it folds inserts into the plain accumulators (accumulator.go);
// over a retracting input (planner.AggregateRetracts) it uses the
// retracting ones (accumulator_retract.go) with a hidden count of the
// group's rows: a retracted row is taken back (count, sum and avg
// subtract; min, max and DISTINCT keep each distinct value's count), and
// a group whose last row is retracted is deleted with its row.
//
// Without GROUP BY there is one group, which exists before any row: its
// row (count 0, the other aggregates NULL) is emitted at the first tick,
// and a retraction of its last row brings that row back instead of
// deleting it, as Postgres answers over no rows.
//
// State: one accumulator set per group key. It is bounded only by STATE
// TTL: a group not updated for TTL (event time when the input has a
// watermark, the wall clock otherwise) is dropped and its row retracted
// from the view, so the view holds the groups active within the TTL.
// When each group expires is kept in a timer queue (timers.go), in memory
// and, from each checkpoint, in Badger, so expiry visits only the groups
// it drops and evicted groups leave memory whole. A DISTINCT set grows
// with the distinct values of its group (over a retracting input, those
// with copies left); over an append-only input its BIGINT values are an
// intSet (intset.go: sorted blocks of delta-coded gaps, a byte or two an
// id). From 1,024 entries a set is stored in chunks apart from the
// group's other state, so a checkpoint writes only what changed in it
// (aggregate_distinct.go), and in memory such a set also lists its
// changes since the last checkpoint; a smaller one is written whole in
// the group's value, its BIGINT values as their blocks.
//
// A ranked aggregate (UNION's distinct step) keeps a group's column
// values from its first row of the lowest rank (rerank); the rank's min
// is one of its accumulators.
type Aggregate struct {
	id      string
	groups  []int
	calls   []planner.AggCall
	ttl     int64
	timeCol int // input event-time column, -1 for wall-clock TTL
	out     Output
	keep    func(group types.Row) bool
	retract bool // the input retracts: retracting accumulators
	ranked  bool // planner.Aggregate.Ranked

	wm      int64
	now     int64
	entries map[string]*aggEntry
	// changed lists the keys of groups changed since the last
	// checkpoint; gone the keys a checkpoint wrote whose groups expired
	// since, with their stored timers and sets' chunks (a group started
	// again under such a key is written after they are deleted).
	changed dirtyList[string]
	gone    map[string]goneGroup
	timers  timerQueue
	marked  bool // this run wrote the timer marker

	store  *state.Store
	budget int
	mem    *memShare // its share of the memory budget, or nil
	spill  spillArea
	// onDisk: groups not in entries may be in Badger (restored lazily,
	// or evicted whole: see aggregate_spill.go).
	onDisk  bool
	pending []*aggEntry
	keyBuf  []byte
	// sets lists the accumulators that are DISTINCT sets, stored in
	// chunks under setSpace (aggregate_distinct.go) and read from db.
	sets     []int
	setSpace string
	db       *state.Store
	valBuf   []byte // writeSets' buffers
	chunkBuf []byte
	// bigs are resident groups with sets stored in chunks, which the
	// memory estimate counts exactly (meanBytes)
	bigs    map[string]*aggEntry
	batches uint64   // the batches processed
	ages    []uint64 // evict's buffer: the groups' last-updated batches
}

type aggEntry struct {
	key       string
	group     types.Row
	acc       accs
	emitted   types.Row
	last      int64 // event (or processing) time of the last update
	indexed   int64 // the group's timer in the last checkpoint (noTimer: none)
	queued    int64 // the time of its memory timer this run pushed and has not yet fired (noTimer: none)
	pending   bool
	persisted bool   // a checkpoint holds this key
	dirty     bool   // changed since the last checkpoint (listed in changed)
	used      uint64 // the batch that last updated it (Aggregate.batches): evict takes the oldest
	// chunks are the headers of its DISTINCT sets' stored chunks (one per
	// Aggregate.sets); rewrite: the next checkpoint writes the sets whole
	// (their changes since the stored chunks are not listed).
	chunks  []setChunks
	rewrite bool
	chunked bool // decoded, its sets not yet read from their chunks
	// partial: decoded from the spill area for a checkpoint, its sets
	// with chunks holding only their changes since them
	partial bool
}

// AggregateConfig configures an Aggregate.
type AggregateConfig struct {
	// Store with Budget or Memory enables spilling: at most Budget groups
	// (0: no cap), and no more than fit in Memory's bytes (nil: no
	// share), keep their accumulators in memory.
	Store   *state.Store
	Budget  int
	Memory  *MemoryBudget
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
		entries: map[string]*aggEntry{}, gone: map[string]goneGroup{},
		spill: newSpillArea(c.Store, c.ID), timers: newTimerQueue(c.Store, c.ID),
		retract: planner.AggregateRetracts(c.Node), ranked: c.Node.Ranked && len(c.Node.Aggs) > 0,
		setSpace: strings.TrimSuffix(c.ID, "/") + "@d/", db: c.Store,
	}
	a.sets = setIndexes(a.newAccs())
	if c.Store != nil && (c.Budget > 0 || c.Memory != nil) {
		a.store, a.budget, a.mem = c.Store, c.Budget, c.Memory.join()
	}
	return a
}

// Process implements Operator.
func (a *Aggregate) Process(_ int, b *Batch) error {
	a.batches++
	for i, r := range b.Rows {
		a.keyBuf = a.keyBuf[:0]
		for _, c := range a.groups {
			a.keyBuf = state.AppendKey(a.keyBuf, r[c])
		}
		if b.Diff(i) < 0 {
			if err := a.retractRow(r, b.Diff(i)); err != nil {
				return err
			}
			continue
		}
		e, created, err := a.entry(r)
		if err != nil {
			return err
		}
		// fresh: no row has updated it yet (new, or the global group's
		// empty-input row), so STATE TTL has no timer for it
		fresh := created || e.last == types.MinTime
		e.used = a.batches
		if a.ranked && !created {
			a.rerank(e, r)
		}
		if !a.retract {
			e.acc.add(a.calls, r)
		}
		for d := b.Diff(i); a.retract && d > 0; d-- {
			e.acc.insert(a.calls, r)
		}
		if a.timeCol >= 0 && !r[a.timeCol].IsNull() {
			if t := r[a.timeCol].I; t > e.last {
				e.last = t
			}
		} else {
			e.last = a.now
		}
		if fresh && a.ttl > 0 {
			a.queue(e)
		}
		a.markDirty(e)
		if !e.pending {
			e.pending = true
			a.pending = append(a.pending, e)
		}
	}
	if err := a.ensureGlobal(); err != nil {
		return err
	}
	return a.flush()
}

// flush emits how the pending groups changed: a group's old row retracted
// and its new one inserted, a group left empty retracted and forgotten
// (the global group instead goes back to its empty-input row).
func (a *Aggregate) flush() error {
	out := &Batch{}
	for _, e := range a.pending {
		e.pending = false
		if a.empty(e) && !a.global() {
			if e.emitted != nil {
				out.Rows = append(out.Rows, e.emitted)
				out.Diffs = append(out.Diffs, -1)
			}
			a.remove(e)
			continue
		}
		row := make(types.Row, 0, len(e.group)+len(a.calls))
		row = append(row, e.group...)
		for _, x := range e.acc[:len(a.calls)] {
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

// rerank takes group e's values from row r when r ranks below every row
// the group holds (planner.Aggregate.Ranked: the last call is the min of
// the rank), so the group shows its lowest-ranked first row.
func (a *Aggregate) rerank(e *aggEntry, r types.Row) {
	last := len(a.calls) - 1
	rank, cur := r[a.calls[last].Arg], e.acc[last].result()
	if rank.IsNull() || (!cur.IsNull() && rank.I >= cur.I) {
		return
	}
	for j, c := range a.groups {
		e.group[j] = r[c]
	}
}

// global reports whether the aggregate has no GROUP BY: one group, which
// exists before any row (Postgres's and RisingWave's answer over no rows
// is one row: count 0, the other aggregates NULL).
func (a *Aggregate) global() bool { return len(a.groups) == 0 }

// ensureGlobal creates the global group, with its empty-input row pending
// emission, when the instance that owns it holds none (before the first
// row, or after STATE TTL dropped it).
func (a *Aggregate) ensureGlobal() error {
	if !a.global() || (a.keep != nil && !a.keep(types.Row{})) {
		return nil
	}
	a.keyBuf = a.keyBuf[:0]
	e, created, err := a.entry(nil)
	if err != nil || !created {
		return err
	}
	a.markDirty(e)
	e.pending = true
	a.pending = append(a.pending, e)
	return nil
}

// retractRow takes row r (in keyBuf's key form) back -d times from its
// group, which is emitted with the inserts. A retraction an append-only
// aggregate gets is ignored (the planner gives it none), and so is one of
// a group it does not hold (expired under STATE TTL).
func (a *Aggregate) retractRow(r types.Row, d int8) error {
	if !a.retract {
		return nil
	}
	e, err := a.lookup(string(a.keyBuf))
	if e == nil || err != nil {
		return err
	}
	e.used = a.batches
	for ; d < 0; d++ {
		e.acc.remove(a.calls, r)
	}
	if a.timeCol < 0 {
		e.last = a.now
	}
	a.markDirty(e)
	if !e.pending {
		e.pending = true
		a.pending = append(a.pending, e)
	}
	return nil
}

// empty reports whether every row of group e was retracted.
func (a *Aggregate) empty(e *aggEntry) bool {
	return a.retract && e.acc[len(a.calls)].(*countAcc).n <= 0
}

// newAccs returns a new group's accumulators.
func (a *Aggregate) newAccs() accs {
	if a.retract {
		return newRetractAccs(a.calls)
	}
	return newAccs(a.calls)
}

// entry returns the group of row r (in keyBuf's key form): from memory,
// else from Badger, else a new one (created).
func (a *Aggregate) entry(r types.Row) (e *aggEntry, created bool, err error) {
	if e, err = a.lookup(string(a.keyBuf)); e != nil || err != nil {
		return e, false, err
	}
	g := make(types.Row, len(a.groups))
	for j, c := range a.groups {
		g[j] = r[c]
	}
	e = &aggEntry{key: string(a.keyBuf), group: g, acc: a.newAccs(), last: types.MinTime, indexed: noTimer, queued: noTimer}
	// A group stored and removed since (in gone) starts afresh: the next
	// checkpoint deletes the old one's value, timer and chunks, then
	// writes this one.
	e.chunks = make([]setChunks, len(a.sets))
	a.trackSets(e)
	a.entries[e.key] = e
	return e, true, nil
}

// lookup returns the group stored under key k, loading it from Badger
// when it is not in memory; nil when there is none.
func (a *Aggregate) lookup(k string) (*aggEntry, error) {
	if e, ok := a.entries[k]; ok || !a.onDisk {
		return e, nil
	}
	return a.load(k)
}

// expiry is when group e expires: TTL after its last update.
func (a *Aggregate) expiry(e *aggEntry) int64 {
	if a.ttl <= 0 {
		return noTimer
	}
	return e.last + a.ttl
}

// queue covers group e at its expiry in the memory timers. A group
// visited by several due timers at once (stored ones, and memory ones
// pushed before it was evicted and loaded again) is queued once, so
// revisits do not multiply its timers.
func (a *Aggregate) queue(e *aggEntry) {
	e.queued = a.expiry(e)
	a.timers.push(e.queued, e.key)
}

// expire drops the groups last updated at or before limit, visiting the
// groups whose timers are due: a group updated since its timer was set
// is covered again at its new expiry.
func (a *Aggregate) expire(limit int64) error {
	if a.ttl <= 0 {
		return nil
	}
	due, err := a.timers.due(limit, a.onDisk, a.ownsKey)
	if err != nil {
		return err
	}
	out := &Batch{}
	for _, it := range due {
		e, err := a.lookup(it.key)
		if err != nil {
			return err
		}
		if e == nil {
			continue // expired already (visited twice)
		}
		if it.at == e.queued {
			e.queued = noTimer // this visit is the one it pushed
		}
		if a.expiry(e) > limit {
			if e.queued == noTimer { // else that timer comes first and revisits
				a.queue(e)
			}
			continue
		}
		if e.emitted != nil {
			out.Rows = append(out.Rows, e.emitted)
			out.Diffs = append(out.Diffs, -1)
		}
		a.remove(e)
	}
	if err := a.out.Emit(out); err != nil {
		return err
	}
	return a.evict()
}

// remove forgets group e; a checkpoint that wrote it owes a delete.
func (a *Aggregate) remove(e *aggEntry) {
	delete(a.entries, e.key)
	a.spill.forget(e.key)
	if e.persisted {
		a.gone[e.key] = goneGroup{indexed: e.indexed, chunks: e.chunks}
	}
}

// Watermark implements Operator: event-time TTL expiry. The end of a
// bounded input (EndOfTime) expires nothing: no row will come to update
// a group, so the view keeps the final answer of the groups active within
// the TTL of the last real watermark.
func (a *Aggregate) Watermark(_ int, wm int64) error {
	if wm <= a.wm {
		return nil
	}
	a.wm = wm
	if a.timeCol >= 0 && wm != types.EndOfTime {
		if err := a.expire(wm); err != nil {
			return err
		}
	}
	if err := a.startGlobal(); err != nil {
		return err
	}
	return a.out.EmitWatermark(wm)
}

// Tick implements Operator: wall-clock TTL expiry.
func (a *Aggregate) Tick(now int64) error {
	a.now = now
	if a.timeCol < 0 {
		if err := a.expire(now); err != nil {
			return err
		}
	}
	return a.startGlobal()
}

// startGlobal emits the global group's empty-input row when it has none
// yet (see ensureGlobal).
func (a *Aggregate) startGlobal() error {
	if !a.global() {
		return nil
	}
	if err := a.ensureGlobal(); err != nil {
		return err
	}
	if len(a.pending) == 0 {
		return nil
	}
	return a.flush()
}

// Checkpoint implements Stateful: deletes for expired groups a checkpoint
// wrote, then every group changed since, each with its stored timer
// moved to its expiry (under STATE TTL) and its DISTINCT sets' changes
// (aggregate_distinct.go).
func (a *Aggregate) Checkpoint(w *state.Writer) error {
	if a.ttl > 0 && !a.marked {
		if err := w.Set(a.timers.marker, timersMark); err != nil {
			return err
		}
		a.marked = true
	}
	for k, old := range a.gone {
		if err := a.deleteGroup(w, k, old); err != nil {
			return err
		}
		if err := a.timers.move(w, k, old.indexed, noTimer); err != nil {
			return err
		}
	}
	a.gone = map[string]goneGroup{}
	for _, k := range a.changed.take() {
		if err := a.checkpointGroup(w, k); err != nil {
			return err
		}
	}
	if err := a.spill.clear(w); err != nil {
		return err
	}
	a.timers.prune(func(k string) bool { return a.entries[k] != nil })
	return nil
}

// checkpointGroup writes the group stored under k, if it changed since
// the last checkpoint: from memory, else from the spill area.
func (a *Aggregate) checkpointGroup(w *state.Writer, k string) error {
	e, ok := a.entries[k]
	switch {
	case ok && !e.dirty:
		return nil // listed twice
	case !ok && !a.spill.has(k):
		return nil // expired since
	case !ok: // evicted whole while changed
		val, err := a.spill.get(k)
		if err != nil {
			return err
		}
		// first without reading its sets' chunks (partial): enough to
		// append their changes, else read whole
		if e, err = a.decodeEntry(k, val, true, nil); err != nil {
			return err
		}
		if e.partial && !a.appendable(e) {
			if e, err = a.decodeEntry(k, val, true, a.store); err != nil {
				return err
			}
		}
	}
	if err := a.writeSets(w, e); err != nil {
		return err
	}
	a.noteBig(e)
	if err := w.Set([]byte(a.id+k), a.encode(e)); err != nil {
		return err
	}
	now := a.expiry(e)
	if err := a.timers.move(w, k, e.indexed, now); err != nil {
		return err
	}
	e.dirty, e.persisted, e.indexed = false, true, now
	return nil
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

// encode is the checkpointed value of a group: its last update time, the
// group, the emitted row, one row per accumulator (empty for a DISTINCT
// set stored in its chunks), then the header of the sets' chunks.
func (a *Aggregate) encode(e *aggEntry) []byte {
	return a.encodeAs(e, setsChunked)
}

// encodeWith is a group's value in the spill area: encode's, with extra
// values after the last update time and, in the row of a DISTINCT set
// with stored chunks, its changes since them (setsSpilled), so evicting
// a changed group writes no more of its sets than the checkpoint would.
func (a *Aggregate) encodeWith(e *aggEntry, extra ...types.Value) []byte {
	return a.encodeAs(e, setsSpilled, extra...)
}

// encodeAs is encode (mode setsChunked: a chunked set's row left empty)
// or encodeWith (setsSpilled: its changes since its chunks).
func (a *Aggregate) encodeAs(e *aggEntry, mode int64, extra ...types.Value) []byte {
	b := a.appendScalar(nil, e, extra...)
	for i, x := range e.acc {
		if j := a.setOf(i); j >= 0 && e.chunks[j].n > 0 {
			if mode == setsSpilled {
				b = x.(chunkedSet).appendPending(b)
			} else {
				b = binary.AppendUvarint(b, 0)
			}
			continue
		}
		if s, ok := x.(stateAppender); ok {
			b = s.appendState(b)
			continue
		}
		b = state.AppendRow(b, x.encode())
	}
	return a.appendHeader(b, e, mode)
}

// appendScalar appends the start of a group's value: the version, the
// row count, the last update time (and extra), the group, the emitted
// row.
func (a *Aggregate) appendScalar(b []byte, e *aggEntry, extra ...types.Value) []byte {
	b = append(b, state.Version)
	b = binary.AppendUvarint(b, uint64(4+len(e.acc)))
	b = state.AppendRow(b, append(types.Row{types.IntValue(e.last)}, extra...))
	b = state.AppendRow(b, e.group)
	return state.AppendRow(b, e.emitted)
}

// owns reports whether this instance keeps the group stored under key,
// from the key alone.
func (a *Aggregate) owns(key []byte) (bool, error) { return a.ownsKey(string(key[len(a.id):])) }

// ownsKey reports whether this instance keeps group key k (the group's
// values in key form, which Owner hashes alike).
func (a *Aggregate) ownsKey(k string) (bool, error) { return ownsKey(a.keep, a.id, []byte(k)) }

// Restore implements Stateful. A spilling aggregate reads nothing: a
// group comes into memory from the checkpoint when its next row arrives
// or its stored timer fires (lazy), so a restart costs no time per stored
// group. Otherwise, or from a store whose STATE TTL groups have no stored
// timers yet (written before them), every owned group is loaded, covered
// by the heap; in the latter case each is marked changed so the next
// checkpoint writes its timer.
func (a *Aggregate) Restore(s *state.Store) error {
	a.db = s
	timers, err := a.timers.marked(s)
	if err != nil {
		return err
	}
	if a.store != nil && (a.ttl <= 0 || timers) {
		a.onDisk = true
		return nil
	}
	var chunked []*aggEntry // read their sets after the scan
	err = s.ScanOwned([]byte(a.id), a.owns, func(key, val []byte) error {
		e, err := a.decodeEntry(string(key[len(a.id):]), val, false, nil)
		if err != nil {
			return err
		}
		if e.chunked {
			chunked = append(chunked, e)
		}
		a.entries[e.key] = e
		a.noteBig(e)
		if a.ttl > 0 {
			a.queue(e)
		}
		if a.ttl > 0 && !timers {
			e.indexed = noTimer
			a.markDirty(e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, e := range chunked {
		if err := a.readSets(s, e, nil); err != nil {
			return err
		}
		e.chunked = false
	}
	return a.evict()
}

// decodeEntry decodes the group stored under key: checkpointed (its
// timer is its expiry), or from the spill area (spilled), whose values
// carry (last, persisted, indexed) and whose groups are still changed
// since the checkpoint (listed in changed). A value holds its DISTINCT
// sets inline (small ones; all of them when written before they had
// chunks: e.rewrite) or in chunks (aggregate_distinct.go), which it reads
// from s, a spilled value then adding their changes since the chunks;
// with s nil it leaves the chunks to the caller (e.chunked: a
// checkpointed value's), or for a spilled value loads its sets' changes
// alone (e.partial: for the checkpoint to append them). Unless e.chunked,
// e's sets track their changes.
func (a *Aggregate) decodeEntry(key string, val []byte, spilled bool, s *state.Store) (*aggEntry, error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	if len(rows) < 3 || len(rows[0]) < 1 {
		return nil, errCorrupt(a.id)
	}
	e := &aggEntry{key: key, last: rows[0][0].I, group: rows[1], acc: a.newAccs(), persisted: true, queued: noTimer}
	e.chunks = make([]setChunks, len(a.sets))
	if len(rows[2]) > 0 {
		e.emitted = rows[2]
	}
	accRows := rows[3:]
	mode := int64(setsInline)
	if len(accRows) == len(e.acc)+1 { // with the sets' header
		if mode, err = a.readHeader(e, accRows[len(e.acc)]); err != nil {
			return nil, err
		}
		accRows = accRows[:len(e.acc)]
	}
	e.rewrite = mode == setsInline
	var pending []types.Row // a spilled value's changes of the sets with chunks
	if mode == setsSpilled && e.stored() {
		pending = make([]types.Row, len(a.sets))
		for j, i := range a.sets {
			if e.chunks[j].n > 0 {
				pending[j], accRows[i] = accRows[i], nil
			}
		}
	}
	if err := e.acc.decode(accRows); err != nil {
		return nil, err
	}
	e.indexed = a.expiry(e)
	if spilled {
		if len(rows[0]) < 3 {
			return nil, errCorrupt(a.id)
		}
		e.persisted, e.indexed, e.dirty = rows[0][1].Bool(), rows[0][2].I, true
	}
	e.chunked = mode != setsInline && e.stored()
	if e.chunked && pending != nil && s == nil { // partial: the changes alone
		a.trackSets(e)
		for j, i := range a.sets {
			if pending[j] != nil {
				if err := e.acc[i].(chunkedSet).replay(pending[j]); err != nil {
					return nil, err
				}
			}
		}
		e.chunked, e.partial = false, true
	}
	if e.chunked && s != nil {
		if err := a.readSets(s, e, pending); err != nil {
			return nil, err
		}
		e.chunked = false
	}
	if !e.chunked {
		a.trackSets(e)
	}
	return e, nil
}

// load brings the group stored under key into memory from Badger (a
// group evicted whole, or not loaded since a lazy restore): from the spill
// area when it changed since the last checkpoint, else from the
// checkpoint; nil when neither holds it or it expired since.
func (a *Aggregate) load(key string) (*aggEntry, error) {
	spilled := a.spill.has(key)
	if _, ok := a.gone[key]; ok && !spilled { // else started again since
		return nil, nil
	}
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
	e, err := a.decodeEntry(key, val, spilled, a.store)
	if err != nil {
		return nil, fmt.Errorf("load group state: %w", err)
	}
	a.entries[key] = e
	a.noteBig(e)
	return e, nil
}

// StateKeys implements stateSizer: the groups in memory.
func (a *Aggregate) StateKeys() int64 { return int64(len(a.entries)) }
