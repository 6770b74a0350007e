package exec

import (
	"container/heap"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// Join is the streaming inner equi-join of two append-only inputs, for
// interval joins (right.time - left.time within [lower, upper]) and window
// joins (equal window starts). Every arriving row probes the other side's
// state and is stored if rows still to come on the other side can match
// it.
//
// State: the rows of both sides by key. A left row is dropped once the
// right watermark passes its time + upper (window joins: window end), a
// right row once the left watermark passes its time - lower, so state is
// bounded by the interval (or window size) plus the inputs' lag.
type Join struct {
	id       string
	n        *planner.Join
	residual func(types.Row) bool
	out      Output
	late     *lateness.Counters
	keep     func(side int, key types.Row) bool

	wm    [2]int64
	sides [2]map[string][]joinRow
	// expiries orders each side's keys by when their rows expire, so a
	// watermark visits only the keys it purges.
	expiries [2]expiryHeap
	dirty    map[string]bool
	// persisted holds the state keys a checkpoint has written, so a key
	// that lived and died between checkpoints costs no delete.
	persisted map[string]bool

	// Spilling (join_spill.go): keys over the budget keep their rows in
	// Badger; evicted marks them (per side), spilled those whose rows are
	// in the spill area (by state key).
	store   *state.Store
	budget  int
	evicted [2]map[string]bool
	spill   spillArea
	width   [2]int
}

type joinRow struct {
	row  types.Row
	time int64
}

// JoinConfig configures a Join.
type JoinConfig struct {
	ID       string
	Node     *planner.Join
	Residual func(types.Row) bool
	Out      Output
	Late     *lateness.Counters
	Keep     func(side int, key types.Row) bool
	// Store and Budget enable spilling: at most Budget keys per side keep
	// their rows in memory (0: no limit).
	Store  *state.Store
	Budget int
}

// NewJoin returns the operator for n.
func NewJoin(c JoinConfig) *Join {
	j := &Join{id: c.ID, n: c.Node, residual: c.Residual, out: c.Out, late: c.Late, keep: c.Keep,
		wm: [2]int64{types.MinTime, types.MinTime}, dirty: map[string]bool{}, persisted: map[string]bool{}}
	j.sides[0], j.sides[1] = map[string][]joinRow{}, map[string][]joinRow{}
	j.evicted[0], j.evicted[1] = map[string]bool{}, map[string]bool{}
	j.spill = newSpillArea(c.Store, c.ID)
	if c.Store != nil && c.Budget > 0 {
		j.store, j.budget = c.Store, c.Budget
	}
	j.width[0], j.width[1] = len(c.Node.Left.Schema()), len(c.Node.Right.Schema())
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

// expiry is the watermark of the other side at which a row of side with
// time t can no longer match anything to come.
func (j *Join) expiry(side int, t int64) int64 {
	switch {
	case j.n.Kind == planner.WindowJoin:
		return t + j.n.WindowSize
	case side == 0:
		return t + j.n.Upper
	}
	return t - j.n.Lower
}

func (j *Join) matches(lt, rt int64) bool {
	if j.n.Kind != planner.IntervalJoin {
		return true
	}
	d := rt - lt
	return d >= j.n.Lower && d <= j.n.Upper
}

// Process implements Operator.
func (j *Join) Process(port int, b *Batch) error {
	other := 1 - port
	out := &Batch{}
	var kb []byte
	for _, r := range b.Rows {
		kb = kb[:0]
		for _, c := range j.keyCols(port) {
			kb = state.AppendRow(kb, types.Row{r[c]})
		}
		var t int64
		if tc := j.timeCol(port); tc >= 0 && !r[tc].IsNull() {
			t = r[tc].I
		}
		matched := false
		partners, err := j.rowsOf(other, string(kb))
		if err != nil {
			return err
		}
		for _, o := range partners {
			lt, rt := t, o.time
			left, right := r, o.row
			if port == 1 {
				lt, rt, left, right = o.time, t, o.row, r
			}
			if !j.matches(lt, rt) {
				continue
			}
			row := make(types.Row, 0, len(left)+len(right))
			row = append(append(row, left...), right...)
			if j.residual != nil && !j.residual(row) {
				continue
			}
			matched = true
			out.Rows = append(out.Rows, row)
		}
		if j.expiry(port, t) >= j.wm[other] || j.n.Kind == planner.Unbounded {
			k := string(kb)
			held, err := j.rowsOf(port, k)
			if err != nil {
				return err
			}
			// A copy: the row may sit in a batch-sized slab that it would
			// otherwise keep alive for as long as it is held.
			j.sides[port][k] = append(held, joinRow{row: r.Clone(), time: t})
			heap.Push(&j.expiries[port], expiryItem{at: j.expiry(port, t), key: k})
			j.dirty[j.stateKey(port, k)] = true
		} else if !matched {
			j.late.Add(lateness.Drop, "join_expired", 1)
		}
	}
	if err := j.out.Emit(out); err != nil {
		return err
	}
	return j.evict()
}

func (j *Join) stateKey(side int, k string) string { return string(rune('0'+side)) + k }

// Watermark implements Operator: purge the other side's rows that can no
// longer match, and forward the minimum of both inputs' watermarks.
func (j *Join) Watermark(port int, wm int64) error {
	if wm <= j.wm[port] {
		return nil
	}
	old := min(j.wm[0], j.wm[1])
	j.wm[port] = wm
	other := 1 - port
	if j.n.Kind != planner.Unbounded {
		h := &j.expiries[other]
		for h.Len() > 0 && (*h)[0].at < wm {
			if err := j.purgeKey(other, heap.Pop(h).(expiryItem).key, wm); err != nil {
				return err
			}
		}
	}
	if m := min(j.wm[0], j.wm[1]); m > old {
		return j.out.EmitWatermark(m)
	}
	return nil
}

// purgeKey drops the rows of one key of side that expire before wm.
func (j *Join) purgeKey(side int, k string, wm int64) error {
	rows, err := j.rowsOf(side, k)
	if err != nil || len(rows) == 0 {
		return err
	}
	kept := rows[:0]
	for _, r := range rows {
		if j.expiry(side, r.time) >= wm {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(rows) {
		return nil
	}
	clear(rows[len(kept):]) // drop the purged rows' references
	sk := j.stateKey(side, k)
	if len(kept) == 0 {
		j.spill.forget(sk)
		markGone(j.dirty, sk, j.persisted[sk])
		delete(j.sides[side], k)
		return nil
	}
	j.dirty[sk] = true
	j.sides[side][k] = kept
	return nil
}

// expiryItem says the rows of key may expire at watermark at.
type expiryItem struct {
	at  int64
	key string
}

// expiryHeap is a min-heap of expiryItems by at.
type expiryHeap []expiryItem

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(a, b int) bool { return h[a].at < h[b].at }
func (h expiryHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryItem)) }
func (h *expiryHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// Tick implements Operator.
func (j *Join) Tick(int64) error { return nil }

// Checkpoint implements Stateful.
func (j *Join) Checkpoint(w *state.Writer) error {
	for sk := range j.dirty {
		side := int(sk[0] - '0')
		key := []byte(j.id + sk)
		rows := j.sides[side][sk[1:]]
		if j.evicted[side][sk[1:]] && j.spill.has(sk) {
			val, err := j.spill.get(sk)
			if err != nil {
				return err
			}
			if err := w.Set(key, val); err != nil {
				return err
			}
			j.persisted[sk] = true
			continue
		}
		if len(rows) == 0 {
			if j.persisted[sk] {
				if err := w.Delete(key); err != nil {
					return err
				}
				delete(j.persisted, sk)
			}
			continue
		}
		if err := w.Set(key, j.encode(rows)); err != nil {
			return err
		}
		j.persisted[sk] = true
	}
	j.dirty = map[string]bool{}
	return j.spill.clear(w)
}

// Restore implements Stateful.
func (j *Join) Restore(s *state.Store) error {
	err := s.Scan([]byte(j.id), func(key, val []byte) error {
		sk := string(key[len(j.id):])
		if sk == "" {
			return nil
		}
		side := int(sk[0] - '0')
		j.persisted[sk] = true
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		for _, r := range rows[1:] {
			jr := joinRow{time: r[0].I, row: r[1:]}
			if j.keep != nil {
				kr := make(types.Row, len(j.keyCols(side)))
				for i, c := range j.keyCols(side) {
					kr[i] = jr.row[c]
				}
				if !j.keep(side, kr) {
					return nil
				}
			}
			j.sides[side][sk[1:]] = append(j.sides[side][sk[1:]], jr)
			heap.Push(&j.expiries[side], expiryItem{at: j.expiry(side, jr.time), key: sk[1:]})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return j.evict()
}
