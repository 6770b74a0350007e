package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// Join is the streaming equi-join of two inputs, inner or outer
// (join_outer.go pads the unmatched rows of a preserved side): regular
// joins, whose inputs may retract (join_retract.go), interval joins
// (right.time - left.time within [lower, upper], each bound inclusive or
// strict) and window joins (equal window starts), whose inputs are
// append-only. A row with
// a NULL key that is not null-safe (<=>) matches nothing: it is dropped on
// arrival, neither joined nor stored.
//
// An interval join emits as rows arrive: every row probes the other
// side's state and is stored if rows still to come on the other side can
// match it. A window join emits once both inputs' watermarks pass a
// window's end (dialect.md): rows are only stored on arrival, and when
// the lower watermark passes a window's end the window's rows of each key
// are joined, emitted and dropped (closeKey). A row whose window has
// already closed is late (join_expired).
//
// State: the rows of both sides by key. An interval join drops a left row
// once the right watermark passes its time + upper, a right row once the
// left watermark passes its time - lower (a strict bound ends one
// microsecond earlier: the last time it admits); a window join drops a window's
// rows when it emits them. State is bounded by the interval (or window
// size) plus the inputs' lag. An otherwise unbounded join with STATE TTL
// drops a stored row once the other input's watermark passes its time +
// TTL (event time), or TTL after it was stored (the wall clock, from Tick,
// when an input has no watermark): it keeps matching what it still holds.
// A regular inner join of append-only inputs whose residual compares one
// input's watermark column with a column of the other also drops a row
// once the other watermark passes the last time it can match, if that
// comes first (join_cleanup.go). In memory at most state_cache_size rows
// per side and the join's share of memory_limit, split between the sides
// by their recent key lookups; the rest spill to Badger a whole key at a
// time, the least recently looked up first (join_spill.go).
type Join struct {
	id       string
	n        *planner.Join
	residual func(types.Row) bool
	out      Output
	late     *lateness.Counters
	keep     func(side int, key types.Row) bool
	// signed is set when the output retracts (planner.PropsOf): a
	// regular outer join, or a join over a retracting input
	// (join_retract.go); every emitted row then carries its sign.
	signed bool

	wm    [2]int64
	now   int64        // the last Tick's wall clock, for wall-clock STATE TTL
	sides [2]joinIndex // each side's keys (join_index.go)
	// timers orders each side's keys by when their rows expire, so a
	// watermark visits only the keys it purges (join_timers.go).
	timers [2]timerQueue
	// changed lists the keys (per side) marked dirty since the last
	// checkpoint, by their state (a compaction checks flags, not the
	// map); gone the keys a checkpoint wrote that were removed since
	// (they need a delete), with their stored timers. Flags on joinKey
	// avoid map churn per row.
	changed [2]dirtyList[*joinKey]
	gone    [2]map[string]int64

	// Spilling (join_spill.go) and stored timers (join_timers.go): over
	// the budget whole keys leave memory; onDisk is set per side once its
	// keys may live only in Badger (until then a key memory lacks is
	// absent, and looking it up reads nothing). touches counts each
	// side's recent key lookups (the memory share is split by them) and
	// clock the batches, which date each key's last lookup (its used).
	store    *state.Store
	budget   int
	mem      *memShare // its share of the memory budget, or nil
	resident [2]int    // rows in memory per side
	onDisk   [2]bool
	touches  [2]int64
	clock    uint64
	ages     []keyAge // evictSide's scratch
	marked   bool     // this run wrote the timer marker
	spill    spillArea
	width    [2]int
	scratch  []byte // where storeRow encodes a row
	// scanned is the side kept unindexed in time buckets (-1: none;
	// planner.ScannedSide, join_scan.go), scan its rows.
	scanned int
	scan    scanSide
	// cleanup holds, per side, the residual's time conjuncts that drop
	// the side's rows once the other watermark passes them
	// (planner.JoinCleanup); cleans is set when either side has any.
	cleanup [2][]planner.TimeCleanup
	cleans  bool
	// probed holds, per side, the stored rows probes decoded last
	// (probeRow).
	probed [2][probedRows]probedRow
}

