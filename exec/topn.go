package exec

import (
	"slices"
	"sort"
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TopN is the keyed Top-N (planner.TopN): per partition it keeps the best
// rows by the ORDER BY of a ROW_NUMBER(), RANK() or DENSE_RANK() OVER
// (PARTITION BY k…) and maintains, as an updating view, those whose rank
// is at most the limit, with their rank in the rank column. After each
// input batch it compares every partition the batch touched with what it
// emitted before and emits the difference: deletes first (a displaced
// row, or a row whose rank moved, with its old rank), then inserts. The
// comparison starts at the first position the batch changed in the
// partition: the rows above it keep their ranks.
//
// Ties in ORDER BY are broken by the rows' other columns (ranker), so the
// rows kept never depend on arrival order, parallelism or restarts.
//
// State: per partition a sorted slice of rows. Over an append-only input
// it holds at most Limit rows (RANK and DENSE_RANK also the rows tied with
// the last kept rank); over a retracting input (KeepAll) it holds every
// live input row of the partition, so a retracted top row gives way to
// the next. The partitions live in a partStore (parts_spill.go): at most
// state_cache_size of them, and no more than fit in the operator's share
// of memory_limit, stay in memory after each batch; the others leave
// memory whole, to the spill area when changed since the last checkpoint,
// and come back when a row of theirs arrives or their TTL timer fires. A
// checkpoint writes the partitions changed since the previous one, one
// key each (the partition columns), and deletes the emptied ones.
//
// STATE TTL bounds the partitions: one not updated for the TTL (on the
// input's event time when it has a watermark column, else the wall
// clock) is dropped and its ranked rows retracted, as an aggregate's
// group is. When each partition expires is kept in memory buckets
// (timerBuckets: a key and a time per partition, evicted ones included,
// which is what memory holds of a partition that left it), rebuilt on
// restore from the last-update time a checkpoint stores with each
// partition's rows.
type TopN struct {
	ranker
	id      string
	n       *planner.TopN
	keepAll bool
	out     Output
	store   *partStore[*keyedPart]
	keyBuf  []byte
	// touched is the partitions the batch being processed changed, with
	// where their ranked rows before it start in old (reused buffers).
	touched []touchedPart
	old     []rankedRow
	cur     []rankedRow

	ttl     int64
	timeCol int   // input event-time column, -1 for wall-clock TTL
	now     int64 // the wall clock at the last Tick
	timers  timerBuckets
}

// keyedPart is one partition of a TopN: its rows, sorted.
type keyedPart struct {
	rows      []types.Row
	dirty     bool   // changed since the last checkpoint
	persisted bool   // a checkpoint holds it
	used      uint64 // the partStore round it was last used in
	last      int64  // under STATE TTL: its last update (event time or wall clock)
	queued    int64  // under STATE TTL: the time of its memory timer not yet fired (noTimer: none, or not known since it was evicted)
	// touched is 1 + its index in TopN.touched while a batch changes it,
	// else 0; from is the first position the batch changed.
	touched int
	from    int
}

// touchedPart is a partition a batch changed: its key, and its ranked
// rows before the batch as old[start:end] of the TopN.
type touchedPart struct {
	key        string
	p          *keyedPart
	start, end int
}

// TopNConfig configures a TopN.
type TopNConfig struct {
	ID   string // state key prefix, unique per operator
	Node *planner.TopN
	// KeepAll keeps every row of a partition: the input retracts.
	KeepAll bool
	Out     Output
	// Keep is the restore filter of a parallel instance (nil: all).
	Keep func(key types.Row) bool
	// TimeCol is the input's event-time column that STATE TTL runs on,
	// -1 for the wall clock; Now is the wall clock at the start.
	TimeCol int
	Now     int64
	// Store with Budget or Memory lets partitions spill: at most Budget
	// of them (0: no cap), and no more than fit in Memory's bytes (nil:
	// no share), stay in memory.
	Store  *state.Store
	Budget int
	Memory *MemoryBudget
}

// NewTopN returns the operator for c.Node.
func NewTopN(c TopNConfig) *TopN {
	t := &TopN{ranker: ranker{fn: c.Node.Fn, order: c.Node.Order, limit: c.Node.Limit},
		id: c.ID, n: c.Node, keepAll: c.KeepAll, out: c.Out,
		ttl: c.Node.TTL, timeCol: c.TimeCol, now: c.Now}
	t.store = newPartStore(partStoreConfig{ID: c.ID, Keep: c.Keep, Store: c.Store, Budget: c.Budget, Memory: c.Memory},
		partCodec[*keyedPart]{encode: t.encodePart, decode: t.decodePart,
			flags: func(p *keyedPart) (bool, bool) { return p.dirty, p.persisted },
			set:   func(p *keyedPart, dirty, persisted bool) { p.dirty, p.persisted = dirty, persisted },
			size:  t.partBytes,
			used:  func(p *keyedPart) *uint64 { return &p.used }})
	return t
}

// part returns the partition of t.keyBuf, loading it when it left memory,
// or made when absent and create is set (else nil).
func (t *TopN) part(create bool) (*keyedPart, error) {
	p, ok, err := t.store.get(t.keyBuf)
	if ok || err != nil || !create {
		return p, err
	}
	p = &keyedPart{last: types.MinTime, queued: noTimer}
	t.store.put(string(t.keyBuf), p)
	return p, nil
}

// Process implements Operator: apply the batch's inserts and retractions
// to their partitions, then emit how each touched partition's ranked rows
// changed.
func (t *TopN) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		t.keyBuf = state.AppendKeyCols(t.keyBuf[:0], r, t.n.Partition)
		p, err := t.part(b.Diff(i) > 0)
		if err != nil {
			return err
		}
		if p == nil {
			continue // nothing to retract from
		}
		t.touch(p, r)
		if b.Diff(i) > 0 && len(p.rows) > 0 && t.beyond(p, r) {
			continue
		}
		if p.touched == 0 {
			start := len(t.old)
			t.old = t.ranked(t.old, p.rows)
			t.touched = append(t.touched, touchedPart{key: string(t.keyBuf), p: p, start: start, end: len(t.old)})
			p.touched, p.from = len(t.touched), len(p.rows)
		}
		if b.Diff(i) < 0 {
			p.dirty = t.remove(p, r) || p.dirty
		} else {
			p.dirty = t.insert(p, r) || p.dirty
		}
	}
	if err := t.emit(); err != nil {
		return err
	}
	return t.store.evict()
}

