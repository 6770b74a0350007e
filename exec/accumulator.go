package exec

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// accumulator folds the values of one aggregate call over append-only
// input. Its state is a small row (see encode), except count(DISTINCT)
// which keeps the set of distinct values of its group and the JSONB
// aggregates (accumulator_json.go) and array_agg (accumulator_array.go),
// which keep every value.
type accumulator interface {
	add(v types.Value)
	result() types.Value
	encode() types.Row
	// decode replaces the state with r, written by encode (DISTINCT's adds
	// r's values to what it holds).
	decode(r types.Row) error
	// merge folds src, an accumulator of the same call, into this one, as
	// if this one had also seen src's values (sessions that merge, a split
	// aggregate's partials). src is left as it was; the two may share
	// values, which are never changed in place.
	merge(src accumulator)
}

func newAccumulator(c planner.AggCall) accumulator {
	if c.Distinct {
		return newDistinctAcc(c)
	}
	switch c.Fn {
	case "count":
		return &countAcc{star: c.Arg < 0}
	case "sum":
		return &sumAcc{t: c.T}
	case "min":
		return &minMaxAcc{min: true}
	case "max":
		return &minMaxAcc{}
	case "avg":
		return &avgAcc{}
	case "jsonb_agg", "jsonb_object_agg":
		return &jsonAggAcc{obj: c.Fn == "jsonb_object_agg"}
	case "array_agg":
		return &arrayAggAcc{elem: c.T.Elem()}
	}
	return &countAcc{}
}

type countAcc struct {
	star bool
	n    int64
}

func (a *countAcc) add(v types.Value) {
	if a.star || !v.IsNull() {
		a.n++
	}
}
func (a *countAcc) merge(src accumulator) { a.n += src.(*countAcc).n }
func (a *countAcc) result() types.Value   { return types.IntValue(a.n) }
func (a *countAcc) encode() types.Row     { return types.Row{types.IntValue(a.n)} }
func (a *countAcc) decode(r types.Row) error {
	if len(r) != 1 {
		return fmt.Errorf("count state: want 1 value, got %d", len(r))
	}
	a.n = r[0].I
	return nil
}

// sumAcc sums BIGINTs, DOUBLEs or DECIMALs. A DECIMAL sum is exact, at
// the largest scale of its inputs (Postgres's sum(numeric)): it stays on
// the int64 fast path (d) until it outgrows it, then goes on in a big.Int
// (big, at scale bigScale) without a round trip through text per value.
type sumAcc struct {
	t        types.Kind
	i        int64
	f        float64
	d        types.Value // the DECIMAL sum while big is nil
	big      *big.Int
	bigScale int
	n        int64
}

func (a *sumAcc) add(v types.Value) {
	switch v.K {
	case types.Int:
		a.i += v.I
	case types.Float:
		a.f += v.F
	case types.Decimal:
		if a.d.K == types.Decimal && a.big == nil && a.d.S == "" && v.S == "" && a.d.Scale == v.Scale {
			if s := a.d.I + v.I; (s > a.d.I) == (v.I > 0) {
				a.d.I = s
				a.n++
				return
			}
		}
		a.addDecimal(v)
	default:
		return
	}
	a.n++
}

// addDecimal is add's slow path: the first value, differing scales, or
// a sum beyond int64.
func (a *sumAcc) addDecimal(v types.Value) {
	switch {
	case a.big != nil:
	case a.d.K == types.Null:
		a.d = v
		return
	case a.d.S == "" && v.S == "":
		if s, err := types.DecimalAdd(a.d, v); err == nil && s.S == "" {
			a.d = s
			return
		}
		fallthrough
	default:
		a.bigScale = int(a.d.Scale)
		a.big = types.DecimalBigCoef(a.d, a.bigScale)
	}
	if s := int(v.Scale); s > a.bigScale {
		a.big.Mul(a.big, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-a.bigScale)), nil))
		a.bigScale = s
	}
	a.big.Add(a.big, types.DecimalBigCoef(v, a.bigScale))
}

