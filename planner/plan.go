package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/types"
)

// Node is a logical plan node. Plans are immutable trees of pure data; the
// set of node types is closed (this file and plan_set.go).
type Node interface {
	// Schema is the node's output columns.
	Schema() types.Schema
	// Children are the inputs, left to right.
	Children() []Node
	// WithChildren returns a copy with the inputs replaced.
	WithChildren(ch ...Node) Node
	// String is a one-line description for EXPLAIN.
	String() string
	node()
}

// Props are the streaming properties of a node's output.
type Props struct {
	// AppendOnly is true when the output never retracts a row.
	AppendOnly bool
	// TimeCol is the output column that carries event time and the
	// watermark, or -1.
	TimeCol int
	// StateBound describes how the node's keyed state is bounded; "" for a
	// stateless node and "unbounded" when nothing bounds it.
	StateBound string
}

// ScanKind says what a Scan reads.
type ScanKind uint8

// Scan kinds.
const (
	ScanSource ScanKind = iota + 1
	ScanTable
	ScanView
)

// Scan reads a source, a table or (ad hoc) a view snapshot.
type Scan struct {
	Kind    ScanKind
	Name    string
	Out     types.Schema
	Cols    []int // source column positions read, in output order
	TimeCol int   // output position of the watermark column, or -1
	Delay   int64 // watermark delay (bounded out-of-orderness)
	Clock   string
	// Retracting marks a scan of a materialized view whose changelog
	// deletes rows; sources and append-only views insert only.
	Retracting bool
	// BoundBy names, for a scan of a view over TABLEs alone, the TABLEs
	// whose keys bound the view's rows (catalog.Object.BoundBy).
	BoundBy []string
	// Key is, for a SOURCE that declares a PRIMARY KEY, its columns'
	// positions in the source (values of Cols, so pruning leaves it
	// alone): no two of the stream's rows share them, and they are
	// never NULL. The source promises it; nothing checks it (as Flink's
	// PRIMARY KEY NOT ENFORCED). EndTopNPartitionsAtJoinCleanup relies
	// on it.
	Key []int
}

// Filter keeps the rows for which Pred is true.
type Filter struct {
	Input Node
	Pred  Scalar
}

// Project computes one output column per expression.
type Project struct {
	Input Node
	Exprs []Scalar
	Names []string
}

// WindowSpec is a TUMBLE / HOP / SESSION assignment over TimeCol.
type WindowSpec struct {
	Kind    string // "tumble", "hop", "session", "keyed" (TimeCol is an upstream window_start)
	TimeCol int
	Size    int64
	Slide   int64
	Gap     int64
}

// String renders the window with its time column's position.
func (w WindowSpec) String() string { return w.Format(nil) }

// Format renders the window for EXPLAIN, naming its time column from in,
// the schema of the node's input.
func (w WindowSpec) Format(in types.Schema) string {
	col := colName(w.TimeCol, in)
	switch w.Kind {
	case "hop":
		return fmt.Sprintf("hop(%s, slide=%s, size=%s)", col, types.FormatInterval(w.Slide), types.FormatInterval(w.Size))
	case "session":
		return fmt.Sprintf("session(%s, gap=%s)", col, types.FormatInterval(w.Gap))
	case "keyed":
		return fmt.Sprintf("keyed(window_start=%s, size=%s)", col, types.FormatInterval(w.Size))
	}
	return fmt.Sprintf("tumble(%s, size=%s)", col, types.FormatInterval(w.Size))
}

// WindowAssign appends window_start and window_end to every row (a HOP
// row is repeated once per window). SESSION cannot be assigned without an
// aggregate: it is always fused.
type WindowAssign struct {
	Input  Node
	Window WindowSpec
}

// AggCall is one aggregate: Fn over input column Arg (-1 for count(*)).
type AggCall struct {
	Fn       string // count, sum, min, max, avg, jsonb_agg, jsonb_object_agg, array_agg
	Arg      int
	Distinct bool
	Name     string
	T        types.Kind
}

// String renders the call with its argument's position.
func (a AggCall) String() string { return a.Format(nil) }

// Format renders the call, naming its argument from in, the schema of
// the aggregate's input.
func (a AggCall) Format(in types.Schema) string {
	arg := "*"
	if a.Arg >= 0 {
		arg = colName(a.Arg, in)
	}
	if a.Distinct {
		arg = "DISTINCT " + arg
	}
	return a.Fn + "(" + arg + ")"
}

