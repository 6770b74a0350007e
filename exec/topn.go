package exec

import (
	"encoding/binary"
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
// State: per partition its rows, sorted, held encoded between batches
// (state.AppendRow encodings in one byte slice: the garbage collector
// does not scan them) and decoded only while a batch changes the
// partition. Over an append-only input it holds at most Limit rows (RANK
// and DENSE_RANK also the rows tied with the last kept rank); over a
// retracting input (KeepAll) it holds every live input row of the
// partition, so a retracted top row gives way to the next. A full
// ROW_NUMBER partition over an append-only input also keeps its cut, the
// first ORDER BY value of its last kept row when that value is an
// integer, a time or a NULL: a row ordered after it is dropped without
// the partition being decoded (most of Nexmark q19's bids). The
// partitions live in a partStore (parts_spill.go): at most
// state_cache_size of them, and no more than fit in the operator's share
// of memory_limit, stay in memory after each batch; the others leave
// memory whole, to the spill area when changed since the last checkpoint,
// and come back when a row of theirs arrives or their TTL timer fires
// (a key never evicted is known to be new without a read). A checkpoint
// writes the partitions changed since the previous one, one key each (the
// partition columns; the value is the encoded rows as memory holds them),
// and deletes the emptied ones — unless its view holds every row it ranks
// (TopNView, topn_view.go): then it writes none, neither at checkpoints
// nor to the spill area, and reads partitions back from the view's rows.
//
// STATE TTL bounds the partitions: one not updated for the TTL (on the
// input's event time when it has a watermark column, else the wall
// clock) is dropped and its ranked rows retracted, as an aggregate's
// group is. When each partition expires is kept in memory buckets
// (timerBuckets: a key and a time per partition, evicted ones included,
// which is what memory holds of a partition that left it), rebuilt on
// restore from the last-update time a checkpoint stores with each
// partition's rows.
//
// A partition end (planner.TopN.End, EndTopNPartitionsAtJoinCleanup)
// drops a partition once it is final: once the watermark passes the end
// its rows give (topn_end.go). Its ranked rows stay in the view; nothing
// is emitted.
type TopN struct {
	ranker
	id      string
	n       *planner.TopN
	keepAll bool
	width   int // the input's columns, every stored row's width (0: not known, a node without an input)
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
	ends    timerBuckets // under a partition end: each partition's end

	// view, when set, is the view that holds every row the TopN ranks,
	// which its partitions are read back from (topn_view.go); row is the
	// input row whose partition is being looked up.
	view *TopNView
	row  types.Row
}

// keyedPart is one partition of a TopN. Between batches it holds its
// rows encoded (enc, pointer-free, which the garbage collector does not
// scan); a batch that reaches the partition decodes them into rows, and
// emit encodes them back when they changed.
type keyedPart struct {
	enc []byte // its rows' state.AppendRow encodings, sorted
	n   int32  // the rows in enc
	// touched is 1 + its index in TopN.touched while a batch has it open
	// (its rows decoded there), else 0.
	touched int32
	// cut is, for a full ROW_NUMBER partition over an append-only input,
	// the first ORDER BY value of its last kept row (cutKind, and I) when
	// that value is a NULL or of a kind held in I alone (hasCut): a row
	// ordered after it ranks past the limit without the partition being
	// decoded.
	cut     int64
	cutKind types.Kind
	hasCut  bool
	partState
	last   int64 // under STATE TTL: its last update (event time or wall clock)
	queued int64 // under STATE TTL: the time of its memory timer not yet fired (noTimer: none, or not known since it was evicted)
	end    int64 // under a partition end: the end its rows give, covered by a timer (types.MinTime: none, or not known since it was evicted)
}

// touchedPart is a partition a batch opened: its key, its ranked rows
// before the batch as old[start:end] of the TopN and its row count then
// (n), its rows decoded and changed by the batch, and the first position
// the batch changed (from).
type touchedPart struct {
	key        string
	p          *keyedPart
	start, end int
	n          int
	rows       []types.Row
	from       int
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
	// View, with Store, is the view holding every row the TopN ranks: the
	// TopN then writes no partition of its own (topn_view.go).
	View *TopNView
}

// NewTopN returns the operator for c.Node.
func NewTopN(c TopNConfig) *TopN {
	t := &TopN{ranker: ranker{fn: c.Node.Fn, order: c.Node.Order, limit: c.Node.Limit},
		id: c.ID, n: c.Node, keepAll: c.KeepAll, out: c.Out,
		ttl: c.Node.TTL, timeCol: c.TimeCol, now: c.Now}
	if c.Node.Input != nil {
		t.width = len(c.Node.Input.Schema())
	}
	codec := partCodec[*keyedPart]{encodeRaw: t.encodePart, decodeRaw: t.decodePart, size: t.partBytes}
	if c.View != nil && c.View.view != nil && c.Store != nil && t.viewBacked() {
		t.view = c.View
		codec.load = func(string) (*keyedPart, bool, error) { return t.loadFromView() }
	}
	t.store = newPartStore(partStoreConfig{ID: c.ID, Keep: c.Keep, Store: c.Store, Budget: c.Budget, Memory: c.Memory}, codec)
	return t
}

// part returns the partition of t.keyBuf, loading it when it left memory,
// or made when absent and create is set (else nil).
func (t *TopN) part(create bool) (*keyedPart, error) {
	p, ok, err := t.store.get(t.keyBuf)
	if ok || err != nil || !create {
		return p, err
	}
	p = &keyedPart{last: types.MinTime, queued: noTimer, end: types.MinTime}
	t.store.put(string(t.keyBuf), p)
	return p, nil
}

// Process implements Operator: apply the batch's inserts and retractions
// to their partitions, then emit how each touched partition's ranked rows
// changed.
func (t *TopN) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		t.keyBuf = state.AppendKeyCols(t.keyBuf[:0], r, t.n.Partition)
		t.row = r
		p, err := t.part(b.Diff(i) > 0)
		if err != nil {
			return err
		}
		if p == nil {
			continue // nothing to retract from
		}
		t.touch(p, r)
		t.noteEnd(p, r)
		if b.Diff(i) > 0 && p.touched == 0 && t.pastCut(p, r) {
			continue
		}
		o, err := t.open(p)
		if err != nil {
			return err
		}
		if b.Diff(i) > 0 && len(o.rows) > 0 && t.beyond(o, r) {
			continue
		}
		if b.Diff(i) < 0 {
			p.dirty = t.remove(o, r) || p.dirty
		} else {
			p.dirty = t.insert(o, r) || p.dirty
		}
	}
	t.row = nil
	if err := t.emit(); err != nil {
		return err
	}
	return t.store.evict()
}

