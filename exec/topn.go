package exec

import (
	"fmt"
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
// State: per partition a sorted slice of rows, in memory (it neither
// spills nor joins the memory budget). Over an append-only input it holds
// at most Limit rows (RANK and DENSE_RANK also the rows tied with the last
// kept rank); over a retracting input (KeepAll) it holds every live input
// row of the partition, so a retracted top row gives way to the next. A
// checkpoint writes the partitions changed since the previous one, one
// key each (the partition columns), and deletes the emptied ones.
//
// STATE TTL bounds the partitions: one not updated for the TTL (on the
// input's event time when it has a watermark column, else the wall
// clock) is dropped and its ranked rows retracted, as an aggregate's
// group is. When each partition expires is kept in memory buckets
// (timerBuckets), rebuilt on restore from the last-update time a
// checkpoint stores with each partition's rows.
type TopN struct {
	ranker
	id      string
	n       *planner.TopN
	keepAll bool
	out     Output
	keep    func(key types.Row) bool
	parts   map[string]*keyedPart
	// gone are the keys of emptied partitions a checkpoint wrote.
	gone   []string
	keyBuf []byte
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
	dirty     bool  // changed since the last checkpoint
	persisted bool  // a checkpoint holds it
	last      int64 // under STATE TTL: its last update (event time or wall clock)
	queued    int64 // under STATE TTL: the time of its memory timer not yet fired (noTimer: none)
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
}

// NewTopN returns the operator for c.Node.
func NewTopN(c TopNConfig) *TopN {
	return &TopN{ranker: ranker{fn: c.Node.Fn, order: c.Node.Order, limit: c.Node.Limit},
		id: c.ID, n: c.Node, keepAll: c.KeepAll, out: c.Out, keep: c.Keep, parts: map[string]*keyedPart{},
		ttl: c.Node.TTL, timeCol: c.TimeCol, now: c.Now}
}

// Process implements Operator: apply the batch's inserts and retractions
// to their partitions, then emit how each touched partition's ranked rows
// changed.
func (t *TopN) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		t.keyBuf = state.AppendKeyCols(t.keyBuf[:0], r, t.n.Partition)
		p := t.parts[string(t.keyBuf)]
		if p == nil {
			if b.Diff(i) < 0 {
				continue // nothing to retract from
			}
			p = &keyedPart{last: types.MinTime, queued: noTimer}
			t.parts[string(t.keyBuf)] = p
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
	return t.emit()
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
// since its timer was pushed is covered again at its new expiry.
func (t *TopN) expire(limit int64) error {
	if t.ttl <= 0 {
		return nil
	}
	out := &Batch{}
	for _, it := range t.timers.due(limit, nil, false) {
		p := t.parts[it.key]
		if p == nil || it.at != p.queued {
			continue
		}
		p.queued = noTimer
		if at := p.last + t.ttl; at > limit {
			p.queued = at
			t.timers.push(expiryItem{at: at, key: it.key})
			continue
		}
		t.cur = t.ranked(t.cur[:0], p.rows)
		for _, r := range t.cur {
			out.Rows, out.Diffs = append(out.Rows, t.withRank(r)), append(out.Diffs, -1)
		}
		delete(t.parts, it.key)
		if p.persisted {
			t.gone = append(t.gone, it.key)
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
			delete(t.parts, tp.key)
			if p.persisted {
				t.gone = append(t.gone, tp.key)
			}
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
// checkpoint wrote, then every partition changed since, its rows as one
// value.
func (t *TopN) Checkpoint(w *state.Writer) error {
	err := writeParts(w, t.id, t.gone, t.parts, func(p *keyedPart) bool { return p.dirty },
		func(p *keyedPart) []types.Row {
			if t.ttl > 0 { // the last update first, for the timer a restore rebuilds
				return append([]types.Row{{types.IntValue(p.last)}}, p.rows...)
			}
			return p.rows
		},
		func(p *keyedPart) { p.dirty, p.persisted = false, true })
	t.gone = t.gone[:0]
	return err
}

// Restore implements Stateful: reload the partitions this instance owns.
func (t *TopN) Restore(s *state.Store) error {
	return s.ScanOwned([]byte(t.id), t.owns, func(key, val []byte) error {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return fmt.Errorf("%s: %w", t.id, err)
		}
		p := &keyedPart{persisted: true, last: types.MinTime, queued: noTimer}
		if t.ttl > 0 {
			if len(rows) == 0 || len(rows[0]) != 1 {
				return errCorrupt(t.id)
			}
			p.last, rows = rows[0][0].I, rows[1:]
		}
		if len(rows) == 0 || len(rows[0]) <= t.n.RankCol {
			return errCorrupt(t.id)
		}
		p.rows = rows
		k := string(key[len(t.id):])
		t.parts[k] = p
		if t.ttl > 0 && p.last != types.MinTime {
			p.queued = p.last + t.ttl
			t.timers.push(expiryItem{at: p.queued, key: k})
		}
		return nil
	})
}

// owns reports whether this instance keeps the partition stored under
// key, from the key alone.
func (t *TopN) owns(key []byte) (bool, error) { return ownsStored(t.keep, t.id, key) }

// StateKeys implements stateSizer: the partitions held.
func (t *TopN) StateKeys() int64 { return int64(len(t.parts)) }

// stateSize implements stateMeasurer: the partitions and their estimated
// bytes in memory (the mean of a sample of them times their number);
// nothing spills.
func (t *TopN) stateSize() StateSize {
	return sampledParts(t.parts, func(k string, p *keyedPart) int64 {
		n := keyBytes(k) + 8 + int64(unsafe.Sizeof(*p))
		for _, r := range p.rows {
			n += rowBytes(r)
		}
		return n
	})
}