// Aggregate groups by GroupCols and computes Aggs. Output: the group
// columns then the aggregates. Non-windowed: its state is bounded only by
// TTL.
type Aggregate struct {
	Input     Node
	GroupCols []int
	Aggs      []AggCall
	Names     []string // output names: groups then aggs
	TTL       int64    // microseconds; 0 = none
	// Ranked: the last of Aggs is min over a column ranking the input
	// rows (UNION's input number, see distinctUnion), and a group's
	// column values are those of its first row of the lowest rank, so
	// equal values that print differently (1.0 and 1.00) come out as
	// Postgres's UNION gives them: the earliest input's.
	Ranked bool
}

// Contract is the lateness contract a windowed aggregate runs under.
type Contract struct {
	Lateness  int64
	Policy    lateness.Policy
	SideTable string
	Emit      string // "on_window_close", "on_update", "every"
	Every     int64
}

// WindowAggregate is a window assignment fused into an aggregate. Output:
// the group columns, window_start, window_end, then the aggregates. Its
// state is one accumulator per (key, window), kept until the watermark
// passes window_end + lateness.
type WindowAggregate struct {
	Input     Node
	Window    WindowSpec
	GroupCols []int
	Aggs      []AggCall
	Names     []string // output names
	Contract  Contract
	// TwoPhase splits it into a stateless local phase (any instance,
	// partial accumulators per batch) and a keyed global phase
	// (SplitAggregate).
	TwoPhase bool
}

// JoinKind is the kind of a streaming join.
type JoinKind string

// Join kinds.
const (
	IntervalJoin JoinKind = "interval"
	WindowJoin   JoinKind = "window"
	Unbounded    JoinKind = "unbounded"
	// TemporalJoin is `JOIN t FOR SYSTEM_TIME AS OF left.ts`: each left
	// row joins the version of TABLE t (right) with the largest version
	// time (RightTime) <= its time (LeftTime), once both watermarks reach
	// it (build_temporal_join.go).
	TemporalJoin JoinKind = "temporal"
	// LookupJoin is `JOIN t FOR SYSTEM_TIME AS OF PROCTIME()`: each left
	// row joins TABLE t's row as it is when the row is processed; later
	// changes of t do not touch joined rows.
	LookupJoin JoinKind = "lookup"
)

// Temporal reports whether k is a join FOR SYSTEM_TIME AS OF (an
// event-time temporal join or a lookup join).
func (k JoinKind) Temporal() bool { return k == TemporalJoin || k == LookupJoin }

// JoinType says which sides of a join keep their unmatched rows,
// NULL-padded: none (inner), the left, the right or both.
type JoinType uint8

// Join types.
const (
	InnerJoin JoinType = iota
	LeftOuterJoin
	RightOuterJoin
	FullOuterJoin
)

// Preserves reports whether side (0 left, 1 right) keeps its unmatched
// rows, NULL-padded.
func (t JoinType) Preserves(side int) bool {
	if side == 0 {
		return t == LeftOuterJoin || t == FullOuterJoin
	}
	return t == RightOuterJoin || t == FullOuterJoin
}

// Outer reports whether t is an outer join.
func (t JoinType) Outer() bool { return t != InnerJoin }

// String names the type as EXPLAIN shows it.
func (t JoinType) String() string {
	return [...]string{"inner", "left outer", "right outer", "full outer"}[t]
}

// Join is an equi-join of two streams, inner or outer (Type): an outer
// join also emits each unmatched row of a preserved side with NULLs for
// the other side's columns. Left columns come first in
// the output. LeftKeys[i] = RightKeys[i]: a NULL key matches nothing
// unless NullSafe[i] (the key was written with <=>, which pairs NULL with
// NULL). Interval joins bound right.time - left.time to [Lower, Upper],
// excluding a bound that is strict (LowerStrict, UpperStrict); window
// joins match equal window starts. Residual is evaluated on the joined
// row: every predicate of the join that the keys and the interval do not
// express is in it.
type Join struct {
	Left, Right              Node
	Kind                     JoinKind
	Type                     JoinType
	LeftKeys, RightKeys      []int
	NullSafe                 []bool // per key; nil when no key is null-safe
	LeftTime, RightTime      int    // time column of each side, or -1
	Lower, Upper             int64
	LowerStrict, UpperStrict bool
	WindowSize               int64 // window joins: the windows' size
	Residual                 Scalar
	// TTL bounds an otherwise unbounded join (STATE TTL): a stored row is
	// dropped once the other input's watermark passes its time + TTL
	// (LeftTime/RightTime are then the inputs' watermark columns), or TTL
	// after it was stored on the wall clock when an input has none.
	TTL int64
}