// joinKey is the state of one join key on one side. Its rows are kept
// encoded (join_rows.go), so the garbage collector never scans them and a
// checkpoint writes them without encoding them again.
type joinKey struct {
	key       string    // the join key in key form
	hash      uint64    // joinHash(key)
	short     [2]uint64 // key packed when at most 16 bytes (joinIndex compares it)
	rows      joinRows
	indexed   int64  // the key's timer in the last checkpoint (noTimer: none)
	heapAt    int64  // the key's earliest expiry-heap entry (noTimer: none)
	dirty     bool   // changed since the last checkpoint (listed in changed)
	persisted bool   // a checkpoint holds this key
	removed   bool   // the key left the side (its rows all went)
	held      bool   // the side's joinIndex holds this state
	used      uint64 // the batch (Join.clock) that last looked the key up
}

// JoinConfig configures a Join.
type JoinConfig struct {
	ID       string
	Node     *planner.Join
	Residual func(types.Row) bool
	Out      Output
	Late     *lateness.Counters
	Keep     func(side int, key types.Row) bool
	// Store with Budget or Memory enables spilling: at most Budget rows
	// per side (0: no cap), and no more rows of both sides than fit in
	// Memory's bytes (nil: no share), stay in memory.
	Store  *state.Store
	Budget int
	Memory *MemoryBudget
	// Now is the wall clock at start, until the first Tick (wall-clock
	// STATE TTL stamps rows with it).
	Now int64
	// Instance and Instances are this instance's number and the join's
	// parallelism: they name the scanned side's stored chunks.
	Instance, Instances int
}

// NewJoin returns the operator for n.
func NewJoin(c JoinConfig) *Join {
	j := &Join{id: c.ID, n: c.Node, residual: c.Residual, out: c.Out, late: c.Late, keep: c.Keep,
		wm: [2]int64{types.MinTime, types.MinTime}, now: c.Now, signed: !planner.PropsOf(c.Node).AppendOnly}
	j.gone[0], j.gone[1] = map[string]int64{}, map[string]int64{}
	j.spill = newSpillArea(c.Store, c.ID)
	for side := range j.timers {
		j.timers[side] = newTimerQueueAt(c.Store, c.ID+"t"+string(rune('0'+side)), c.ID+"m")
		// only a window join's visits emit rows, in time order
		j.timers[side].anyOrder = c.Node.Kind != planner.WindowJoin
	}
	if c.Store != nil && (c.Budget > 0 || c.Memory != nil) {
		j.store, j.budget, j.mem = c.Store, c.Budget, c.Memory.join()
	}
	j.width[0], j.width[1] = len(c.Node.Left.Schema()), len(c.Node.Right.Schema())
	j.scanned = planner.ScannedSide(c.Node)
	for _, tc := range planner.JoinCleanup(c.Node) {
		j.cleanup[tc.Side] = append(j.cleanup[tc.Side], tc)
		j.cleans = true
	}
	if j.scanned >= 0 {
		j.scan = newScanSide(interval{c.Node.Lower, c.Node.Upper}, c.Instance, c.Instances)
	}
	return j
}

func (j *Join) keyCols(side int) []int {
	if side == 0 {
		return j.n.LeftKeys
	}
	return j.n.RightKeys
}

func (j *Join) timeCol(side int) int {
	if side == 0 {
		return j.n.LeftTime
	}
	return j.n.RightTime
}

