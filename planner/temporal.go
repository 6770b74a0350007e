package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Temporal clocks: what now() is in a view's temporal filter.
const (
	// ClockWatermark reads now() as the input's watermark (the default:
	// deterministic, replays alike).
	ClockWatermark = "watermark"
	// ClockProcessing reads PROCTIME() as the wall clock.
	ClockProcessing = "processing time"
)

// TemporalBound is one conjunct of a temporal filter, normalised to
// Row Op Clock: Row is over the input row, Clock over a one-column row
// whose column 0 is the clock (the watermark in its column's kind, or
// the wall clock as TIMESTAMPTZ). Op ">" and ">=" are lower bounds (a
// row leaves when the clock passes it), "<" and "<=" upper bounds (a row
// enters when the clock reaches it). Text is the conjunct as written.
type TemporalBound struct {
	Row   Scalar
	Op    string
	Clock Scalar
	Text  string
}

// Lower reports whether the bound is a lower bound on the row's time.
func (t TemporalBound) Lower() bool { return t.Op == ">" || t.Op == ">=" }

// TemporalFilter keeps the rows of Input inside time bounds relative to
// a clock that moves: now() in a view's WHERE (RisingWave's temporal
// filters, Materialize's mz_now()). A row enters when it arrives inside
// its bounds (or when the clock reaches its upper bound) and is retracted
// when the clock passes its lower bound. Lower and Upper are at most one
// bound each (nil: none). Its state is the rows that can still change:
// those inside a lower bound, and those waiting for the clock to reach
// their upper bound; the clock bounds it. TimeCol is the input's
// watermark column (the clock's source under ClockWatermark), which
// ResolveClocks finds once the plan is optimized (a window's bounds carry
// the watermark only once the window is fused into its aggregate).
type TemporalFilter struct {
	Input        Node
	Lower, Upper *TemporalBound
	Clock        string
	TimeCol      int
	Zone         string // the view's zone, a TIMESTAMP watermark is read in
}

func (*TemporalFilter) node() {}

// Schema implements Node.
func (n *TemporalFilter) Schema() types.Schema { return n.Input.Schema() }

// Children implements Node.
func (n *TemporalFilter) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *TemporalFilter) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// String implements Node.
func (n *TemporalFilter) String() string {
	return "TemporalFilter " + strings.Join(n.bounds(), " AND ") + " clock=" + n.ClockText()
}

func (n *TemporalFilter) bounds() []string {
	var s []string
	for _, b := range []*TemporalBound{n.Lower, n.Upper} {
		if b != nil {
			s = append(s, b.Text)
		}
	}
	return s
}

// ClockText names the clock for EXPLAIN: the watermark of the input's
// time column, or the wall clock.
func (n *TemporalFilter) ClockText() string {
	if n.Clock == ClockProcessing {
		return "processing time"
	}
	if n.TimeCol < 0 {
		return "watermark" // not resolved yet (ResolveClocks)
	}
	return "watermark(" + colName(n.TimeCol, n.Input.Schema()) + ")"
}

// ClockKind is the kind of the clock's value: the watermark column's, or
// TIMESTAMPTZ for the wall clock.
func (n *TemporalFilter) ClockKind() types.Kind {
	if n.Clock == ClockProcessing || n.TimeCol < 0 {
		return types.TimestampTZ
	}
	return n.Input.Schema()[n.TimeCol].Type
}

// StateBound describes how the filter's state is bounded: the rows a
// lower bound still holds, and the rows waiting for an upper bound.
func (n *TemporalFilter) StateBound() string {
	var s []string
	if n.Lower != nil {
		s = append(s, "rows while "+n.Lower.Text)
	}
	if n.Upper != nil {
		s = append(s, "rows until "+n.Upper.Text)
	}
	return strings.Join(s, ", ")
}