func (a *sumAcc) merge(src accumulator) {
	s := src.(*sumAcc)
	a.i += s.i
	a.f += s.f
	a.n += s.n
	if v := s.decimal(); v.K == types.Decimal {
		a.addDecimal(v)
	}
}

// decimal returns the DECIMAL sum (NULL before the first value).
func (a *sumAcc) decimal() types.Value {
	if a.big == nil {
		return a.d
	}
	v, err := types.DecimalFromBig(a.big, a.bigScale)
	if err != nil {
		return types.NullValue // beyond numeric's 131072 digits
	}
	return v
}

func (a *sumAcc) result() types.Value {
	if a.n == 0 {
		return types.NullValue
	}
	switch a.t {
	case types.Float:
		return types.FloatValue(a.f + float64(a.i))
	case types.Decimal:
		return a.decimal()
	}
	return types.IntValue(a.i)
}
func (a *sumAcc) encode() types.Row {
	if a.t == types.Decimal {
		return types.Row{a.decimal(), types.FloatValue(0), types.IntValue(a.n)}
	}
	return types.Row{types.IntValue(a.i), types.FloatValue(a.f), types.IntValue(a.n)}
}
func (a *sumAcc) decode(r types.Row) error {
	if len(r) != 3 {
		return fmt.Errorf("sum state: want 3 values, got %d", len(r))
	}
	a.i, a.d, a.big, a.f, a.n = 0, types.NullValue, nil, r[1].F, r[2].I
	if r[0].K == types.Decimal {
		a.d = r[0]
		return nil
	}
	a.i = r[0].I
	return nil
}

type minMaxAcc struct {
	min bool
	v   types.Value
}

func (a *minMaxAcc) add(v types.Value) {
	if v.IsNull() {
		return
	}
	if a.v.IsNull() {
		a.v = v
		return
	}
	c := types.Compare(v, a.v)
	if (a.min && c < 0) || (!a.min && c > 0) {
		a.v = v
	}
}
func (a *minMaxAcc) merge(src accumulator) { a.add(src.(*minMaxAcc).v) }
func (a *minMaxAcc) result() types.Value   { return a.v }
func (a *minMaxAcc) encode() types.Row     { return types.Row{a.v} }
func (a *minMaxAcc) decode(r types.Row) error {
	if len(r) != 1 {
		return fmt.Errorf("min/max state: want 1 value, got %d", len(r))
	}
	a.v = r[0]
	return nil
}

// avgAcc averages numbers as a DOUBLE (dialect.md). DECIMALs are summed
// exactly and converted once, so the average is the double nearest the
// exact sum's quotient rather than an accumulation of rounding errors.
type avgAcc struct {
	sum float64
	dec sumAcc // the DECIMAL inputs
	n   int64
}

func (a *avgAcc) add(v types.Value) {
	switch v.K {
	case types.Int, types.Float:
		a.sum += v.AsFloat()
	case types.Decimal:
		a.dec.addDecimal(v)
	default:
		return
	}
	a.n++
}

func (a *avgAcc) merge(src accumulator) {
	s := src.(*avgAcc)
	a.sum += s.sum
	a.n += s.n
	if v := s.dec.decimal(); v.K == types.Decimal {
		a.dec.addDecimal(v)
	}
}

func (a *avgAcc) result() types.Value {
	if a.n == 0 {
		return types.NullValue
	}
	sum := a.sum
	if d := a.dec.decimal(); d.K == types.Decimal {
		sum += types.DecimalToFloat(d)
	}
	return types.FloatValue(sum / float64(a.n))
}

// encode writes the DOUBLE sum, the count and the DECIMAL sum (NULL when
// none); state written before DECIMAL has the first two only.
func (a *avgAcc) encode() types.Row {
	return types.Row{types.FloatValue(a.sum), types.IntValue(a.n), a.dec.decimal()}
}
func (a *avgAcc) decode(r types.Row) error {
	if len(r) != 2 && len(r) != 3 {
		return fmt.Errorf("avg state: want 2 or 3 values, got %d", len(r))
	}
	a.sum, a.n = r[0].F, r[1].I
	a.dec.d, a.dec.big = types.NullValue, nil
	if len(r) == 3 {
		a.dec.d = r[2]
	}
	return nil
}

