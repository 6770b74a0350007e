package exec

import (
	"fmt"
	"math"
	"sort"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TemporalJoin is the join of a stream (port 0) with a TABLE's changelog
// (port 1) FOR SYSTEM_TIME AS OF (planner.TemporalJoin and
// planner.LookupJoin), inner or LEFT; its output is append-only: a joined
// row never changes.
//
// A lookup join (AS OF PROCTIME()) keeps the table's current rows by
// key, applying its inserts and deletes, and joins each stream row with
// them as it arrives; later table changes leave joined rows alone. The
// stream's watermark passes through.
//
// An event-time temporal join (AS OF stream.ts) keeps per key the
// table's versions in version-time order (an upsert adds the new row as
// a version; a version at the time of an existing one replaces it). A
// delete of the key is a version of "no row" (a tombstone) at the
// version time of the row deleted, the only time the changelog carries
// for it (an upsert tombstone deletes the row the TABLE holds; a
// Debezium delete likewise): rows at or after it find no version until
// a later one. The table's changelog sends an upsert as the old row's
// delete then the new row's insert, so a delete is pending until the
// frontier next moves: an insert of the key before then makes the pair
// an upsert (a DELETE and an INSERT of the key between two moves of the
// frontier are one too).
//
// A stream row waits until the minimum of both inputs' watermarks (the
// frontier) reaches its time, then joins the version with the largest
// version time <= its time, in time order; an inner join drops a row
// with no such version (or whose version fails the residual), a LEFT
// join pads it. A stream row that arrives with its time before the
// frontier is late: dropped and counted (versions it needs may be gone).
// A version that arrives late is kept for the rows still waiting. The
// output watermark is the frontier.
//
// State: per key, the versions from the last one at or before the
// frontier on (older ones are dropped when the key is next touched; a
// key whose last such version is a tombstone and that has no rows
// waiting is dropped whole), the pending delete, and the stream rows
// waiting for the frontier; a lookup join keeps the table's rows only.
// Past the state budget whole keys spill (join_temporal_spill.go); the
// names of the keys with rows waiting (with their earliest time) or a
// pending delete stay in memory, bounded by the keys with rows between
// the two watermarks. A checkpoint writes the keys changed since the
// last one and the watermarks; a restore reads every owned key once.
type TemporalJoin struct {
	id       string
	n        *planner.Join
	residual func(types.Row) bool
	out      Output
	late     *lateness.Counters
	keep     func(key types.Row) bool
	event    bool // an event-time temporal join, not a lookup join

	// keys holds the keys in memory; with spilling (store set) others
	// are in the spill area (changed since the last checkpoint) or the
	// checkpoint (onDisk: see join_temporal_spill.go).
	keys  map[string]*temporalKey
	dirty map[string]bool // changed since the last checkpoint (deleted keys too)
	// waiting maps each key with stream rows waiting, in memory or not, to
	// their earliest time; minWait is a lower bound of those times.
	waiting map[string]int64
	minWait int64
	// deleting lists the keys with a pending delete (temporalKey.del).
	deleting map[string]bool
	wm       [2]int64
	frontier int64 // min(wm) as last acted on
	wmDirty  bool
	width    [2]int

	store  *state.Store
	budget int
	mem    *memShare
	spill  spillArea
	onDisk bool
}

// temporalKey is one key's table rows (a lookup join's current rows; an
// event-time join's versions, by version time) and waiting stream rows.
type temporalKey struct {
	rows []types.Row
	wait []types.Row
	// del is the row of an event-time join's pending delete: the TABLE
	// deleted it since the frontier last moved and has not inserted the
	// key again (which would make the pair an upsert).
	del types.Row
}

// TemporalJoinConfig configures a TemporalJoin.
type TemporalJoinConfig struct {
	ID       string
	Node     *planner.Join
	Residual func(types.Row) bool
	Out      Output
	Late     *lateness.Counters
	// Keep filters the keys a restore loads (an instance of a parallel
	// join owns some of them); nil keeps all.
	Keep func(key types.Row) bool
	// Store with Budget or Memory enables spilling: at most Budget keys
	// (state_cache_size), and no more than fit in a share of Memory, stay
	// in memory (join_temporal_spill.go).
	Store  *state.Store
	Budget int
	Memory *MemoryBudget
}

// NewTemporalJoin returns the operator for c.Node.
func NewTemporalJoin(c TemporalJoinConfig) *TemporalJoin {
	t := &TemporalJoin{id: c.ID, n: c.Node, residual: c.Residual, out: c.Out, late: c.Late, keep: c.Keep,
		event: c.Node.Kind == planner.TemporalJoin, keys: map[string]*temporalKey{}, dirty: map[string]bool{},
		waiting: map[string]int64{}, minWait: math.MaxInt64, deleting: map[string]bool{},
		wm: [2]int64{types.MinTime, types.MinTime}, frontier: types.MinTime,
		width: [2]int{len(c.Node.Left.Schema()), len(c.Node.Right.Schema())}}
	if c.Store != nil && (c.Budget > 0 || c.Memory != nil) {
		t.store, t.budget, t.mem = c.Store, c.Budget, c.Memory.join()
		t.spill = newSpillArea(c.Store, c.ID)
	}
	return t
}

func (t *TemporalJoin) keyOf(side int, r types.Row) string {
	cols := t.n.LeftKeys
	if side == 1 {
		cols = t.n.RightKeys
	}
	return string(state.AppendKeyCols(nil, r, cols))
}

// nullKey reports whether a key column of r (on side) is NULL: it
// matches nothing.
func (t *TemporalJoin) nullKey(side int, r types.Row) bool {
	cols := t.n.LeftKeys
	if side == 1 {
		cols = t.n.RightKeys
	}
	for _, c := range cols {
		if r[c].IsNull() {
			return true
		}
	}
	return false
}

// Process implements Operator: port 0 is the stream, 1 the table.
func (t *TemporalJoin) Process(port int, b *Batch) error {
	if port == 1 {
		for i, r := range b.Rows {
			if err := t.tableRow(r, b.Diff(i)); err != nil {
				return err
			}
		}
		return t.evict()
	}
	out := &Batch{}
	for _, r := range b.Rows {
		if err := t.streamRow(r, out); err != nil {
			return err
		}
	}
	if err := t.out.Emit(out); err != nil {
		return err
	}
	return t.evict()
}

// streamRow joins stream row r at once (a lookup join, or a NULL time),
// drops it as late, or keeps it waiting for the frontier.
func (t *TemporalJoin) streamRow(r types.Row, out *Batch) error {
	switch {
	case !t.event:
		e, err := t.get(t.keyOf(0, r))
		if err != nil {
			return err
		}
		t.join(r, e, out)
	case r[t.n.LeftTime].IsNull():
		t.join(r, nil, out) // no version time is <= NULL
	case r[t.n.LeftTime].I < t.frontier:
		if t.late != nil {
			t.late.Add(lateness.Drop, "late", 1)
		}
	default:
		k := t.keyOf(0, r)
		e, err := t.entry(k)
		if err != nil {
			return err
		}
		e.wait = append(e.wait, append(types.Row(nil), r...))
		t.dirty[k] = true
		t.wait(k, r[t.n.LeftTime].I)
	}
	return nil
}

// wait lists key k as having a stream row waiting at ts.
func (t *TemporalJoin) wait(k string, ts int64) {
	if at, ok := t.waiting[k]; !ok || ts < at {
		t.waiting[k] = ts
	}
	t.minWait = min(t.minWait, ts)
}

// get returns key k's state, loading it when it left memory; nil when
// the join holds nothing for k.
func (t *TemporalJoin) get(k string) (*temporalKey, error) {
	if e, ok := t.keys[k]; ok || !t.onDisk {
		return e, nil
	}
	return t.load(k)
}

// entry finds or adds key k's state.
func (t *TemporalJoin) entry(k string) (*temporalKey, error) {
	e, err := t.get(k)
	if e == nil && err == nil {
		e = &temporalKey{}
		t.keys[k] = e
	}
	return e, err
}

// tableRow applies one change of the table: for a lookup join an insert
// or delete of a current row; for an event-time join an insert is a
// version and a delete is pending (endVersion) until an insert of its
// key makes it an upsert's first half or the frontier moves.
func (t *TemporalJoin) tableRow(r types.Row, d int8) error {
	if t.nullKey(1, r) {
		return nil
	}
	k := t.keyOf(1, r)
	e, err := t.get(k)
	if err != nil {
		return err
	}
	if !t.event {
		if e == nil {
			e = &temporalKey{}
			t.keys[k] = e
		}
		if d > 0 {
			e.rows = append(e.rows, append(types.Row(nil), r...))
		} else {
			e.rows = removeRow(e.rows, r)
		}
		t.dirty[k] = true
		t.forgetIfEmpty(k, e)
		return nil
	}
	if d < 0 {
		// A delete, or the first half of an upsert (the old version then
		// stays history): which, the key's next change before the frontier
		// moves tells.
		if e == nil {
			e = &temporalKey{}
			t.keys[k] = e
		}
		e.del = append(types.Row(nil), r...)
		t.deleting[k], t.dirty[k] = true, true
		return nil
	}
	if e != nil && e.del != nil {
		e.del = nil // an upsert
		t.dirty[k] = true
	}
	if r[t.n.RightTime].IsNull() {
		if e != nil {
			t.forgetIfEmpty(k, e)
		}
		return nil
	}
	return t.addVersion(k, append(types.Row(nil), r...))
}

// addVersion adds version v of key k in version-time order, replacing
// one at the same time.
func (t *TemporalJoin) addVersion(k string, v types.Row) error {
	vt := v[t.n.RightTime].I
	e, err := t.entry(k)
	if err != nil {
		return err
	}
	i := sort.Search(len(e.rows), func(i int) bool { return e.rows[i][t.n.RightTime].I >= vt })
	if i < len(e.rows) && e.rows[i][t.n.RightTime].I == vt {
		e.rows[i] = v
	} else {
		e.rows = append(e.rows, nil)
		copy(e.rows[i+1:], e.rows[i:])
		e.rows[i] = v
	}
	t.prune(e)
	t.dirty[k] = true
	t.forgetIfEmpty(k, e)
	return nil
}

// endVersion applies the pending delete of key k (the row the TABLE
// deleted) to an event-time join: a version of "no row" (a tombstone:
// the deleted row's version time, every other column NULL) at the
// deleted row's version time. Like a version it replaces one at that
// time and holds until the next, so rows at or after it that are still
// to be joined find no version. A row deleted with a NULL version time
// had no version: nothing ends.
func (t *TemporalJoin) endVersion(k string, e *temporalKey) error {
	del := e.del
	e.del = nil
	t.dirty[k] = true
	if del[t.n.RightTime].IsNull() {
		t.forgetIfEmpty(k, e)
		return nil
	}
	tomb := make(types.Row, len(del)) // NULLs
	tomb[t.n.RightTime] = del[t.n.RightTime]
	return t.addVersion(k, tomb)
}

// endVersions applies every pending delete: the watermarks' minimum is
// about to move.
func (t *TemporalJoin) endVersions() error {
	if len(t.deleting) == 0 {
		return nil
	}
	keys := make([]string, 0, len(t.deleting))
	for k := range t.deleting {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e, err := t.get(k)
		if err != nil {
			return err
		}
		if e != nil && e.del != nil {
			if err := t.endVersion(k, e); err != nil {
				return err
			}
		}
	}
	clear(t.deleting)
	return nil
}

// tombstone reports whether version v is a delete's: its key columns,
// never NULL in a version, are.
func (t *TemporalJoin) tombstone(v types.Row) bool { return v[t.n.RightKeys[0]].IsNull() }

// removeRow removes one row equal to r from rows.
func removeRow(rows []types.Row, r types.Row) []types.Row {
	enc := string(state.AppendRow(nil, r))
	for i, x := range rows {
		if string(state.AppendRow(nil, x)) == enc {
			return append(rows[:i], rows[i+1:]...)
		}
	}
	return rows
}

// prune drops the versions before the last one at or before the
// frontier: no row still to be joined can pick them.
func (t *TemporalJoin) prune(e *temporalKey) {
	last := -1
	for i, v := range e.rows {
		if v[t.n.RightTime].I > t.frontier {
			break
		}
		last = i
	}
	if last > 0 {
		e.rows = append(e.rows[:0], e.rows[last:]...)
	}
}

// forgetIfEmpty drops key k when it holds nothing a row can still use:
// no waiting rows and no versions, or only a delete's at or before the
// frontier (every row still to come is at or after it and would find no
// version).
func (t *TemporalJoin) forgetIfEmpty(k string, e *temporalKey) {
	if len(e.wait) > 0 || e.del != nil {
		return
	}
	if len(e.rows) == 0 || (t.event && len(e.rows) == 1 && t.tombstone(e.rows[0]) && e.rows[0][t.n.RightTime].I <= t.frontier) {
		delete(t.keys, k)
		t.spill.forget(k)
		t.dirty[k] = true
	}
}

// join emits stream row l joined with the candidate table rows of its key
// (all current rows of a lookup join; the version valid at l's time of
// an event-time join), or padded when none matches and the join is LEFT.
func (t *TemporalJoin) join(l types.Row, e *temporalKey, out *Batch) {
	matched := false
	if e != nil && !t.nullKey(0, l) {
		cands := e.rows
		if t.event {
			at := l[t.n.LeftTime].I
			i := sort.Search(len(e.rows), func(i int) bool { return e.rows[i][t.n.RightTime].I > at })
			cands = nil
			if i > 0 && !t.tombstone(e.rows[i-1]) {
				cands = e.rows[i-1 : i]
			}
		}
		for _, r := range cands {
			row := make(types.Row, 0, t.width[0]+t.width[1])
			row = append(append(row, l[:t.width[0]]...), r[:t.width[1]]...)
			if t.residual != nil && !t.residual(row) {
				continue
			}
			out.Rows = append(out.Rows, row)
			matched = true
		}
	}
	if !matched && t.n.Type == planner.LeftOuterJoin {
		row := make(types.Row, t.width[0]+t.width[1])
		copy(row, l[:t.width[0]])
		out.Rows = append(out.Rows, row)
	}
}

// Watermark implements Operator. A lookup join passes the stream's
// watermark on. An event-time join, when the minimum of both watermarks
// moves, joins the waiting rows it reaches, in time order, and passes it
// on.
func (t *TemporalJoin) Watermark(port int, wm int64) error {
	if wm <= t.wm[port] {
		return nil
	}
	t.wm[port], t.wmDirty = wm, true
	if !t.event {
		if port == 0 {
			return t.out.EmitWatermark(wm)
		}
		return nil
	}
	m := min(t.wm[0], t.wm[1])
	if m <= t.frontier {
		return nil
	}
	if err := t.endVersions(); err != nil {
		return err
	}
	t.frontier = m
	if err := t.flush(m); err != nil {
		return err
	}
	if err := t.out.EmitWatermark(m); err != nil {
		return err
	}
	return t.evict()
}

// flush joins and emits the waiting rows with time <= m, in time order
// (ties in arrival order per key, keys in key order), loading the keys
// that left memory.
func (t *TemporalJoin) flush(m int64) error {
	if t.minWait > m {
		return nil
	}
	var keys []string
	t.minWait = math.MaxInt64
	for k, at := range t.waiting {
		if at <= m {
			keys = append(keys, k)
		} else {
			t.minWait = min(t.minWait, at)
		}
	}
	sort.Strings(keys)
	type ready struct {
		row types.Row
		e   *temporalKey
	}
	var due []ready
	for _, k := range keys {
		e, err := t.get(k)
		if err != nil {
			return err
		}
		if e == nil {
			return fmt.Errorf("rows waiting under a key the join does not hold: %w", errCorrupt(t.id))
		}
		rest := e.wait[:0:0]
		for _, r := range e.wait {
			if ts := r[t.n.LeftTime].I; ts <= m {
				due = append(due, ready{r, e})
			} else {
				rest = append(rest, r)
			}
		}
		t.dirty[k] = true
		delete(t.waiting, k)
		for _, r := range rest {
			t.wait(k, r[t.n.LeftTime].I)
		}
		// Not in place: due still points at the rows rest leaves out.
		e.wait = rest
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].row[t.n.LeftTime].I < due[j].row[t.n.LeftTime].I })
	out := &Batch{}
	for _, d := range due {
		t.join(d.row, d.e, out)
	}
	for _, k := range keys {
		if e := t.keys[k]; e != nil {
			t.prune(e)
			t.forgetIfEmpty(k, e)
		}
	}
	return t.out.Emit(out)
}