// pruneTemporalFilter keeps what the parent needs plus what the bounds
// read and the watermark column (the clock).
func pruneTemporalFilter(f *TemporalFilter, need []bool) pruned {
	if f.TimeCol >= 0 {
		need = markCol(need, f.TimeCol)
	}
	for _, b := range []*TemporalBound{f.Lower, f.Upper} {
		if b != nil {
			need = withScalar(need, b.Row)
		}
	}
	in := prune(f.Input, need)
	if !in.changed {
		return notPruned(f)
	}
	c := *f
	c.Input = in.n
	if f.TimeCol >= 0 {
		c.TimeCol = in.m[f.TimeCol]
	}
	for _, slot := range []**TemporalBound{&c.Lower, &c.Upper} {
		if *slot != nil {
			b := **slot
			b.Row = remapScalar(b.Row, in.m)
			*slot = &b
		}
	}
	return pruned{n: &c, m: in.m, changed: true}
}

// isClock reports whether s is a clock call (now(), PROCTIME()).
func isClock(s Scalar) bool {
	c, ok := s.(*Call)
	return ok && (c.Fn == "now" || c.Fn == "proctime") && len(c.Args) == 0
}

// clockCalls returns the names of the clock calls in s.
func clockCalls(s Scalar) []string {
	var out []string
	walkScalar(s, func(x Scalar) {
		if isClock(x) {
			out = append(out, x.(*Call).Fn)
		}
	})
	return out
}

// walkScalar calls fn on s and every expression below it.
func walkScalar(s Scalar, fn func(Scalar)) {
	fn(s)
	switch e := s.(type) {
	case *Call:
		for _, a := range e.Args {
			walkScalar(a, fn)
		}
	case *Case:
		if e.Operand != nil {
			walkScalar(e.Operand, fn)
		}
		for _, w := range e.Whens {
			walkScalar(w.Cond, fn)
			walkScalar(w.Result, fn)
		}
		if e.Else != nil {
			walkScalar(e.Else, fn)
		}
	case *Cast:
		walkScalar(e.Arg, fn)
	}
}

// replaceClocks returns s with every clock call replaced by with().
func replaceClocks(s Scalar, with func() Scalar) Scalar {
	return rewriteScalar(s, func(n Scalar) (Scalar, bool) {
		if c, ok := n.(*Call); ok && isClock(c) {
			return with(), true
		}
		return nil, false
	})
}

// bindClock binds now() and its spellings, and PROCTIME(): TIMESTAMPTZ
// as in Postgres; LOCALTIMESTAMP is its wall time in the zone (a
// TIMESTAMP).
func bindClock(n *ast.FuncCallExpr) (Scalar, error) {
	if len(n.Args) > 0 {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s(%d arguments) does not exist", n.FnName.L, len(n.Args))
	}
	fn := "now"
	if n.FnName.L == "proctime" {
		fn = "proctime"
	}
	var s Scalar = &Call{Fn: fn, T: types.TimestampTZ}
	if n.FnName.L == "localtimestamp" {
		s = &Cast{Arg: s, To: types.Timestamp}
	}
	return s, nil
}

// FoldClocks returns n with every clock call (now(), PROCTIME()) replaced
// by the statement time at (Unix microseconds): what they are in an
// ad-hoc query, once per statement as in Postgres.
func FoldClocks(n Node, at int64) Node {
	changed := false
	fold := func(s Scalar) Scalar {
		if s == nil || len(clockCalls(s)) == 0 {
			return s
		}
		changed = true
		return replaceClocks(s, func() Scalar { return &Const{V: types.TimestampTZValue(at)} })
	}
	out, _ := Transform(n, func(x Node) (Node, bool) {
		changed = false
		switch y := x.(type) {
		case *Filter:
			c := *y
			c.Pred = fold(y.Pred)
			x = &c
		case *Project:
			c := *y
			c.Exprs = make([]Scalar, len(y.Exprs))
			for i, e := range y.Exprs {
				c.Exprs[i] = fold(e)
			}
			x = &c
		case *Join:
			c := *y
			c.Residual = fold(y.Residual)
			x = &c
		}
		return x, changed
	})
	return out
}