// Materialize is the root of a view: it keeps the view's contents (a
// multiset of rows, keyed by Key) and feeds its sinks.
type Materialize struct {
	Input Node
	View  string
	Key   []int
}

func (*Scan) node()            {}
func (*Filter) node()          {}
func (*Project) node()         {}
func (*WindowAssign) node()    {}
func (*Aggregate) node()       {}
func (*WindowAggregate) node() {}
func (*Join) node()            {}
func (*Materialize) node()     {}

// Schema implements Node.
func (n *Scan) Schema() types.Schema { return n.Out }

// Schema implements Node.
func (n *Filter) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *Project) Schema() types.Schema {
	s := make(types.Schema, len(n.Exprs))
	var in types.Schema
	for i, e := range n.Exprs {
		s[i] = types.Column{Name: n.Names[i], Type: e.Type()}
		if s[i].Type != types.Decimal {
			continue
		}
		if _, ok := e.(*ColRef); ok && in == nil {
			in = n.Input.Schema()
		}
		s[i].Precision, s[i].Scale = TypeMod(e, in)
	}
	return s
}

// Schema implements Node.
func (n *WindowAssign) Schema() types.Schema {
	in := n.Input.Schema()
	out := append(types.Schema{}, in...)
	return append(out, types.Column{Name: "window_start", Type: types.Timestamp}, types.Column{Name: "window_end", Type: types.Timestamp})
}

func aggSchema(in types.Schema, groups []int, window bool, aggs []AggCall, names []string) types.Schema {
	var out types.Schema
	for _, g := range groups {
		out = append(out, in[g])
	}
	if window {
		out = append(out, types.Column{Name: "window_start", Type: types.Timestamp}, types.Column{Name: "window_end", Type: types.Timestamp})
	}
	for _, a := range aggs {
		out = append(out, types.Column{Name: a.Name, Type: a.T})
	}
	for i := range out {
		if i < len(names) && names[i] != "" {
			out[i].Name = names[i]
		}
	}
	return out
}

// Schema implements Node.
func (n *Aggregate) Schema() types.Schema {
	return aggSchema(n.Input.Schema(), n.GroupCols, false, n.Aggs, n.Names)
}

// Schema implements Node.
func (n *WindowAggregate) Schema() types.Schema {
	return aggSchema(n.Input.Schema(), n.GroupCols, true, n.Aggs, n.Names)
}

// Schema implements Node.
func (n *Join) Schema() types.Schema {
	out := append(types.Schema{}, n.Left.Schema()...)
	return append(out, n.Right.Schema()...)
}

// Schema implements Node.
func (n *Materialize) Schema() types.Schema { return n.Input.Schema() }

// Children implements Node.
func (n *Scan) Children() []Node { return nil }

// Children implements Node.
func (n *Filter) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Project) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *WindowAssign) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Aggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *WindowAggregate) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Join) Children() []Node { return []Node{n.Left, n.Right} }

// Children implements Node.
func (n *Materialize) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *Scan) WithChildren(...Node) Node { return n }

// WithChildren implements Node.
func (n *Filter) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Project) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *WindowAssign) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Aggregate) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *WindowAggregate) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Join) WithChildren(ch ...Node) Node { c := *n; c.Left, c.Right = ch[0], ch[1]; return &c }

// WithChildren implements Node.
func (n *Materialize) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// String implements Node.
func (n *Scan) String() string {
	kind := map[ScanKind]string{ScanSource: "source", ScanTable: "table", ScanView: "view"}[n.Kind]
	s := fmt.Sprintf("Scan %s %s cols=[%s]", kind, n.Name, strings.Join(n.Out.Names(), ", "))
	switch {
	case n.TimeCol >= 0 && n.Kind == ScanView:
		s += " watermark=" + n.Out[n.TimeCol].Name + " (the view's)"
	case n.TimeCol >= 0:
		s += fmt.Sprintf(" watermark=%s-%s", n.Out[n.TimeCol].Name, types.FormatInterval(n.Delay))
	}
	if n.Retracting {
		s += " changelog=retracting"
	}
	if len(n.Key) > 0 {
		s += " unique=[" + n.keyNames() + "]"
	}
	return s
}