// Tick implements Operator: nothing runs on the wall clock.
func (t *TemporalJoin) Tick(int64) error { return nil }

func (t *TemporalJoin) stateKey(k string) []byte { return []byte(t.id + "k" + k) }

func (t *TemporalJoin) wmKey() []byte { return []byte(t.id + "w") }

// Checkpoint implements Stateful: each key changed since the last
// checkpoint (a header row with its number of table rows and, when it
// has a pending delete, 1; its table rows, the pending delete's row,
// then its waiting rows; a delete when it holds none) and the
// watermarks.
func (t *TemporalJoin) Checkpoint(w *state.Writer) error {
	for k := range t.dirty {
		var val []byte
		if e := t.keys[k]; e != nil {
			val = t.encodeKey(e)
		} else if t.spill.has(k) {
			var err error
			if val, err = t.spill.get(k); err != nil {
				return err
			}
		}
		var err error
		if val == nil {
			err = w.Delete(t.stateKey(k))
		} else {
			err = w.Set(t.stateKey(k), val)
		}
		if err != nil {
			return err
		}
	}
	if err := t.spill.clear(w); err != nil {
		return err
	}
	t.dirty = map[string]bool{}
	if t.wmDirty {
		// Every instance sees every watermark: they write one value.
		v := state.EncodeValue(types.Row{types.IntValue(t.wm[0]), types.IntValue(t.wm[1]), types.IntValue(t.frontier)})
		if err := w.Set(t.wmKey(), v); err != nil {
			return err
		}
		t.wmDirty = false
	}
	return nil
}