// temporalFilter splits a view's WHERE predicate pred over in into the
// conjuncts that read a clock (the temporal filter) and the rest (a
// plain Filter below it). Ad hoc, clocks are the statement time and
// nothing is split.
func (b *builder) temporalFilter(in Node, pred Scalar) (Node, error) {
	if b.adhoc || len(clockCalls(pred)) == 0 {
		return &Filter{Input: in, Pred: pred}, nil
	}
	tf := &TemporalFilter{TimeCol: watermarkColumn(in), Clock: ClockWatermark, Zone: b.zone}
	var rest []Scalar
	for _, c := range splitAnd(pred) {
		calls := clockCalls(c)
		if len(calls) == 0 {
			rest = append(rest, c)
			continue
		}
		if err := tf.add(c, calls, in.Schema()); err != nil {
			return nil, err
		}
	}
	if len(rest) > 0 {
		in = &Filter{Input: in, Pred: andAll(rest)}
	}
	tf.Input = in
	return tf, nil
}

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{">": "<", ">=": "<=", "<": ">", "<=": ">="}

// add adds conjunct c (which calls the clocks calls) as a bound.
func (tf *TemporalFilter) add(c Scalar, calls []string, in types.Schema) error {
	bad := func(why string) error {
		return sqlerr.New(sqlerr.FeatureNotSupport, "temporal filter %s is not supported: %s", plainTime(c, in).String(), why).
			WithHint("compare a column with now() plus or minus an interval: WHERE ts > now() - INTERVAL '1' HOUR")
	}
	for _, fn := range calls[1:] {
		if fn != calls[0] {
			return bad("it mixes now() and PROCTIME()")
		}
	}
	clock := ClockWatermark
	if calls[0] == "proctime" {
		clock = ClockProcessing
	}
	if tf.Lower != nil || tf.Upper != nil {
		if tf.Clock != clock {
			return bad("the filter's other bound reads the other clock")
		}
	}
	tf.Clock = clock
	call, ok := c.(*Call)
	if !ok || flipped[call.Fn] == "" || len(call.Args) != 2 {
		return bad("only <, <=, > and >= comparisons with now() keep a sliding window")
	}
	row, now, op := call.Args[0], call.Args[1], call.Fn
	if len(clockCalls(row)) > 0 {
		row, now, op = now, row, flipped[op]
	}
	if len(clockCalls(row)) > 0 || usesColumns(now) {
		return bad("one side must read the row's columns, the other the clock")
	}
	if k := row.Type(); k != now.Type() || (k != types.Timestamp && k != types.TimestampTZ) {
		return bad("it does not compare timestamps")
	}
	clockIn := replaceClocks(now, func() Scalar { return &ColRef{Index: 0, Name: "clock", T: types.TimestampTZ} })
	bound := &TemporalBound{Row: row, Op: op, Clock: clockIn, Text: boundText(row, op, now, in)}
	slot := &tf.Upper
	if bound.Lower() {
		slot = &tf.Lower
	}
	if *slot != nil {
		return bad(fmt.Sprintf("the filter already has a %s bound (%s)", map[bool]string{true: "lower", false: "upper"}[bound.Lower()], (*slot).Text))
	}
	*slot = bound
	return nil
}

// watermarkColumn is the column of n's output that carries its
// watermark (a window's window_end, rather than window_start), or -1.
func watermarkColumn(n Node) int {
	if tc := PropsOf(n).TimeCol; tc >= 0 && TimeColumnOf(n, tc) {
		return tc
	}
	return TimeColumn(n)
}

// ResolveClocks finds the watermark column of each watermark-clocked
// temporal filter in optimized plan n and reads the clock as it: a
// TIMESTAMP watermark is wall time in the view's zone, as the comparison
// reads the row's TIMESTAMP. A filter over an input without a watermark
// is refused.
func ResolveClocks(n Node) (Node, error) {
	var err error
	out, _ := Transform(n, func(x Node) (Node, bool) {
		tf, ok := x.(*TemporalFilter)
		if !ok || tf.Clock != ClockWatermark || err != nil {
			return x, false
		}
		c := *tf
		if c.TimeCol = watermarkColumn(tf.Input); c.TimeCol < 0 {
			err = sqlerr.New(sqlerr.InvalidObjectDef, "temporal filter %s has no watermark to read now() from", strings.Join(tf.bounds(), " AND ")).
				WithHint("declare WATERMARK FOR a column of the source, or compare with PROCTIME() for the wall clock")
			return x, false
		}
		if tf.Input.Schema()[c.TimeCol].Type == types.Timestamp {
			wall := func(*ColRef) Scalar {
				return &Cast{Arg: &ColRef{Index: 0, Name: "watermark", T: types.Timestamp}, To: types.TimestampTZ, Zone: tf.Zone}
			}
			for _, slot := range []**TemporalBound{&c.Lower, &c.Upper} {
				if *slot != nil {
					b := **slot
					b.Clock = MapColRefs(b.Clock, wall)
					*slot = &b
				}
			}
		}
		return &c, true
	})
	return out, err
}