// expiry is when a row of side with time t stops matching: for an
// interval join the last time of the other side it can still match (the
// other side's watermark passing it purges the row: rows to come are at or
// after the watermark); for a window join its window's end; under STATE
// TTL its time + TTL. A regular join's row that never expires (no STATE
// TTL and no time conjunct ends it: cleanTime) has time neverExpires.
func (j *Join) expiry(side int, t int64) int64 {
	switch {
	case j.n.Kind == planner.WindowJoin:
		return t + j.n.WindowSize
	case j.n.Kind == planner.Unbounded:
		if t == neverExpires || j.n.TTL == 0 && t == 0 {
			// Time 0 without a TTL is a row a build before time conjuncts
			// stored (it stored no time then): its end is unknown, so it
			// stays, as it did. (A conjunct's true end at the epoch stays
			// too: keeping a row longer changes no on-time row's output.)
			return neverExpires
		}
		return t + j.n.TTL // a TTL, or time conjuncts (cleanTime)
	case side == 0:
		// right.time <= t + Upper, or < t + Upper when strict
		if j.n.UpperStrict {
			return t + j.n.Upper - 1
		}
		return t + j.n.Upper
	}
	// left.time <= t - Lower, or < t - Lower when strict
	if j.n.LowerStrict {
		return t - j.n.Lower - 1
	}
	return t - j.n.Lower
}

func (j *Join) matches(lt, rt int64) bool {
	return j.n.Kind != planner.IntervalJoin || inInterval(j.n, rt-lt)
}

// inInterval reports whether d = right.time - left.time is within the
// interval join's bounds, each inclusive or strict.
func inInterval(n *planner.Join, d int64) bool {
	above := d > n.Lower || d == n.Lower && !n.LowerStrict
	below := d < n.Upper || d == n.Upper && !n.UpperStrict
	return above && below
}

// nullKey reports whether row r of a join can match nothing because a key
// that is not null-safe is NULL (NULL = anything is not true), or, in an
// interval join, its time is NULL.
func nullKey(n *planner.Join, r types.Row, keys []int, timeCol int) bool {
	for i, c := range keys {
		if r[c].IsNull() && (i >= len(n.NullSafe) || !n.NullSafe[i]) {
			return true
		}
	}
	return n.Kind == planner.IntervalJoin && r[timeCol].IsNull()
}

// Process implements Operator.
func (j *Join) Process(port int, b *Batch) error {
	other := 1 - port
	j.clock++
	out := &Batch{}
	var kb []byte
	for i, r := range b.Rows {
		d := b.Diff(i)
		if nullKey(j.n, r, j.keyCols(port), j.timeCol(port)) || j.nullBound(port, r) {
			j.unmatchedSigned(port, r, d, out) // matches nothing now or later: never kept
			continue
		}
		kb = kb[:0]
		for _, c := range j.keyCols(port) {
			kb = state.AppendKey(kb, r[c])
		}
		h := joinHashBytes(kb)
		if d < 0 {
			if err := j.retract(port, kb, h, r, out); err != nil {
				return err
			}
			continue
		}
		var t int64
		if tc := j.timeCol(port); tc >= 0 && !r[tc].IsNull() {
			t = r[tc].I
		} else if j.wallTTL() {
			t = j.now // when the row was stored
		}
		if j.cleans {
			t = j.cleanTime(port, r, t)
		}
		if j.n.Kind == planner.WindowJoin {
			if err := j.storeWindowRow(port, kb, h, r, t); err != nil {
				return err
			}
			continue
		}
		matched, err := j.probeSide(port, kb, h, r, t, out)
		if err != nil {
			return err
		}
		if !j.expires() || j.expiry(port, t) >= j.wm[other] {
			if err := j.store1(port, kb, h, r, t, matched); err != nil {
				return err
			}
			if !matched && j.retracts() {
				j.unmatched(port, r, out) // until its first match retracts it
			}
		} else if !matched {
			// Nothing on the other side can match it any more: an inner
			// side's row contributes nothing (it is not late, so it is not
			// counted as a dropped row), a preserved side's is padded now.
			j.unmatched(port, r, out)
		}
	}
	if err := j.out.Emit(out); err != nil {
		return err
	}
	return j.evict()
}