// Restore implements Stateful: the watermarks, then the keys this
// instance owns.
func (t *TemporalJoin) Restore(st *state.Store) error {
	if v, ok, err := st.Get(t.wmKey()); err != nil {
		return err
	} else if ok {
		rows, err := state.DecodeValue(v)
		if err != nil || len(rows) != 1 || len(rows[0]) != 3 {
			return fmt.Errorf("%s: bad watermarks: %v", t.id, err)
		}
		t.wm[0], t.wm[1], t.frontier = rows[0][0].I, rows[0][1].I, rows[0][2].I
	}
	prefix := []byte(t.id + "k")
	err := st.ScanOwned(prefix, t.owns(len(prefix)), func(key, val []byte) error {
		e, err := t.decodeKey(val)
		if err != nil {
			return err
		}
		k := string(key[len(prefix):])
		t.keys[k] = e
		t.index(k, e)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", t.id, err)
	}
	return t.evict()
}

// index lists key k's waiting rows and pending delete, of state e.
func (t *TemporalJoin) index(k string, e *temporalKey) {
	for _, r := range e.wait {
		t.wait(k, r[t.n.LeftTime].I)
	}
	if e.del != nil {
		t.deleting[k] = true
	}
}

// encodeKey is key state e's stored value: a header row with its number
// of table rows and, when it has a pending delete, 1; its table rows, the
// pending delete's row, then its waiting rows.
func (t *TemporalJoin) encodeKey(e *temporalKey) []byte {
	rows := make([]types.Row, 0, 2+len(e.rows)+len(e.wait))
	hdr := types.Row{types.IntValue(int64(len(e.rows)))}
	if e.del != nil {
		hdr = append(hdr, types.IntValue(1))
	}
	rows = append(append(rows, hdr), e.rows...)
	if e.del != nil {
		rows = append(rows, e.del)
	}
	return state.EncodeValue(append(rows, e.wait...)...)
}

// decodeKey decodes a value encodeKey made.
func (t *TemporalJoin) decodeKey(val []byte) (*temporalKey, error) {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 || len(rows[0]) < 1 || len(rows[0]) > 2 {
		return nil, errCorrupt(t.id)
	}
	n, dels := int(rows[0][0].I), 0
	if len(rows[0]) == 2 {
		dels = int(rows[0][1].I)
	}
	if n < 0 || dels < 0 || dels > 1 || n+dels > len(rows)-1 {
		return nil, errCorrupt(t.id)
	}
	// Capped: appending a version must not overwrite the waiting rows.
	e := &temporalKey{rows: rows[1 : 1+n : 1+n], wait: rows[1+n+dels:]}
	if dels == 1 {
		e.del = rows[1+n]
	}
	return e, nil
}

// owns returns the restore filter of this instance, for keys after a
// prefix of length at.
func (t *TemporalJoin) owns(at int) func(key []byte) (bool, error) {
	return func(key []byte) (bool, error) {
		if t.keep == nil {
			return true, nil
		}
		kr, err := state.DecodeKeys(key[at:])
		if err != nil {
			return false, err
		}
		return t.keep(kr), nil
	}
}

// StateKeys implements stateSizer: the keys held.
func (t *TemporalJoin) StateKeys() int64 { return int64(len(t.keys)) }