// open returns partition p opened for the batch: its rows decoded, its
// ranked rows before the batch noted in old.
func (t *TopN) open(p *keyedPart) (*touchedPart, error) {
	if p.touched != 0 {
		return &t.touched[p.touched-1], nil
	}
	rows, err := t.decodeRows(p)
	if err != nil {
		return nil, err
	}
	start := len(t.old)
	t.old = t.ranked(t.old, rows)
	t.touched = append(t.touched, touchedPart{key: string(t.keyBuf), p: p, start: start, end: len(t.old),
		n: len(rows), rows: rows, from: len(rows)})
	p.touched = int32(len(t.touched))
	return &t.touched[len(t.touched)-1], nil
}

// decodeRows returns partition p's rows decoded from enc.
func (t *TopN) decodeRows(p *keyedPart) ([]types.Row, error) {
	rows := make([]types.Row, 0, int(p.n)+1)
	b := p.enc
	for range p.n {
		r, rest, err := state.DecodeRow(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.id, err)
		}
		if len(r) <= t.n.RankCol || t.width > 0 && len(r) != t.width {
			return nil, errCorrupt(t.id) // stored for another plan's columns
		}
		rows, b = append(rows, r), rest
	}
	if len(b) != 0 {
		return nil, errCorrupt(t.id)
	}
	return rows, nil
}

// close ends the batch's hold of partition o: its rows are encoded back
// into enc when they changed.
func (t *TopN) close(o *touchedPart) {
	p := o.p
	if o.from < o.n || len(o.rows) != o.n {
		t.setRows(p, o.rows)
	}
	p.touched = 0
}

// setRows makes sorted rows partition p's: encoded into enc in one
// buffer of their size, and the cut they give.
func (t *TopN) setRows(p *keyedPart, rows []types.Row) {
	size := 0
	for _, r := range rows {
		size += rowEncBytes(r)
	}
	enc := make([]byte, 0, size)
	for _, r := range rows {
		enc = state.AppendRow(enc, r)
	}
	p.enc, p.n = enc, int32(len(rows))
	t.setCut(p, rows)
}

// rowEncBytes estimates row r's AppendRow encoding, to size a buffer.
func rowEncBytes(r types.Row) int {
	n := 2
	for _, v := range r {
		n += 11 + len(v.S)
	}
	return n
}

// setCut sets p's cut from its sorted rows: their last kept row's first
// ORDER BY value, when the partition is a full ROW_NUMBER one over an
// append-only input and that value holds no string.
func (t *TopN) setCut(p *keyedPart, rows []types.Row) {
	p.cut, p.cutKind, p.hasCut = 0, types.Null, false
	if t.keepAll || t.fn != "row_number" || t.limit <= 0 || int64(len(rows)) < t.limit || len(t.order) == 0 {
		return
	}
	switch v := rows[t.limit-1][t.order[0].Col]; v.K {
	case types.Null, types.Bool, types.Int, types.Timestamp, types.TimestampTZ, types.Date, types.Time:
		p.cut, p.cutKind, p.hasCut = v.I, v.K, true
	}
}