// distinctAcc keeps the distinct values of its group and folds each new
// one into inner as it arrives, so a result is O(1) however many values
// the group has seen (count(DISTINCT) is the size of the set). A BIGINT
// is kept in an intSet (sorted blocks of delta-coded gaps, a byte or two
// a value for ids: the common DISTINCT over ids); a VARCHAR value is its own key
// (distinctKey), so adding one allocates nothing beyond the set's own
// growth and the set holds no object per value for the garbage collector
// to visit; other kinds are keyed by their key form and keep the value
// itself. merge folds the values new to the set into inner likewise.
//
// In an Aggregate, a set stored in chunks (tracking) also lists the
// values new since the last checkpoint (freshInts, freshVals), which the
// checkpoint writes as one chunk of the set (aggregate_distinct.go).
type distinctAcc struct {
	ints  intSet // the BIGINT values
	seen  map[distinctKey]*types.Value
	inner accumulator // the fold of the values (nil for count)
	buf   []byte

	tracking  bool
	freshInts []int64       // the BIGINT values new since the last chunk
	freshVals []types.Value // the other values new since the last chunk
}

// distinctKey is a distinct value in a set: a VARCHAR as s, any other
// kind but BIGINT (k keyedKind) as its key form's bytes in s.
type distinctKey struct {
	s string
	k types.Kind
}

// keyedKind marks a distinctKey holding a value's key-form bytes.
const keyedKind = types.Null

func newDistinctAcc(c planner.AggCall) *distinctAcc {
	a := &distinctAcc{seen: map[distinctKey]*types.Value{}}
	if c.Fn != "count" {
		a.inner = newAccumulator(planner.AggCall{Fn: c.Fn, T: c.T, Arg: 0})
	}
	return a
}

func (a *distinctAcc) add(v types.Value) {
	var ref *types.Value
	switch v.K {
	case types.Null:
		return
	case types.Int:
		if !a.insertInt(v.I) {
			return
		}
	case types.String:
		if !a.insert(distinctKey{k: types.String, s: v.S}) {
			return
		}
	default:
		a.buf = state.AppendKey(a.buf[:0], v)
		if _, ok := a.seen[distinctKey{k: keyedKind, s: string(a.buf)}]; ok {
			return
		}
		ref = new(types.Value) // not &v: that would move every v to the heap
		*ref = v
		a.seen[distinctKey{k: keyedKind, s: string(a.buf)}] = ref
	}
	if a.inner != nil {
		a.inner.add(v)
	}
	if a.tracking {
		if v.K == types.Int {
			a.freshInts = append(a.freshInts, v.I)
		} else {
			a.freshVals = append(a.freshVals, v)
		}
	}
}

// merge adds src's values that the set lacks, folding each into inner.
func (a *distinctAcc) merge(src accumulator) {
	s := src.(*distinctAcc)
	s.ints.each(func(i int64) {
		if a.insertInt(i) && a.inner != nil {
			a.inner.add(types.IntValue(i))
		}
	})
	for k, ref := range s.seen {
		if _, ok := a.seen[k]; ok {
			continue
		}
		a.seen[k] = ref
		if a.inner != nil {
			a.inner.add(k.value(ref))
		}
	}
}

// insert adds k to the set and reports whether it is new.
func (a *distinctAcc) insert(k distinctKey) bool {
	if _, ok := a.seen[k]; ok {
		return false
	}
	a.seen[k] = nil
	return true
}

// insertInt adds BIGINT i to the set and reports whether it is new.
func (a *distinctAcc) insertInt(i int64) bool { return a.ints.add(i) }

// size is how many distinct values the set holds.
func (a *distinctAcc) size() int { return a.ints.len() + len(a.seen) }