// keyNames lists Key's columns by name, "#i" for one not read.
func (n *Scan) keyNames() string {
	parts := make([]string, len(n.Key))
	for i, k := range n.Key {
		parts[i] = fmt.Sprintf("#%d", k)
		for j, c := range n.Cols {
			if c == k {
				parts[i] = n.Out[j].Name
			}
		}
	}
	return strings.Join(parts, ", ")
}

// String implements Node.
func (n *Filter) String() string { return "Filter " + n.Pred.String() }

// String implements Node.
func (n *Project) String() string {
	parts := make([]string, len(n.Exprs))
	for i, e := range n.Exprs {
		parts[i] = e.String()
		if r, ok := e.(*ColRef); !ok || r.Name != n.Names[i] {
			parts[i] += " AS " + n.Names[i]
		}
	}
	return "Project " + strings.Join(parts, ", ")
}

// String implements Node.
func (n *WindowAssign) String() string { return "WindowAssign " + n.Window.Format(n.Input.Schema()) }

func joinAggs(aggs []AggCall, in types.Schema) string {
	parts := make([]string, len(aggs))
	for i, a := range aggs {
		parts[i] = a.Format(in)
	}
	return strings.Join(parts, ", ")
}

// colName names column c of schema s for EXPLAIN: its name, followed by
// #c when another column has the same name; #c alone when s does not
// name it.
func colName(c int, s types.Schema) string {
	if c < 0 || c >= len(s) || s[c].Name == "" {
		return fmt.Sprintf("#%d", c)
	}
	for i, o := range s {
		if i != c && strings.EqualFold(o.Name, s[c].Name) {
			return fmt.Sprintf("%s#%d", s[c].Name, c)
		}
	}
	return s[c].Name
}

// colList names columns cols of schema s (see colName).
func colList(cols []int, s types.Schema) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = colName(c, s)
	}
	return strings.Join(parts, ", ")
}

// String implements Node.
func (n *Aggregate) String() string {
	in := n.Input.Schema()
	s := fmt.Sprintf("Aggregate group=[%s] aggs=[%s]", colList(n.GroupCols, in), joinAggs(n.Aggs, in))
	if n.TTL > 0 {
		s += " ttl=" + types.FormatInterval(n.TTL)
	}
	return s
}

// String implements Node.
func (n *WindowAggregate) String() string {
	name := "WindowAggregate"
	if n.TwoPhase {
		name = "WindowAggregate(global)"
	}
	in := n.Input.Schema()
	return fmt.Sprintf("%s %s group=[%s] aggs=[%s] lateness=%s late=%s emit=%s", name,
		n.Window.Format(in), colList(n.GroupCols, in), joinAggs(n.Aggs, in), types.FormatInterval(n.Contract.Lateness),
		n.Contract.Policy, n.Contract.Emit)
}

// String implements Node.
func (n *Join) String() string {
	l, r := n.Left.Schema(), n.Right.Schema()
	s := fmt.Sprintf("Join %s left=[%s] right=[%s]", n.Kind, colList(n.LeftKeys, l), colList(n.RightKeys, r))
	if n.Type.Outer() {
		s = fmt.Sprintf("Join %s %s left=[%s] right=[%s]", n.Kind, n.Type, colList(n.LeftKeys, l), colList(n.RightKeys, r))
	}
	if ns := n.nullSafeKeys(); len(ns) > 0 {
		s += " null-safe=[" + ns + "]"
	}
	if n.Kind == IntervalJoin {
		s += fmt.Sprintf(" right.%s - left.%s in %s", colName(n.RightTime, r), colName(n.LeftTime, l), n.Interval())
	}
	switch n.Kind {
	case TemporalJoin:
		s += fmt.Sprintf(" as of left.%s version right.%s", colName(n.LeftTime, l), colName(n.RightTime, r))
	case LookupJoin:
		s += " as of proctime()"
	}
	if n.Residual != nil {
		s += " residual=" + n.Residual.String()
	}
	if n.TTL > 0 {
		s += " ttl=" + types.FormatInterval(n.TTL)
	}
	if cs := JoinCleanup(n); len(cs) > 0 {
		s += " cleanup=[" + cleanupString(cs) + "]"
	}
	if side := ScannedSide(n); side >= 0 {
		s += " scan=" + [2]string{"left", "right"}[side]
	}
	return s
}

