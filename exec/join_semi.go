package exec

import (
	"fmt"
	"math"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// SemiJoin is the streaming semi or anti join (planner.SemiJoin): it
// passes a left row on while the row qualifies, given the right rows
// held now. A semi join emits a left row once it has a matching right
// row (a row that arrives before its match waits in state) and retracts
// it when its last match leaves; an anti join emits a left row while it
// has no match, retracts it when a match arrives and emits it again when
// the last match leaves. The null-aware anti join (NOT IN) also tracks
// the number of right rows and of right rows with a NULL key: no left
// row qualifies while a NULL is there, and a left row with a NULL key
// qualifies only while the right side is empty; when either count
// crosses zero every left row is judged again.
//
// Both inputs may retract (a retraction of a row not held is ignored).
// State: the left rows, by key, each with its multiplicity, its number
// of matches and whether it is emitted, and the right rows by key with
// their multiplicities; for NOT IN the two counts, which stay in memory.
// Without STATE TTL nothing bounds the rows. With STATE TTL a row is
// forgotten once the other input's watermark passes its time + TTL
// (event time), or TTL after it was stored (the wall clock, from Tick,
// when an input has no watermark): silently, as Flink's state TTL, so
// its output stays and a left row whose match expired keeps its place
// (emitted records that). A watermark that passes the oldest row's
// expiry scans that side. With a store and a budget (state_cache_size
// rows of both sides, or a MemoryBudget share) memory holds at most the
// budget's rows plus a batch: whole keys, both sides together, leave
// memory and come back when a row arrives for them or their stored
// timer (STATE TTL) fires; NOT IN's re-judging of every left row reads
// the stored keys in chunks and evicts as it goes (join_semi_spill.go).
// A checkpoint writes the rows of each key changed since the last one,
// from memory or the spill area (and, spilling, moves their timers);
// Restore recomputes the matches, or when spilling loads nothing and
// counts the stored right rows (NOT IN) in one scan.
type SemiJoin struct {
	id       string
	n        *planner.SemiJoin
	residual func(types.Row) bool
	out      Output
	keep     func(types.Row) bool

	sides [2]map[string]*semiGroup
	// total and nulls count the right rows and the right rows with a
	// NULL key (null-aware anti joins only).
	total, nulls int64
	dirty        [2]map[string]bool
	wm           [2]int64
	pair         types.Row // scratch: a left row then a right row
	now          int64     // the last Tick's wall clock (wall-clock TTL)
	// oldest is each side's smallest row time, a lower bound once rows
	// leave (STATE TTL only).
	oldest [2]int64

	// Spilling (join_semi_spill.go): over the budget whole keys (both
	// sides' rows) leave memory; onDisk is set once keys may live only in
	// Badger.
	store    *state.Store
	budget   int
	mem      *memShare // its share of the memory budget, or nil
	resident int       // rows (distinct) in memory, both sides
	onDisk   bool
	spill    spillArea
	// Stored timers (spilling with STATE TTL, join_semi_spill.go): per
	// side, when each key's rows next expire; gone and spilledAt keep
	// the stored timers of groups removed or evicted changed since the
	// last checkpoint, which moves them.
	timers    [2]timerQueue
	gone      [2]map[string]int64
	spilledAt [2]map[string]int64
	marked    bool // this run wrote (or, not spilling, deleted) the timer marker
	loading   bool // load is bringing rows in: their stored timers cover them
}

// semiGroup is one key's rows on one side, by their encoding.
type semiGroup struct {
	rows  map[string]*semiRow
	order []string // encodings in arrival order (emits are deterministic)
	// indexed is the group's stored timer (the earliest expiry of its
	// rows in the last checkpoint) and heapAt its earliest memory timer
	// (noTimer: none; stored timers only).
	indexed, heapAt int64
}

// semiRow is one distinct row: how many copies are held and, on the
// left, how many right rows match it and whether it is emitted.
type semiRow struct {
	row     types.Row
	n       int64
	matches int64
	out     bool
	at      int64 // its time: event time, or when stored (STATE TTL)
}

// noOldest is SemiJoin.oldest of a side that holds no row.
const noOldest int64 = math.MaxInt64

// SemiJoinConfig configures a SemiJoin.
type SemiJoinConfig struct {
	ID       string
	Node     *planner.SemiJoin
	Residual func(types.Row) bool
	Out      Output
	// Keep filters the keys a restore loads (an instance of a parallel
	// join owns some of them); nil keeps all.
	Keep func(key types.Row) bool
	// Now is the wall clock at start, until the first Tick (wall-clock
	// STATE TTL stamps rows with it).
	Now int64
	// Store with Budget or Memory enables spilling: at most Budget rows
	// of both sides (0: no cap), and no more than fit in Memory's bytes
	// (nil: no share), stay in memory.
	Store  *state.Store
	Budget int
	Memory *MemoryBudget
}

// NewSemiJoin returns the operator for c.Node.
func NewSemiJoin(c SemiJoinConfig) *SemiJoin {
	s := &SemiJoin{id: c.ID, n: c.Node, residual: c.Residual, out: c.Out, keep: c.Keep,
		wm: [2]int64{types.MinTime, types.MinTime}, now: c.Now, oldest: [2]int64{noOldest, noOldest}}
	for i := range s.sides {
		s.sides[i] = map[string]*semiGroup{}
		s.dirty[i] = map[string]bool{}
	}
	s.spill = newSpillArea(c.Store, c.ID)
	if c.Store != nil && (c.Budget > 0 || c.Memory != nil) {
		s.store, s.budget, s.mem = c.Store, c.Budget, c.Memory.join()
	}
	for side := range s.timers {
		s.timers[side] = newTimerQueueAt(c.Store, c.ID+"t"+string(rune('0'+side)), c.ID+"m")
		s.timers[side].anyOrder = true // an expiry emits nothing
		s.gone[side], s.spilledAt[side] = map[string]int64{}, map[string]int64{}
	}
	return s
}

func (s *SemiJoin) keyCols(side int) []int {
	if side == 0 {
		return s.n.LeftKeys
	}
	return s.n.RightKeys
}

// nullKey reports whether a key column of r (on side) is NULL.
func (s *SemiJoin) nullKey(side int, r types.Row) bool {
	for _, c := range s.keyCols(side) {
		if r[c].IsNull() {
			return true
		}
	}
	return false
}

// Process implements Operator: port 0 is the left input, 1 the right.
func (s *SemiJoin) Process(port int, b *Batch) error {
	out := &Batch{Diffs: []int8{}}
	for i, r := range b.Rows {
		d := int64(b.Diff(i))
		var err error
		if port == 0 {
			err = s.left(r, d, out)
		} else {
			err = s.right(r, d, out)
		}
		if err != nil {
			return err
		}
	}
	if len(out.Rows) > 0 {
		if err := s.out.Emit(out); err != nil {
			return err
		}
	}
	return s.evict()
}

// left takes a left row (d copies, negative to retract).
func (s *SemiJoin) left(r types.Row, d int64, out *Batch) error {
	null := s.nullKey(0, r)
	if null && s.n.Kind != planner.NullAwareAnti {
		// It matches nothing: a semi join never emits it, an anti
		// join always does, and neither needs to remember it.
		if s.n.Kind == planner.Anti {
			emitN(out, r, d)
		}
		return nil
	}
	k := string(state.AppendKeyCols(nil, r, s.keyCols(0)))
	if err := s.load(k); err != nil {
		return err
	}
	g, e := s.entry(0, k, r)
	if e.n == 0 && d > 0 {
		e.matches = s.countMatches(k, r)
	}
	e.n += d
	if e.out {
		emitN(out, r, d)
	}
	if e.n <= 0 {
		s.drop(0, k, g, string(state.AppendRow(nil, r)))
	} else {
		s.judge(k, e, null, out)
	}
	s.dirty[0][k] = true
	return nil
}

// right takes a right row (d copies) and judges the left rows it
// changes: its key's, or every one when a null-aware count crosses zero.
func (s *SemiJoin) right(r types.Row, d int64, out *Batch) error {
	null := s.nullKey(1, r)
	if null && s.n.Kind != planner.NullAwareAnti {
		return nil // it matches nothing
	}
	k := string(state.AppendKeyCols(nil, r, s.keyCols(1)))
	if err := s.load(k); err != nil {
		return err
	}
	g, e := s.entry(1, k, r)
	if e.n == 0 && d < 0 {
		s.drop(1, k, g, string(state.AppendRow(nil, r)))
		return nil // not held (forgotten by STATE TTL): nothing to undo
	}
	e.n += d
	if e.n <= 0 {
		s.drop(1, k, g, string(state.AppendRow(nil, r)))
	}
	s.dirty[1][k] = true
	all := false
	if s.n.Kind == planner.NullAwareAnti {
		before, beforeNulls := s.total, s.nulls
		s.total += d
		if null {
			s.nulls += d
		}
		all = (before == 0) != (s.total == 0) || (beforeNulls == 0) != (s.nulls == 0)
	}
	if lg := s.sides[0][k]; lg != nil && !null {
		for _, enc := range lg.order {
			le := lg.rows[enc]
			if s.matches(le.row, r) {
				le.matches += d
			}
			if !all {
				s.judge(k, le, false, out)
			}
		}
	}
	if all {
		return s.judgeAll(out)
	}
	return nil
}

// judgeAll judges every left row again: the keys in memory, then, once
// keys may live only in Badger, the stored ones (eachKey).
func (s *SemiJoin) judgeAll(out *Batch) error {
	return s.eachKey(0, func(k string, g *semiGroup) {
		for _, enc := range g.order {
			e := g.rows[enc]
			s.judge(k, e, s.nullKey(0, e.row), out)
		}
	})
}

// judge emits or retracts left row e (of key k) when whether it
// qualifies changed.
func (s *SemiJoin) judge(k string, e *semiRow, null bool, out *Batch) {
	q := s.qualifies(e, null)
	if q == e.out {
		return
	}
	e.out = q
	s.dirty[0][k] = true
	if q {
		emitN(out, e.row, e.n)
	} else {
		emitN(out, e.row, -e.n)
	}
}

// qualifies reports whether left row e (with a NULL key: null) belongs
// in the output now.
func (s *SemiJoin) qualifies(e *semiRow, null bool) bool {
	switch s.n.Kind {
	case planner.Semi:
		return e.matches > 0
	case planner.Anti:
		return e.matches == 0
	}
	if null {
		return s.total == 0
	}
	return s.total == 0 || s.nulls == 0 && e.matches == 0
}

// matches reports whether right row r matches left row l beyond the
// key: the residual over the pair.
func (s *SemiJoin) matches(l, r types.Row) bool {
	if s.residual == nil {
		return true
	}
	s.pair = append(append(s.pair[:0], l...), r...)
	return s.residual(s.pair)
}

// countMatches counts the right rows of key k that match left row l.
func (s *SemiJoin) countMatches(k string, l types.Row) int64 {
	g := s.sides[1][k]
	if g == nil {
		return 0
	}
	var n int64
	for _, e := range g.rows {
		if s.matches(l, e.row) {
			n += e.n
		}
	}
	return n
}

// entry finds (or adds, with no copies) row r of key k on side.
func (s *SemiJoin) entry(side int, k string, r types.Row) (*semiGroup, *semiRow) {
	g := s.sides[side][k]
	if g == nil {
		g = &semiGroup{rows: map[string]*semiRow{}, indexed: noTimer, heapAt: noTimer}
		if old, ok := s.gone[side][k]; ok { // stored, removed since: rewritten
			g.indexed = old
			delete(s.gone[side], k)
		}
		s.sides[side][k] = g
	}
	enc := string(state.AppendRow(nil, r))
	e := g.rows[enc]
	if e == nil {
		// A copy: the batch's rows may share storage the sender reuses.
		e = &semiRow{row: append(types.Row(nil), r...), at: s.timeOf(side, r)}
		g.rows[enc] = e
		g.order = append(g.order, enc)
		s.oldest[side] = min(s.oldest[side], e.at)
		s.resident++
		if s.timed() && !s.loading {
			s.cover(side, k, g, e.at+s.n.TTL)
		}
	}
	return g, e
}

// timeOf is the time STATE TTL counts row r of side from: its event
// time, or the wall clock.
func (s *SemiJoin) timeOf(side int, r types.Row) int64 {
	if s.n.TTL == 0 {
		return 0
	}
	if tc := [2]int{s.n.LeftTime, s.n.RightTime}[side]; !s.wallTTL() && !r[tc].IsNull() {
		return r[tc].I
	}
	return s.now
}

// wallTTL reports whether STATE TTL runs on the wall clock (an input has
// no watermark column).
func (s *SemiJoin) wallTTL() bool {
	return s.n.TTL > 0 && (s.n.LeftTime < 0 || s.n.RightTime < 0)
}

// expire forgets the rows of side whose time + TTL is before upTo: a
// right row's copies leave the counts and its left rows' matches, but no
// row is emitted or retracted. A spilling join visits the keys whose
// timers are due (fireDue); otherwise, once the oldest row's expiry
// passed, every key of the side in memory.
func (s *SemiJoin) expire(side int, upTo int64) error {
	if s.timed() {
		return s.fireDue(side, upTo)
	}
	if s.n.TTL == 0 || s.oldest[side] == noOldest || s.oldest[side]+s.n.TTL >= upTo {
		return nil
	}
	oldest := int64(noOldest)
	err := s.eachKey(side, func(k string, g *semiGroup) {
		oldest = min(oldest, s.expireGroup(side, k, g, upTo))
	})
	if err != nil {
		return err
	}
	s.oldest[side] = oldest
	return nil
}

// expireGroup forgets the rows of group g (key k of side) whose time +
// TTL is before upTo, and returns the smallest time left (noOldest when
// none).
func (s *SemiJoin) expireGroup(side int, k string, g *semiGroup, upTo int64) int64 {
	oldest := int64(noOldest)
	for _, enc := range append([]string{}, g.order...) {
		e := g.rows[enc]
		if e.at+s.n.TTL >= upTo {
			oldest = min(oldest, e.at)
			continue
		}
		s.drop(side, k, g, enc)
		s.dirty[side][k] = true
		if side == 1 {
			s.forgetRight(k, e)
		}
	}
	return oldest
}

// forgetRight takes an expired right row out of the counts.
func (s *SemiJoin) forgetRight(k string, e *semiRow) {
	null := s.nullKey(1, e.row)
	if s.n.Kind == planner.NullAwareAnti {
		s.total -= e.n
		if null {
			s.nulls -= e.n
		}
	}
	if lg := s.sides[0][k]; lg != nil && !null {
		for _, le := range lg.rows {
			if s.matches(le.row, e.row) {
				le.matches -= e.n
			}
		}
	}
}

// drop removes the row encoded enc from group g of key k on side, and the
// group from the side once it holds no row (a spilled copy of it is then
// stale).
func (s *SemiJoin) drop(side int, k string, g *semiGroup, enc string) {
	if _, ok := g.rows[enc]; !ok {
		return
	}
	g.remove(enc)
	s.resident--
	if len(g.rows) == 0 {
		delete(s.sides[side], k)
		if g.indexed != noTimer {
			s.gone[side][k] = g.indexed
		}
		if len(s.spill.spilled) > 0 {
			s.spill.forget(s.spillKey(side, k))
		}
	}
}

// remove drops the row encoded enc.
func (g *semiGroup) remove(enc string) {
	delete(g.rows, enc)
	for i, o := range g.order {
		if o == enc {
			g.order = append(g.order[:i], g.order[i+1:]...)
			return
		}
	}
}

// emitN appends |d| copies of r to out, inserts when d > 0.
func emitN(out *Batch, r types.Row, d int64) {
	diff := int8(1)
	if d < 0 {
		diff, d = -1, -d
	}
	for ; d > 0; d-- {
		out.Rows = append(out.Rows, r)
		out.Diffs = append(out.Diffs, diff)
	}
}

// Watermark implements Operator: the minimum of both inputs' watermarks
// goes on (the output carries no watermark column, planner.semiProps,
// but operators above may still want the clock).
func (s *SemiJoin) Watermark(port int, wm int64) error {
	if wm <= s.wm[port] {
		return nil
	}
	old := min(s.wm[0], s.wm[1])
	s.wm[port] = wm
	if !s.wallTTL() {
		if err := s.expire(1-port, wm); err != nil {
			return err
		}
		if err := s.evict(); err != nil {
			return err
		}
	}
	if m := min(s.wm[0], s.wm[1]); m > old {
		return s.out.EmitWatermark(m)
	}
	return nil
}

// Tick implements Operator: wall-clock STATE TTL expiry.
func (s *SemiJoin) Tick(now int64) error {
	s.now = now
	if !s.wallTTL() {
		return nil
	}
	for side := range s.sides {
		if err := s.expire(side, now); err != nil {
			return err
		}
	}
	return s.evict()
}

// stateKey is where the rows of key k of side are stored.
func (s *SemiJoin) stateKey(side int, k string) []byte {
	return []byte(s.id + string(rune('0'+side)) + k)
}

// Checkpoint implements Stateful: the rows of each key changed since the
// last checkpoint (each followed by its number of copies, its time and
// whether it is emitted), from memory or the spill area, or a delete for
// a key that has none left; then the spill area is cleared.
func (s *SemiJoin) Checkpoint(w *state.Writer) error {
	if s.n.TTL > 0 && !s.marked {
		// A run that does not spill moves no stored timer: the marker
		// goes, and the next spilling restore writes them all again.
		err := w.Delete(s.timers[0].marker)
		if s.timed() {
			err = w.Set(s.timers[0].marker, timersMark)
		}
		if err != nil {
			return err
		}
		s.marked = true
	}
	for side := range s.sides {
		for k := range s.dirty[side] {
			val, err := s.value(side, k)
			if err != nil {
				return fmt.Errorf("%s: %w", s.id, err)
			}
			if val == nil {
				err = w.Delete(s.stateKey(side, k))
			} else {
				err = w.Set(s.stateKey(side, k), val)
			}
			if err == nil && s.timed() {
				err = s.moveTimer(w, side, k, val)
			}
			if err != nil {
				return err
			}
		}
		s.dirty[side] = map[string]bool{}
		s.gone[side], s.spilledAt[side] = map[string]int64{}, map[string]int64{}
	}
	if err := s.spill.clear(w); err != nil {
		return err
	}
	s.pruneTimers()
	return nil
}

// encodeGroup is the state value of group g: its rows in arrival order,
// each followed by its copies, its time and whether it is emitted.
func encodeGroup(g *semiGroup) []byte {
	rows := make([]types.Row, 0, len(g.order))
	for _, enc := range g.order {
		e := g.rows[enc]
		rows = append(rows, append(append(types.Row{}, e.row...),
			types.IntValue(e.n), types.IntValue(e.at), types.BoolValue(e.out)))
	}
	return state.EncodeValue(rows...)
}

// Restore implements Stateful: the right rows first, then the left rows
// with their matches counted. A spilling join loads no key (restoreLazy).
func (s *SemiJoin) Restore(st *state.Store) error {
	if s.store != nil {
		return s.restoreLazy(st)
	}
	for _, side := range []int{1, 0} {
		prefix := []byte(s.id + string(rune('0'+side)))
		err := st.ScanOwned(prefix, s.owns(len(prefix)), func(key, val []byte) error {
			return s.restoreKey(side, string(key[len(prefix):]), val, true)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.id, err)
		}
	}
	return nil
}

// owns returns the restore filter of this instance, for keys after a
// prefix of length at.
func (s *SemiJoin) owns(at int) func(key []byte) (bool, error) {
	return func(key []byte) (bool, error) { return ownsKey(s.keep, s.id, key[at:]) }
}

// restoreKey loads the rows of key k of side (a left key after its right
// rows, whose matches it counts); count adds right rows to the
// null-aware counts (a restore: a spilled key's rows are counted).
func (s *SemiJoin) restoreKey(side int, k string, val []byte, count bool) error {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return err
	}
	for _, r := range rows {
		w := len(r) - 3
		row := r[:w]
		_, e := s.entry(side, k, row)
		e.n, e.at, e.out = r[w].I, r[w+1].I, r[w+2].I != 0
		s.oldest[side] = min(s.oldest[side], e.at)
		if side == 1 {
			if !count || s.n.Kind != planner.NullAwareAnti {
				continue
			}
			s.total += e.n
			if s.nullKey(1, row) {
				s.nulls += e.n
			}
			continue
		}
		e.matches = s.countMatches(k, row)
	}
	return nil
}

// StateKeys implements stateSizer: the keys in memory on both sides.
func (s *SemiJoin) StateKeys() int64 { return int64(len(s.sides[0]) + len(s.sides[1])) }