// touch records, under STATE TTL, that r updated partition p, and covers
// a partition without a pending timer at its expiry.
func (t *TopN) touch(p *keyedPart, r types.Row) {
	if t.ttl <= 0 {
		return
	}
	last := p.last
	if t.timeCol >= 0 && !r[t.timeCol].IsNull() {
		last = max(last, r[t.timeCol].I)
	} else if t.timeCol < 0 {
		last = max(last, t.now)
	}
	if last != p.last { // a checkpoint stores it
		p.last, p.dirty = last, true
	}
	if p.queued == noTimer && p.last != types.MinTime {
		p.queued = p.last + t.ttl
		t.timers.push(expiryItem{at: p.queued, key: string(t.keyBuf)})
	}
}

// expire drops the partitions last updated more than the TTL before
// limit and retracts the rows the view holds of them; a partition updated
// since its timer was pushed is covered again at its new expiry. A
// partition loaded back since it was evicted does not know its timer
// (queued is noTimer): the first due timer of its key stands for it.
func (t *TopN) expire(limit int64) error {
	if t.ttl <= 0 {
		return nil
	}
	out := &Batch{}
	for _, it := range t.timers.due(limit, nil, false) {
		t.keyBuf = append(t.keyBuf[:0], it.key...)
		p, err := t.part(false)
		if err != nil {
			return err
		}
		if p == nil || p.queued != noTimer && it.at != p.queued {
			continue
		}
		p.queued = noTimer
		if at := p.last + t.ttl; at > limit {
			p.queued = at
			t.timers.push(expiryItem{at: at, key: it.key})
		} else {
			t.cur = t.ranked(t.cur[:0], p.rows)
			for _, r := range t.cur {
				out.Rows, out.Diffs = append(out.Rows, t.withRank(r)), append(out.Diffs, -1)
			}
			t.store.drop(it.key, p)
		}
		if err := t.store.evict(); err != nil {
			return err
		}
	}
	if len(out.Rows) == 0 {
		return nil
	}
	return t.out.Emit(out)
}