// boundText renders row op now with column names and without the zone
// casts the binder put between TIMESTAMP and TIMESTAMPTZ, as written.
func boundText(row Scalar, op string, now Scalar, in types.Schema) string {
	return plainTime(row, in).String() + " " + op + " " + plainTime(now, in).String()
}

// plainTime is s without casts between TIMESTAMP and TIMESTAMPTZ, its
// columns named from in (for EXPLAIN only).
func plainTime(s Scalar, in types.Schema) Scalar {
	return rewriteScalar(s, func(n Scalar) (Scalar, bool) {
		switch e := n.(type) {
		case *Cast:
			if zoneCast(e.Arg.Type(), e.To) && (e.To == types.Timestamp || e.To == types.TimestampTZ) && e.Arg.Type() != types.String {
				return plainTime(e.Arg, in), true
			}
		case *ColRef:
			c := *e
			if c.Name == "" && e.Index < len(in) {
				c.Name = in[e.Index].Name
			}
			return &c, true
		}
		return nil, false
	})
}

// usesColumns reports whether s reads a column.
func usesColumns(s Scalar) bool {
	used := map[int]bool{}
	ColumnsUsed(s, used)
	return len(used) > 0
}

// checkClocks refuses a view whose plan still calls a clock outside a
// temporal filter (a clock has no value in a continuous query there), and
// stateful operators over a temporal filter: aggregates and joins fold
// inserts only and cannot take back the rows it retracts.
func checkClocks(n Node) error {
	var err error
	Transform(n, func(x Node) (Node, bool) {
		if err != nil {
			return x, false
		}
		switch y := x.(type) {
		case *Filter:
			err = clockOutside(y.Pred)
		case *Project:
			for _, e := range y.Exprs {
				if err == nil {
					err = clockOutside(e)
				}
			}
		case *Join:
			if y.Residual != nil {
				err = clockOutside(y.Residual)
			}
		}
		if err == nil && isKeyed(x) {
			err = statefulOverTemporal(x)
		}
		return x, false
	})
	return err
}

func clockOutside(s Scalar) error {
	if calls := clockCalls(s); len(calls) > 0 {
		return sqlerr.New(sqlerr.FeatureNotSupport, "%s() in a materialized view is only supported in a temporal filter: %s", calls[0], s.String()).
			WithHint("compare a source column with it in the view's WHERE (WHERE ts > now() - INTERVAL '1' HOUR), ANDed with the other conditions")
	}
	return nil
}

// statefulOverTemporal refuses aggregate or join x when a temporal filter
// feeds it.
func statefulOverTemporal(x Node) error {
	var tf *TemporalFilter
	for _, c := range x.Children() {
		Transform(c, func(y Node) (Node, bool) {
			if t, ok := y.(*TemporalFilter); ok {
				tf = t
			}
			return y, false
		})
	}
	if tf == nil {
		return nil
	}
	what := "an aggregate"
	if _, ok := x.(*Join); ok {
		what = "a join"
	}
	return sqlerr.New(sqlerr.FeatureNotSupport, "%s over a temporal filter is not supported: the filter retracts rows when the clock passes them (%s) and %s folds inserts only", what, strings.Join(tf.bounds(), " AND "), what).
		WithHint("materialize the filtered rows in their own view and aggregate them in an ad-hoc query, or group by a window (TUMBLE/HOP) instead")
}