// probeSide probes the other side of port: its buckets when scanned,
// else its key.
func (j *Join) probeSide(port int, kb []byte, h uint64, r types.Row, t int64, out *Batch) (bool, error) {
	if 1-port == j.scanned {
		return j.scanProbe(port, kb, h, r, t, out)
	}
	return j.probe(port, kb, h, r, t, out)
}

// store1 keeps row r of side port (whether it matched on arrival): in
// its bucket when the side is scanned, else under its key.
func (j *Join) store1(port int, kb []byte, h uint64, r types.Row, t int64, matched bool) error {
	if port == j.scanned {
		return j.scanStore(port, kb, h, r, t)
	}
	return j.storeRow(port, kb, h, r, t, matched)
}

// probe appends to out the joins of row r (time t) of side port with the
// other side's rows of key kb (h its joinHash), and reports whether any
// matched. Only the rows whose time matches are decoded.
func (j *Join) probe(port int, kb []byte, h uint64, r types.Row, t int64, out *Batch) (bool, error) {
	partner, err := j.keyOf(1-port, kb, h, false)
	if err != nil || partner == nil {
		return false, err
	}
	matched := false
	for i := range partner.rows.len() {
		lt, rt := t, partner.rows.time(i)
		if port == 1 {
			lt, rt = rt, lt
		}
		if !j.matches(lt, rt) {
			continue
		}
		o, err := j.probeRow(1-port, partner, i)
		if err != nil {
			return false, err
		}
		if row, ok := j.pair(port, r, o); ok {
			j.matchPartner(1-port, partner, i, o, out)
			j.add(out, row, 1)
			matched = true
		}
	}
	return matched, nil
}

// emitPair appends to out the joined row of r (from port) and o (from
// the other side), left columns first, when the residual condition holds,
// and reports whether it did.
func (j *Join) emitPair(port int, r, o types.Row, out *Batch) bool {
	row, ok := j.pair(port, r, o)
	if ok {
		out.Rows = append(out.Rows, row)
	}
	return ok
}

// pair is the joined row of r (from port) and o (from the other side),
// left columns first, and whether the residual condition holds for it.
func (j *Join) pair(port int, r, o types.Row) (types.Row, bool) {
	left, right := r, o
	if port == 1 {
		left, right = o, r
	}
	row := make(types.Row, 0, len(left)+len(right))
	row = append(append(row, left...), right...)
	return row, j.residual == nil || j.residual(row)
}

// storeRow keeps row r (time t) of side under key kb (h its joinHash),
// encoded: the encoding is also the copy that frees the batch's slab the
// row sits in. A preserved side's row keeps whether it matched.
func (j *Join) storeRow(side int, kb []byte, h uint64, r types.Row, t int64, matched bool) error {
	jk, err := j.keyOf(side, kb, h, true)
	if err != nil {
		return err
	}
	var flag *bool
	if j.flags(side) {
		flag = &matched
	}
	jk.rows.addFlagged(t, r, flag, &j.scratch)
	j.resident[side]++
	if j.expires() {
		j.cover(side, jk, j.expiry(side, t))
	}
	j.markDirty(side, jk)
	return nil
}

// cover makes sure key jk of side has an expiry-heap entry at or before
// at: one entry per key and time it next needs the watermark, not one
// per row (a key's rows expire together when the watermark passes).
func (j *Join) cover(side int, jk *joinKey, at int64) {
	if at == noTimer || at == neverExpires {
		return // its rows never expire
	}
	if jk.heapAt == noTimer || at < jk.heapAt {
		j.timers[side].pushState(at, jk)
		jk.heapAt = at
	}
}

// storeWindowRow keeps a window join's row until its window closes, or
// counts it late when the window already has (both watermarks passed its
// end: its partners were emitted and dropped).
func (j *Join) storeWindowRow(side int, kb []byte, h uint64, r types.Row, t int64) error {
	if end := j.expiry(side, t); end <= min(j.wm[0], j.wm[1]) {
		j.late.Add(lateness.Drop, "join_expired", 1)
		return nil
	}
	return j.storeRow(side, kb, h, r, t, false)
}