// beyond reports whether r, inserted over an append-only input, would
// rank past ROW_NUMBER's limit of the full partition p: it changes
// nothing.
func (t *TopN) beyond(p *keyedPart, r types.Row) bool {
	return !t.keepAll && t.fn == "row_number" && int64(len(p.rows)) >= t.limit && t.limit > 0 &&
		!t.less(r, p.rows[t.limit-1])
}

// insert places r in p's sorted rows and, over an append-only input,
// trims what ranks past the limit; it reports whether p changed.
func (t *TopN) insert(p *keyedPart, r types.Row) bool {
	i := sort.Search(len(p.rows), func(j int) bool { return t.less(r, p.rows[j]) })
	if !t.keepAll && int64(i) >= t.limit && t.fn == "row_number" {
		return false
	}
	p.from = min(p.from, i)
	if !t.keepAll && t.fn == "row_number" && int64(len(p.rows)) == t.limit {
		// a full partition: r takes position i and the last row drops
		// out, in place (a dedup, limit 1, replaces its row)
		copy(p.rows[i+1:], p.rows[i:])
		p.rows[i] = append(types.Row(nil), r...)
		return true
	}
	p.rows = slices.Insert(p.rows, i, append(types.Row(nil), r...))
	if t.keepAll {
		return true
	}
	keep := t.kept(p.rows)
	changed := keep > i
	clear(p.rows[keep:])
	p.rows = p.rows[:keep]
	return changed
}

// remove takes one copy of r out of p's rows; it reports whether p held
// it.
func (t *TopN) remove(p *keyedPart, r types.Row) bool {
	i := sort.Search(len(p.rows), func(j int) bool { return t.cmp(p.rows[j], r) >= 0 })
	if i == len(p.rows) || t.cmp(p.rows[i], r) != 0 {
		return false
	}
	p.from = min(p.from, i)
	p.rows = slices.Delete(p.rows, i, i+1)
	return true
}

// rankedRow is a stored row the view holds and its rank.
type rankedRow struct {
	row  types.Row
	rank int64
}

// ranked appends to out the rows the view holds for sorted rows: those
// within the limit, with their rank, in the rows' order.
func (t *TopN) ranked(out []rankedRow, rows []types.Row) []rankedRow {
	rank, dense := int64(0), int64(0)
	for i, r := range rows {
		if i == 0 || t.orderCmp(rows[i-1], r) != 0 {
			rank, dense = int64(i)+1, dense+1
		}
		v := int64(i) + 1
		switch t.fn {
		case "rank":
			v = rank
		case "dense_rank":
			v = dense
		}
		if v > t.limit {
			break
		}
		out = append(out, rankedRow{row: r, rank: v})
	}
	return out
}

// emit sends, for every touched partition, the ranked rows it no longer
// holds (or holds with another rank) as deletes and the ones it newly
// holds as inserts, and forgets the partitions left empty. Only the
// ranked rows from the first position the batch changed on are
// compared: a row above it has the same rank (ROW_NUMBER, RANK and
// DENSE_RANK depend only on the rows before a row).
func (t *TopN) emit() error {
	out := &Batch{}
	var ins []types.Row
	for _, tp := range t.touched {
		p := tp.p
		old := t.old[tp.start:tp.end]
		t.cur = t.ranked(t.cur[:0], p.rows)
		now := t.cur
		from := min(p.from, len(old), len(now))
		ins = t.diff(out, ins, old[from:], now[from:])
		p.touched = 0
		if len(p.rows) == 0 {
			t.store.drop(tp.key, p)
		}
	}
	clear(t.touched) // the partitions and rows they point at
	t.touched = t.touched[:0]
	clear(t.old)
	t.old = t.old[:0]
	clear(t.cur)
	t.cur = t.cur[:0]
	for _, r := range ins {
		out.Rows, out.Diffs = append(out.Rows, r), append(out.Diffs, 1)
	}
	if len(out.Rows) == 0 {
		return nil
	}
	return t.out.Emit(out)
}