// pastCut reports whether r, inserted over an append-only input, ranks
// past ROW_NUMBER's limit of the full partition p by its first ORDER BY
// value alone: ordered strictly after p's cut, it changes nothing.
func (t *TopN) pastCut(p *keyedPart, r types.Row) bool {
	if !p.hasCut {
		return false
	}
	s := t.order[0]
	c := orderCompare(r[s.Col], types.Value{K: p.cutKind, I: p.cut})
	if s.Desc {
		c = -c
	}
	return c > 0
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
			rows, err := t.decodeRows(p)
			if err != nil {
				return err
			}
			t.cur = t.ranked(t.cur[:0], rows)
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
// rank past ROW_NUMBER's limit of the full partition o: it changes
// nothing.
func (t *TopN) beyond(o *touchedPart, r types.Row) bool {
	return !t.keepAll && t.fn == "row_number" && int64(len(o.rows)) >= t.limit && t.limit > 0 &&
		!t.less(r, o.rows[t.limit-1])
}

// insert places r in o's sorted rows and, over an append-only input,
// trims what ranks past the limit; it reports whether it changed.
func (t *TopN) insert(o *touchedPart, r types.Row) bool {
	i := sort.Search(len(o.rows), func(j int) bool { return t.less(r, o.rows[j]) })
	if !t.keepAll && int64(i) >= t.limit && t.fn == "row_number" {
		return false
	}
	o.from = min(o.from, i)
	if !t.keepAll && t.fn == "row_number" && int64(len(o.rows)) == t.limit {
		// a full partition: r takes position i and the last row drops
		// out, in place (a dedup, limit 1, replaces its row)
		copy(o.rows[i+1:], o.rows[i:])
		o.rows[i] = append(types.Row(nil), r...)
		return true
	}
	o.rows = slices.Insert(o.rows, i, append(types.Row(nil), r...))
	if t.keepAll {
		return true
	}
	keep := t.kept(o.rows)
	changed := keep > i
	clear(o.rows[keep:])
	o.rows = o.rows[:keep]
	return changed
}

// remove takes one copy of r out of o's rows; it reports whether o held
// it.
func (t *TopN) remove(o *touchedPart, r types.Row) bool {
	i := sort.Search(len(o.rows), func(j int) bool { return t.cmp(o.rows[j], r) >= 0 })
	if i == len(o.rows) || t.cmp(o.rows[i], r) != 0 {
		return false
	}
	o.from = min(o.from, i)
	o.rows = slices.Delete(o.rows, i, i+1)
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
		t.cur = t.ranked(t.cur[:0], tp.rows)
		now := t.cur
		from := min(tp.from, len(old), len(now))
		ins = t.diff(out, ins, old[from:], now[from:])
		t.close(&tp)
		if len(tp.rows) == 0 {
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
// answer), and under a partition end the final partitions leave
// (dropFinal); the watermark passes on.
func (t *TopN) Watermark(_ int, wm int64) error {
	if t.timeCol >= 0 && wm != types.EndOfTime {
		if err := t.expire(wm); err != nil {
			return err
		}
	}
	if err := t.dropFinal(wm); err != nil {
		return err
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

// encodePart is partition p's stored value, state.EncodeValue's layout:
// under STATE TTL its last update first, for the timer a restore
// rebuilds, then its rows, copied from enc as they are.
func (t *TopN) encodePart(p *keyedPart) []byte {
	n := p.n
	var head []byte
	if t.ttl > 0 {
		n++
		head = state.AppendRow(nil, types.Row{types.IntValue(p.last)})
	}
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(head)+len(p.enc))
	b = append(b, state.Version)
	b = binary.AppendUvarint(b, uint64(n))
	b = append(b, head...)
	return append(b, p.enc...)
}

// decodePart makes a partition back from the value encodePart gave (or
// an earlier layout version's, whose rows are re-encoded), keeping its
// rows encoded. Its memory timer, if any, is not known (queued is
// noTimer), nor its cut until a batch opens it.
func (t *TopN) decodePart(_ string, val []byte) (*keyedPart, error) {
	p := &keyedPart{last: types.MinTime, queued: noTimer, end: types.MinTime}
	if len(val) == 0 || val[0] != state.Version {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.id, err)
		}
		var enc []byte
		for _, r := range rows {
			enc = state.AppendRow(enc, r)
		}
		val = binary.AppendUvarint([]byte{state.Version}, uint64(len(rows)))
		val = append(val, enc...)
	}
	n, k := binary.Uvarint(val[1:])
	if k <= 0 {
		return nil, errCorrupt(t.id)
	}
	b := val[1+k:]
	if t.ttl > 0 {
		head, rest, err := state.DecodeRow(b)
		if err != nil || n == 0 || len(head) != 1 {
			return nil, errCorrupt(t.id)
		}
		p.last, b, n = head[0].I, rest, n-1
	}
	if n == 0 || n > uint64(len(b)) {
		return nil, errCorrupt(t.id)
	}
	p.enc, p.n = append([]byte(nil), b...), int32(n)
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
		return t.restoreEnd(k, p)
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
	n := keyBytes(k) + 8 + int64(unsafe.Sizeof(*p)) + int64(cap(p.enc))
	if t.ttl > 0 {
		n += timerBytes
	}
	if t.n.End != nil {
		n += timerBytes
	}
	return n
}

func (t *TopN) releaseMemory() { t.store.release() }