// closeWindows emits and drops, for every key, the window join's rows of
// windows that end at or before wm (the lower of the inputs' watermarks).
func (j *Join) closeWindows(wm int64) error {
	out := &Batch{}
	for side := 0; side < 2; side++ {
		if err := j.fireDue(side, wm, func(it expiryItem) error { return j.closeKey(it.key, wm, out) }); err != nil {
			return err
		}
	}
	if len(out.Rows) == 0 {
		return nil
	}
	return j.out.Emit(out)
}

// closeKey joins key k's rows of the windows ending at or before wm, left
// rows with right rows of the same window in arrival order, appends the
// matches to out and drops those rows from both sides. A key visited
// again (it had rows on both sides) finds nothing left to close.
func (j *Join) closeKey(k string, wm int64, out *Batch) error {
	var closed [2][]closedRow
	for side := 0; side < 2; side++ {
		jk, err := j.key(side, k, joinHash(k), false)
		if err != nil {
			return err
		}
		err = j.takeRows(side, jk, wm, func(t int64, r types.Row, _ bool) { closed[side] = append(closed[side], closedRow{r, t}) })
		if err != nil {
			return err
		}
	}
	matched := [2][]bool{make([]bool, len(closed[0])), make([]bool, len(closed[1]))}
	for li, l := range closed[0] {
		for ri, r := range closed[1] {
			if l.time != r.time {
				continue
			}
			row, ok := j.pair(0, l.row, r.row)
			if !ok {
				continue
			}
			matched[0][li], matched[1][ri] = true, true
			out.Rows = append(out.Rows, row)
		}
	}
	j.padClosed(closed, matched, out)
	return nil
}

// closedRow is a row of a closing window and its time.
type closedRow struct {
	row  types.Row
	time int64
}

func (j *Join) stateKey(side int, k string) string { return string(rune('0'+side)) + k }

// Watermark implements Operator: purge the other side's rows that can no
// longer match, and forward the minimum of both inputs' watermarks. Keys
// the purge loaded from Badger are evicted again past the budget.
func (j *Join) Watermark(port int, wm int64) error {
	if err := j.watermark(port, wm); err != nil {
		return err
	}
	return j.evict()
}

func (j *Join) watermark(port int, wm int64) error {
	if wm <= j.wm[port] {
		return nil
	}
	old := j.outWatermark()
	j.wm[port] = wm
	other := 1 - port
	if m := min(j.wm[0], j.wm[1]); j.n.Kind == planner.WindowJoin && m > old {
		if err := j.closeWindows(m); err != nil {
			return err
		}
		return j.out.EmitWatermark(m)
	}
	if other == j.scanned {
		j.scanPurge(other, wm)
	} else if j.expires() && !j.wallTTL() && j.n.Kind != planner.WindowJoin {
		out := &Batch{}
		pad := j.padPurged(other, out)
		if err := j.fireDue(other, wm-1, func(it expiryItem) error { return j.purgeKey(other, it, wm, pad) }); err != nil {
			return err
		}
		if len(out.Rows) > 0 {
			if err := j.out.Emit(out); err != nil {
				return err
			}
		}
	}
	if m := j.outWatermark(); m > old {
		return j.out.EmitWatermark(m)
	}
	return nil
}

// purgeKey drops the rows that expire before wm of the key of side that
// timer entry it is due for, handing each to take when set. The entry's
// state, when the side still holds it, saves looking the key up again.
func (j *Join) purgeKey(side int, it expiryItem, wm int64, take func(t int64, r types.Row, matched bool)) error {
	jk := it.state
	if jk == nil || !holds(jk) {
		var err error
		if jk, err = j.key(side, it.key, joinHash(it.key), false); err != nil {
			return err
		}
	}
	return j.takeRows(side, jk, wm-1, take)
}

