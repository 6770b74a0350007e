package exec

import (
	"fmt"
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// retractor is an accumulator that also takes a value back: the state is
// as if the value had never been added. An Aggregate over a retracting
// input (planner.AggregateRetracts) folds with retractors only; over an
// append-only input it keeps the cheaper accumulators of accumulator.go.
type retractor interface {
	accumulator
	remove(v types.Value)
}

// newRetractAccumulator returns the retracting accumulator of call c,
// one of planner.Retractable's.
func newRetractAccumulator(c planner.AggCall) retractor {
	if c.Distinct {
		in := planner.AggCall{Fn: c.Fn, T: c.T, Arg: 0}
		a := &distinctSetAcc{seen: multiset{}}
		if c.Fn != "count" {
			a.inner = newRetractAccumulator(in)
		}
		return a
	}
	switch c.Fn {
	case "sum":
		return &sumAcc{t: c.T}
	case "avg":
		return &avgAcc{}
	case "min", "max":
		return &minMaxSetAcc{min: c.Fn == "min", vals: multiset{}}
	}
	return &countAcc{star: c.Arg < 0}
}

// newRetractAccs returns the accumulators of one group over a retracting
// input: one per call, then a hidden count(*) of the group's rows, so the
// group is deleted when its last row is retracted.
func newRetractAccs(calls []planner.AggCall) accs {
	a := make(accs, len(calls)+1)
	for i, c := range calls {
		a[i] = newRetractAccumulator(c)
	}
	a[len(calls)] = &countAcc{star: true}
	return a
}

// insert folds row r into every accumulator of a, built by
// newRetractAccs for calls, counting it in the hidden count.
func (a accs) insert(calls []planner.AggCall, r types.Row) {
	a.add(calls, r)
	a[len(calls)].add(types.NullValue)
}

// remove takes row r back from every accumulator of a, built by
// newRetractAccs for calls.
func (a accs) remove(calls []planner.AggCall, r types.Row) {
	for i, c := range calls {
		var v types.Value
		if c.Arg >= 0 {
			v = r[c.Arg]
		}
		a[i].(retractor).remove(v)
	}
	a[len(calls)].(retractor).remove(types.NullValue)
}

func (a *countAcc) remove(v types.Value) {
	if a.star || !v.IsNull() {
		a.n--
	}
}

// remove subtracts v; a DECIMAL is added negated (exactly). n counts the
// non-NULL values left, so the sum is NULL again once every one is gone.
func (a *sumAcc) remove(v types.Value) {
	switch v.K {
	case types.Int:
		a.i -= v.I
	case types.Float:
		a.f -= v.F
	case types.Decimal:
		a.add(types.DecimalNeg(v))
		a.n -= 2 // add counted the negated value
		return
	default:
		return
	}
	a.n--
}

func (a *avgAcc) remove(v types.Value) {
	switch v.K {
	case types.Int, types.Float:
		a.sum -= v.AsFloat()
	case types.Decimal:
		a.dec.addDecimal(types.DecimalNeg(v))
	default:
		return
	}
	a.n--
}

// multiset counts the non-NULL values of a group by their key form
// (state.AppendKey), keeping the first spelling seen of each.
type multiset map[string]*counted

type counted struct {
	v     types.Value
	n     int64
	fresh bool // listed in a tracking distinctSetAcc's fresh
}

// add counts v once more and reports whether v is new to the set.
// k is v's key form.
func (m multiset) add(k []byte, v types.Value) bool {
	if c, ok := m[string(k)]; ok {
		c.n++
		return false
	}
	m[string(k)] = &counted{v: v, n: 1}
	return true
}

// remove counts v once less and reports whether its last copy left the
// set. A value the set lacks (a retraction of a row whose group expired
// under STATE TTL and came back) is ignored.
func (m multiset) remove(k []byte) bool {
	c, ok := m[string(k)]
	if !ok {
		return false
	}
	if c.n--; c.n > 0 {
		return false
	}
	delete(m, string(k))
	return true
}

// bytes estimates the set's memory: the map of key strings to entries,
// each entry with its value's string, and the key bytes.
func (m multiset) bytes() int64 {
	slot := int64(unsafe.Sizeof("")) + ptrBytes
	n := mapBytes(len(m), slot) + int64(len(m))*allocBytes(int64(unsafe.Sizeof(counted{})))
	for k, c := range m {
		n += int64(len(k)) + int64(len(c.v.S))
	}
	return n
}

// encode writes the set as value, count pairs.
func (m multiset) encode() types.Row {
	r := make(types.Row, 0, 2*len(m))
	for _, c := range m {
		r = append(r, c.v, types.IntValue(c.n))
	}
	return r
}

// decode adds the value, count pairs of r, written by encode.
func (m multiset) decode(r types.Row, what string) error {
	if len(r)%2 != 0 {
		return fmt.Errorf("%s state: want value, count pairs, got %d values", what, len(r))
	}
	var buf []byte
	for i := 0; i < len(r); i += 2 {
		buf = state.AppendKey(buf[:0], r[i])
		if c, ok := m[string(buf)]; ok {
			c.n += r[i+1].I
			continue
		}
		m[string(buf)] = &counted{v: r[i], n: r[i+1].I}
	}
	return nil
}

// minMaxSetAcc is min or max over a retracting input: the multiset of the
// group's values, so retracting the extreme finds the next one. Its state
// grows with the distinct values of the group (bounded by STATE TTL only
// through the group itself). best caches the extreme; retracting its last
// copy rescans the set.
type minMaxSetAcc struct {
	min  bool
	vals multiset
	best types.Value
	buf  []byte
}

func (a *minMaxSetAcc) add(v types.Value) {
	if v.IsNull() {
		return
	}
	a.buf = state.AppendKey(a.buf[:0], v)
	a.vals.add(a.buf, v)
	if a.best.IsNull() || a.better(v, a.best) {
		a.best = v
	}
}

func (a *minMaxSetAcc) remove(v types.Value) {
	if v.IsNull() {
		return
	}
	if a.buf = state.AppendKey(a.buf[:0], v); !a.vals.remove(a.buf) {
		return
	}
	if types.Compare(v, a.best) == 0 {
		a.rescan()
	}
}

// better reports whether v beats w as the extreme.
func (a *minMaxSetAcc) better(v, w types.Value) bool {
	c := types.Compare(v, w)
	return (a.min && c < 0) || (!a.min && c > 0)
}

// rescan finds the extreme of the set again.
func (a *minMaxSetAcc) rescan() {
	a.best = types.NullValue
	for _, c := range a.vals {
		if a.best.IsNull() || a.better(c.v, a.best) {
			a.best = c.v
		}
	}
}

func (a *minMaxSetAcc) merge(src accumulator) {
	for _, c := range src.(*minMaxSetAcc).vals {
		for i := int64(0); i < c.n; i++ {
			a.add(c.v)
		}
	}
}

func (a *minMaxSetAcc) result() types.Value { return a.best }
func (a *minMaxSetAcc) encode() types.Row   { return a.vals.encode() }
func (a *minMaxSetAcc) decode(r types.Row) error {
	if err := a.vals.decode(r, "min/max"); err != nil {
		return err
	}
	a.rescan()
	return nil
}

// distinctSetAcc is an aggregate over DISTINCT values of a retracting
// input: each distinct value with its count, folded into inner (a
// retractor; nil for count) when it enters the set and taken back from
// inner when its last copy leaves.
//
// In an Aggregate (tracking set) it also lists the values whose count
// changed since the last checkpoint (fresh; a value whose last copy left
// stays listed with count 0), which the checkpoint writes as one chunk
// of the set (aggregate_distinct.go).
type distinctSetAcc struct {
	seen  multiset
	inner retractor
	buf   []byte

	tracking bool
	fresh    []*counted
}

func (a *distinctSetAcc) add(v types.Value) {
	if v.IsNull() {
		return
	}
	a.buf = state.AppendKey(a.buf[:0], v)
	if a.seen.add(a.buf, v) && a.inner != nil {
		a.inner.add(v)
	}
	a.touch(a.seen[string(a.buf)])
}

func (a *distinctSetAcc) remove(v types.Value) {
	if v.IsNull() {
		return
	}
	a.buf = state.AppendKey(a.buf[:0], v)
	a.touch(a.seen[string(a.buf)])
	if a.seen.remove(a.buf) && a.inner != nil {
		a.inner.remove(v)
	}
}

// touch lists c (nil: a value the set lacks) as changed since the last
// chunk, once.
func (a *distinctSetAcc) touch(c *counted) {
	if a.tracking && c != nil && !c.fresh {
		c.fresh = true
		a.fresh = append(a.fresh, c)
	}
}

func (a *distinctSetAcc) merge(src accumulator) {
	for _, c := range src.(*distinctSetAcc).seen {
		for i := int64(0); i < c.n; i++ {
			a.add(c.v)
		}
	}
}

func (a *distinctSetAcc) result() types.Value {
	if a.inner == nil {
		return types.IntValue(int64(len(a.seen)))
	}
	return a.inner.result()
}

func (a *distinctSetAcc) encode() types.Row { return a.seen.encode() }

// decode restores the set and folds its values into inner afresh.
func (a *distinctSetAcc) decode(r types.Row) error {
	if err := a.seen.decode(r, "DISTINCT"); err != nil {
		return err
	}
	for _, c := range a.seen {
		if a.inner != nil {
			a.inner.add(c.v)
		}
	}
	return nil
}