// value is the value the set holds under k.
func (k distinctKey) value(ref *types.Value) types.Value {
	if k.k == types.String {
		return types.StringValue(k.s)
	}
	return *ref
}

func (a *distinctAcc) result() types.Value {
	if a.inner == nil {
		return types.IntValue(int64(a.size()))
	}
	return a.inner.result()
}

func (a *distinctAcc) encode() types.Row {
	r := make(types.Row, 0, a.size())
	a.ints.each(func(i int64) { r = append(r, types.IntValue(i)) })
	for k, ref := range a.seen {
		r = append(r, k.value(ref))
	}
	return r
}

// appendState appends the set as a row in AppendRow's form, without
// building it: its BIGINT values, if any, as a NULL (never a member, so
// the mark of this form) and a BYTEA of the intSet's blocks
// (intSet.appendBlocks: the bytes it holds them in, read back without
// decoding a value), then its other values, one each. decode also reads
// encode's row, and rows of builds before the blocks (a value each).
func (a *distinctAcc) appendState(dst []byte) []byte {
	if a.ints.len() == 0 {
		dst = binary.AppendUvarint(dst, uint64(len(a.seen)))
	} else {
		dst = binary.AppendUvarint(dst, uint64(2+len(a.seen)))
		dst = types.AppendCodec(dst, types.NullValue)
		a.buf = a.ints.appendBlocks(a.buf[:0])
		dst = append(dst, byte(types.Bytea))
		dst = binary.AppendUvarint(dst, uint64(len(a.buf)))
		dst = append(dst, a.buf...)
		if cap(a.buf) > 1024 {
			a.buf = nil
		}
	}
	for k, ref := range a.seen {
		dst = types.AppendCodec(dst, k.value(ref))
	}
	return dst
}

// decode adds the values of row r, in encode's form or appendState's.
func (a *distinctAcc) decode(r types.Row) error {
	if len(r) >= 2 && r[0].K == types.Null && r[1].K == types.Bytea {
		if a.inner == nil && !a.tracking && a.ints.len() == 0 {
			if err := a.ints.loadBlocks(r[1].S); err != nil { // the blocks as they are
				return err
			}
		} else { // each value folded and listed as add does
			var blocks intSet
			if err := blocks.loadBlocks(r[1].S); err != nil {
				return err
			}
			blocks.each(func(i int64) { a.add(types.IntValue(i)) })
		}
		r = r[2:]
	}
	for _, v := range r {
		a.add(v)
	}
	return nil
}

// accs is the accumulators of one group.
type accs []accumulator

func newAccs(calls []planner.AggCall) accs {
	a := make(accs, len(calls))
	for i, c := range calls {
		a[i] = newAccumulator(c)
	}
	return a
}

func (a accs) add(calls []planner.AggCall, r types.Row) {
	for i, c := range calls {
		var v types.Value
		if c.Arg >= 0 {
			v = r[c.Arg]
		}
		a[i].add(v)
	}
}

// stateAppender is an accumulator that appends its encode row in
// AppendRow's form itself, cheaper than building the row.
type stateAppender interface {
	appendState(dst []byte) []byte
}

// appendState appends the accumulators' rows in AppendRow's form.
func (a accs) appendState(dst []byte) []byte {
	for _, x := range a {
		if s, ok := x.(stateAppender); ok {
			dst = s.appendState(dst)
			continue
		}
		dst = state.AppendRow(dst, x.encode())
	}
	return dst
}

func (a accs) encode() []types.Row {
	out := make([]types.Row, len(a))
	for i, x := range a {
		out[i] = x.encode()
	}
	return out
}

func (a accs) decode(rows []types.Row) error {
	if len(rows) != len(a) {
		return fmt.Errorf("aggregate state: want %d accumulators, got %d", len(a), len(rows))
	}
	for i, x := range a {
		if err := x.decode(rows[i]); err != nil {
			return err
		}
	}
	return nil
}