// takeRows removes from key jk of side (none when nil) the rows that
// expire at or before upTo, handing each to take (when set; decoding
// them); the key is then marked changed, or forgotten when no row is
// left. The heap entries at or before upTo were taken by the caller: a
// key with rows left gets an entry at its next expiry unless one not yet
// due covers it.
func (j *Join) takeRows(side int, jk *joinKey, upTo int64, take func(t int64, r types.Row, matched bool)) error {
	if jk == nil {
		return nil
	}
	k := jk.key
	var derr error
	dropped := jk.rows.filter(func(i int) bool {
		t := jk.rows.time(i)
		if j.expiry(side, t) > upTo {
			return true
		}
		if take != nil && derr == nil {
			var r types.Row
			if r, derr = j.rowAt(side, &jk.rows, i); derr == nil {
				take(t, r, j.flags(side) && jk.rows.matched(i))
			}
		}
		return false
	})
	if derr != nil {
		return derr
	}
	if jk.rows.len() > 0 && j.expires() {
		if jk.heapAt <= upTo {
			jk.heapAt = noTimer // taken by the caller
		}
		j.cover(side, jk, j.minExpiry(side, &jk.rows))
	}
	if dropped == 0 {
		return nil
	}
	j.resident[side] -= dropped
	if jk.rows.len() == 0 {
		j.remove(side, k, jk)
		return nil
	}
	j.markDirty(side, jk)
	return nil
}

// markDirty lists jk as changed since the last checkpoint. A listed key
// stays owed while it is changed and not removed, in memory or evicted
// into the spill area (its listed state then keeps dirty set, and a
// reload of the key, dirty again, is not listed twice).
func (j *Join) markDirty(side int, jk *joinKey) {
	if !jk.dirty {
		jk.dirty = true
		j.changed[side].add(jk, j.sides[side].len(), func(x *joinKey) bool { return x.dirty && !x.removed })
	}
}

// remove forgets key k of side; a checkpoint that wrote it owes a delete.
func (j *Join) remove(side int, k string, jk *joinKey) {
	j.sides[side].remove(jk)
	jk.removed, jk.rows = true, joinRows{} // the changed list may still hold jk
	if jk.persisted {
		j.gone[side][k] = jk.indexed
	}
	if len(j.spill.spilled) > 0 {
		j.spill.forget(j.stateKey(side, k))
	}
}

// expiryItem says the rows of key may expire at watermark at. A join's
// memory entries also point at the key's state (nil in stored timers and
// other operators' entries): a hint the join checks before use, since the
// key may have left memory or the side since.
type expiryItem struct {
	at    int64
	key   string
	state *joinKey
}

// expires reports whether stored rows ever expire: every join but an
// unbounded one without STATE TTL or time conjuncts that drop rows.
func (j *Join) expires() bool { return j.n.Kind != planner.Unbounded || j.n.TTL > 0 || j.cleans }

// wallTTL reports whether the join's STATE TTL runs on the wall clock (an
// input has no watermark column).
func (j *Join) wallTTL() bool {
	return j.n.Kind == planner.Unbounded && j.n.TTL > 0 && (j.n.LeftTime < 0 || j.n.RightTime < 0)
}

// Tick implements Operator: wall-clock STATE TTL expiry.
func (j *Join) Tick(now int64) error {
	j.now = now
	if !j.wallTTL() {
		return nil
	}
	if err := j.expireWall(now); err != nil {
		return err
	}
	return j.evict()
}

// expireWall purges the rows whose wall-clock STATE TTL passed.
func (j *Join) expireWall(now int64) error {
	for side := 0; side < 2; side++ {
		if err := j.fireDue(side, now-1, func(it expiryItem) error { return j.purgeKey(side, it, now, nil) }); err != nil {
			return err
		}
	}
	return nil
}