// Interval renders an interval join's bounds on right.time - left.time:
// a square bracket includes its bound, a round one excludes it.
func (n *Join) Interval() string {
	open, closing := "[", "]"
	if n.LowerStrict {
		open = "("
	}
	if n.UpperStrict {
		closing = ")"
	}
	return open + signed(n.Lower) + ", " + signed(n.Upper) + closing
}

// nullSafeKeys lists the null-safe key pairs as left=right column pairs.
func (n *Join) nullSafeKeys() string {
	var parts []string
	for i, ns := range n.NullSafe {
		if ns {
			parts = append(parts, colName(n.LeftKeys[i], n.Left.Schema())+"<=>"+colName(n.RightKeys[i], n.Right.Schema()))
		}
	}
	return strings.Join(parts, ", ")
}

func signed(us int64) string {
	if us < 0 {
		return "-" + types.FormatInterval(-us)
	}
	return types.FormatInterval(us)
}

// String implements Node.
func (n *Materialize) String() string {
	return fmt.Sprintf("Materialize %s key=[%s]", n.View, colList(n.Key, n.Schema()))
}

// Format renders a plan as an indented tree.
func Format(n Node) string {
	var b strings.Builder
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(n.String())
		b.WriteByte('\n')
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// Transform rewrites the tree bottom-up with fn. fn returns the node and
// whether it changed it; untouched subtrees are not copied.
func Transform(n Node, fn func(Node) (Node, bool)) (Node, bool) {
	n, changed := mapChildren(n, func(c Node) (Node, bool) { return Transform(c, fn) })
	out, ok := fn(n)
	return out, changed || ok
}

// mapChildren rewrites n's children with fn and reports whether any
// changed; n is copied only then.
func mapChildren(n Node, fn func(Node) (Node, bool)) (Node, bool) {
	ch := n.Children()
	changed := false
	if len(ch) > 0 {
		nc := make([]Node, len(ch))
		for i, c := range ch {
			var ok bool
			nc[i], ok = fn(c)
			changed = changed || ok
		}
		if changed {
			n = n.WithChildren(nc...)
		}
	}
	return n, changed
}

// SortKey is one ORDER BY item over an input column.
type SortKey struct {
	Col  int
	Desc bool
}

// Sort orders a bounded input (ad-hoc queries over a view snapshot only).
type Sort struct {
	Input Node
	Keys  []SortKey
}

// Limit keeps Count rows after skipping Offset (ad-hoc queries only).
type Limit struct {
	Input         Node
	Count, Offset int64
}

func (*Sort) node()  {}
func (*Limit) node() {}

// Schema implements Node.
func (n *Sort) Schema() types.Schema { return n.Input.Schema() }

// Schema implements Node.
func (n *Limit) Schema() types.Schema { return n.Input.Schema() }

// Children implements Node.
func (n *Sort) Children() []Node { return []Node{n.Input} }

// Children implements Node.
func (n *Limit) Children() []Node { return []Node{n.Input} }

// WithChildren implements Node.
func (n *Sort) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// WithChildren implements Node.
func (n *Limit) WithChildren(ch ...Node) Node { c := *n; c.Input = ch[0]; return &c }

// String implements Node.
func (n *Sort) String() string {
	parts := make([]string, len(n.Keys))
	for i, k := range n.Keys {
		parts[i] = colName(k.Col, n.Input.Schema())
		if k.Desc {
			parts[i] += " DESC"
		}
	}
	return "Sort " + strings.Join(parts, ", ")
}

// String implements Node.
func (n *Limit) String() string { return fmt.Sprintf("Limit %d offset %d", n.Count, n.Offset) }

// Kind names n's kind as EXPLAIN and the engine's figures show it: Scan,
// Filter, Project, WindowAssign, Aggregate, WindowAggregate, Join,
// Materialize, Sort or Limit.
func Kind(n Node) string {
	name, _, _ := strings.Cut(n.String(), " ")
	name, _, _ = strings.Cut(name, "(")
	return name
}