// diff merges old and now (both in the stored rows' order) and appends
// the rows of old that now lacks, or ranks differently, to out as
// deletes, and returns ins with the rows of now that old lacks appended.
func (t *TopN) diff(out *Batch, ins []types.Row, old, now []rankedRow) []types.Row {
	i, j := 0, 0
	for i < len(old) || j < len(now) {
		c := -1
		switch {
		case i == len(old):
			c = 1
		case j < len(now):
			c = t.cmp(old[i].row, now[j].row)
		}
		if c == 0 && old[i].rank == now[j].rank {
			i, j = i+1, j+1
			continue
		}
		if c <= 0 {
			out.Rows, out.Diffs = append(out.Rows, t.withRank(old[i])), append(out.Diffs, -1)
			i++
		}
		if c >= 0 {
			ins = append(ins, t.withRank(now[j]))
			j++
		}
	}
	return ins
}

// withRank is a copy of r's row with its rank in the rank column.
func (t *TopN) withRank(r rankedRow) types.Row {
	row := append(types.Row(nil), r.row...)
	row[t.n.RankCol] = types.IntValue(r.rank)
	return row
}

// Watermark implements Operator: the rows do not wait for event time;
// under an event-time STATE TTL the partitions idle for the TTL expire
// (not at the end of a bounded input, EndOfTime: the view keeps its final
// answer); the watermark passes on.
func (t *TopN) Watermark(_ int, wm int64) error {
	if t.timeCol >= 0 && wm != types.EndOfTime {
		if err := t.expire(wm); err != nil {
			return err
		}
	}
	return t.out.EmitWatermark(wm)
}

// Tick implements Operator: a wall-clock STATE TTL expires partitions.
func (t *TopN) Tick(now int64) error {
	t.now = now
	if t.timeCol < 0 {
		return t.expire(now)
	}
	return nil
}

// Checkpoint implements Stateful: deletes for the emptied partitions a
// checkpoint wrote, then every partition changed since (in memory or
// spilled), its rows as one value.
func (t *TopN) Checkpoint(w *state.Writer) error { return t.store.checkpoint(w) }

// encodePart is partition p's stored value: under STATE TTL its last
// update first, for the timer a restore rebuilds, then its rows.
func (t *TopN) encodePart(p *keyedPart) []types.Row {
	if t.ttl > 0 {
		return append([]types.Row{{types.IntValue(p.last)}}, p.rows...)
	}
	return p.rows
}

// decodePart makes a partition back from the rows encodePart gave. Its
// memory timer, if any, is not known (queued is noTimer).
func (t *TopN) decodePart(_ string, rows []types.Row) (*keyedPart, error) {
	p := &keyedPart{last: types.MinTime, queued: noTimer}
	if t.ttl > 0 {
		if len(rows) == 0 || len(rows[0]) != 1 {
			return nil, errCorrupt(t.id)
		}
		p.last, rows = rows[0][0].I, rows[1:]
	}
	if len(rows) == 0 || len(rows[0]) <= t.n.RankCol {
		return nil, errCorrupt(t.id)
	}
	p.rows = rows
	return p, nil
}

// Restore implements Stateful: reload the partitions this instance owns,
// covering each by a memory timer under STATE TTL, and evict down to the
// limit as they come (so a restore reads every partition once).
func (t *TopN) Restore(s *state.Store) error {
	return t.store.restore(s, func(k string, p *keyedPart) error {
		if t.ttl > 0 && p.last != types.MinTime {
			p.queued = p.last + t.ttl
			t.timers.push(expiryItem{at: p.queued, key: k})
		}
		return nil
	})
}

// StateKeys implements stateSizer: the partitions in memory.
func (t *TopN) StateKeys() int64 { return int64(t.store.resident()) }

// stateSize implements stateMeasurer: the partitions in memory and their
// estimated bytes (the mean of a sample of them times their number), and
// the spill area's bytes and reads.
func (t *TopN) stateSize() StateSize { return t.store.stateSize() }

// partBytes estimates partition p of key k in memory.
func (t *TopN) partBytes(k string, p *keyedPart) int64 {
	n := keyBytes(k) + 8 + int64(unsafe.Sizeof(*p))
	for _, r := range p.rows {
		n += rowBytes(r)
	}
	if t.ttl > 0 {
		n += timerBytes
	}
	return n
}

func (t *TopN) releaseMemory() { t.store.release() }