// Checkpoint implements Stateful: deletes for removed keys a checkpoint
// wrote, then the rows of every key changed since, each with its stored
// timer moved to its rows' earliest expiry (join_timers.go).
func (j *Join) Checkpoint(w *state.Writer) error {
	if !j.marked {
		if err := w.Set(j.timers[0].marker, timersMark); err != nil {
			return err
		}
		j.marked = true
	}
	for side := 0; side < 2; side++ {
		for k, old := range j.gone[side] {
			if err := w.Delete([]byte(j.id + j.stateKey(side, k))); err != nil {
				return err
			}
			if err := j.timers[side].move(w, k, old, noTimer); err != nil {
				return err
			}
		}
		j.gone[side] = map[string]int64{}
		for _, listed := range j.changed[side].take() {
			k := listed.key
			val, jk, err := j.value(side, k)
			if err != nil {
				return err
			}
			if jk == nil || !jk.dirty {
				continue // removed since, or listed twice
			}
			if err := w.Set([]byte(j.id+j.stateKey(side, k)), val); err != nil {
				return err
			}
			now := j.minExpiry(side, &jk.rows)
			if err := j.timers[side].move(w, k, jk.indexed, now); err != nil {
				return err
			}
			jk.dirty, jk.persisted, jk.indexed = false, true, now
		}
	}
	if j.scanned >= 0 {
		if err := j.scanCheckpoint(w); err != nil {
			return err
		}
	}
	if err := j.spill.clear(w); err != nil {
		return err
	}
	j.pruneHeaps()
	return nil
}

// owns reports whether this instance keeps the rows stored under key,
// from the key alone: a side digit, then the join key's values in key
// form (which Owner hashes alike). Timer and marker keys are not rows.
func (j *Join) owns(key []byte) (bool, error) {
	sk := key[len(j.id):]
	if len(sk) == 0 || (sk[0] != '0' && sk[0] != '1') || int(sk[0]-'0') == j.scanned {
		return false, nil // the scanned side's rows are read by restoreScan
	}
	return j.ownsKey(int(sk[0]-'0'), string(sk[1:]))
}

// ownsKey reports whether this instance keeps join key k (in key form)
// of side.
func (j *Join) ownsKey(side int, k string) (bool, error) {
	if j.keep == nil {
		return true, nil
	}
	kr, err := state.DecodeKeys([]byte(k))
	if err != nil {
		return false, fmt.Errorf("%s: %w", j.id, err)
	}
	return j.keep(side, kr), nil
}

// Restore implements Stateful. A spilling join over a store that keeps
// timers reads nothing: keys come into memory when probed, joined or
// their stored timer fires. A join with a scanned side reads that side's
// buckets and the other side's keys (one row per window): were they left
// in Badger, every row of the scanned side would miss memory and read
// Badger when it probes them. Otherwise every owned key is loaded with an
// expiry-heap entry per row; loaded from a store written before timers,
// each key is marked changed so the next checkpoint writes its timer.
func (j *Join) Restore(s *state.Store) error {
	timers, err := j.timers[0].marked(s)
	if err != nil {
		return err
	}
	if j.scanned >= 0 {
		if err := j.restoreScan(s); err != nil {
			return err
		}
	}
	if j.store != nil && timers && j.scanned < 0 {
		j.onDisk = [2]bool{true, true}
		return nil
	}
	err = s.ScanOwned([]byte(j.id), j.owns, func(key, val []byte) error {
		sk := string(key[len(j.id):])
		side := int(sk[0] - '0')
		jk, err := j.decodeKey(side, val, false)
		if err != nil {
			return err
		}
		jk.key = sk[1:]
		jk.hash = joinHash(jk.key)
		j.sides[side].put(jk)
		j.resident[side] += jk.rows.len()
		if j.expires() && jk.rows.len() > 0 {
			j.cover(side, jk, j.minExpiry(side, &jk.rows))
		}
		if !timers {
			jk.indexed = noTimer
			j.markDirty(side, jk)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return j.evict()
}

// StateKeys implements stateSizer: the join keys of both sides (a
// scanned side's rows).
func (j *Join) StateKeys() int64 {
	return int64(j.sides[0].len()+j.sides[1].len()) + j.scanRows()
}
