package planner

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// ViewPlan is everything the planner decides for a materialized view.
type ViewPlan struct {
	Name      string
	Logical   Node         // as built from the SQL
	Optimized *Materialize // after the rules
	Rules     []string     // rules that fired, in order
	Warnings  []string
	Key       []int
	// SideTable and SideSchema describe the LATE DATA side table, if any.
	SideTable  string
	SideSchema types.Schema
	// SourceErrors is the contract line on undecodable input: each
	// source's on_error policy.
	SourceErrors string
	// Functions names the SQL functions inlined into the query (also the
	// ones their bodies call), each once.
	Functions []string
	// Views names the views that are not materialized inlined into the
	// query, at any depth, each once.
	Views []string
}

// Settings are the session settings the planner reads.
type Settings struct {
	Strict             bool
	Parallelism        int
	CheckpointInterval string
	// TimeZone is the zone the view's expressions bind in (an IANA name,
	// "" for UTC): fixed when the view is created and kept in its catalog
	// entry, so a restart computes what the first run did.
	TimeZone string
}

// PlanView plans CREATE MATERIALIZED VIEW: build, attach the lateness
// contract, optimize, and check that every keyed state is bounded.
func PlanView(s *parser.CreateViewStmt, cat Resolver, set Settings) (*ViewPlan, error) {
	logical, deps, err := buildViewQuery(s.Query, cat, false, set.TimeZone, overEmit(s.Streaming))
	if err != nil {
		return nil, err
	}
	vp := &ViewPlan{Name: s.Name, Logical: logical, SourceErrors: sourceErrors(logical, cat), Functions: deps.functions, Views: deps.views}
	opt, trace := Optimize(logical)
	vp.Rules = trace
	if opt, err = ResolveClocks(opt); err != nil {
		return nil, err
	}
	opt, err = vp.attachContract(opt, s.Streaming, cat, set)
	if err != nil {
		return nil, err
	}
	// With the contract known (side tables need whole input rows), prune
	// the columns nothing reads once more.
	if pruned, ok := PruneColumns(opt); ok {
		opt = pruned
		if len(vp.Rules) == 0 || vp.Rules[len(vp.Rules)-1] != "PruneColumns" {
			vp.Rules = append(vp.Rules, "PruneColumns")
		}
	}
	if set.Parallelism > 1 {
		if split, ok := Transform(opt, SplitAggregate); ok {
			opt = split
			vp.Rules = append(vp.Rules, "SplitAggregate")
		}
	}
	if shared, ok := ShareIdenticalSubplans(opt); ok {
		opt = shared
		vp.Rules = append(vp.Rules, "ShareIdenticalSubplans")
	}
	if err := checkClocks(opt); err != nil {
		return nil, err
	}
	if err := checkAppendOnlyInputs(opt); err != nil {
		return nil, err
	}
	if err := vp.checkBounded(opt, set); err != nil {
		return nil, err
	}
	vp.Key = viewKey(opt)
	vp.Optimized = &Materialize{Input: opt, View: s.Name, Key: vp.Key}
	return vp, nil
}

// attachContract copies the view's ALLOWED LATENESS / LATE DATA / EMIT /
// STATE TTL clauses onto its stateful nodes.
func (vp *ViewPlan) attachContract(n Node, sc parser.StreamingClauses, cat Resolver, set Settings) (Node, error) {
	c := Contract{Policy: lateness.Drop, Emit: "on_update"}
	if sc.AllowedLateness != nil {
		c.Lateness = *sc.AllowedLateness
	}
	if sc.Emit != nil {
		switch sc.Emit.Mode {
		case parser.EmitOnWindowClose:
			c.Emit = "on_window_close"
		case parser.EmitOnUpdate:
			c.Emit = "on_update"
		case parser.EmitEvery:
			c.Emit, c.Every = "every", sc.Emit.Every
		}
	}
	windowed := false
	var werr error
	hasJoin := false
	Transform(n, func(x Node) (Node, bool) {
		switch y := x.(type) {
		case *Join:
			hasJoin = true
		case *WindowAggregate:
			windowed = true
		case *WindowTopN:
			windowed = windowed || topNReadsTVF(y)
		case *OverAggregate:
			// Late rows only exist for an order by the watermark column.
			windowed = windowed || TimeColumnOf(y.Input, y.TimeCol)
		}
		return x, false
	})
	if sc.LateData != nil {
		switch sc.LateData.Policy {
		case parser.LateDrop:
			c.Policy = lateness.Drop
		case parser.LateUpdate:
			c.Policy = lateness.Update
		case parser.LateSideOutput:
			c.Policy, c.SideTable = lateness.SideOutput, sc.LateData.SideTable
		case parser.LateUpdateSideOutput:
			c.Policy, c.SideTable = lateness.UpdateSideOutput, sc.LateData.SideTable
		}
	} else if windowed {
		msg := fmt.Sprintf("view %s has windows but no LATE DATA policy; late data will be dropped", vp.Name)
		if set.Strict {
			return nil, sqlerr.New(sqlerr.InvalidObjectDef, "%s", "late data policy missing: "+msg).
				WithHint("add LATE DATA DROP | UPDATE | SIDE OUTPUT <table>, or SET strict = off")
		}
		vp.Warnings = append(vp.Warnings, msg)
	}
	if err := checkTopNLateData(n, c); err != nil {
		return nil, err
	}
	if c.SideTable != "" {
		if _, ok := cat.Get(c.SideTable); ok {
			return nil, sqlerr.New(sqlerr.DuplicateObject, "side table %q already exists", c.SideTable)
		}
		vp.SideTable = c.SideTable
	}
	var walk func(x Node, top bool) Node
	walk = func(x Node, top bool) Node {
		switch w := x.(type) {
		case *WindowAggregate:
			cw := *w
			cw.Input = walk(w.Input, false)
			cw.Contract = c
			if !top || hasJoin {
				// A window feeding another stateful operator emits final
				// rows only, once, at window close.
				cw.Contract.Emit = "on_window_close"
			}
			if w.Window.Kind == "keyed" {
				// Its input is final upstream windows: nothing is late.
				cw.Contract.Policy, cw.Contract.SideTable = lateness.Drop, ""
			} else if vp.SideTable != "" && vp.SideSchema == nil {
				vp.SideSchema = append(append(types.Schema{}, w.Input.Schema()...),
					types.Column{Name: "late_reason", Type: types.String}, types.Column{Name: "late_watermark", Type: types.Timestamp})
			}
			if !TimeColumnOf(w.Input, w.Window.TimeCol) && werr == nil {
				werr = sqlerr.New(sqlerr.InvalidObjectDef, "window over %q has no watermark: it would never fire", w.Input.Schema()[w.Window.TimeCol].Name).
					WithHint("declare WATERMARK FOR that column on the source")
			}
			return &cw
		case *Aggregate:
			ca := *w
			ca.Input = walk(w.Input, false)
			if sc.StateTTL != nil {
				ca.TTL = *sc.StateTTL
			}
			return &ca
		case *Join:
			cj := *w
			cj.Left, cj.Right = walk(w.Left, false), walk(w.Right, false)
			if sc.StateTTL != nil && cj.Kind == Unbounded {
				cj.TTL = *sc.StateTTL
				// Event time when both inputs carry a watermark.
				if lt, rt := TimeColumn(cj.Left), TimeColumn(cj.Right); lt >= 0 && rt >= 0 {
					cj.LeftTime, cj.RightTime = lt, rt
				}
			}
			return &cj
		case *SemiJoin:
			cj := *w
			cj.Left, cj.Right = walk(w.Left, false), walk(w.Right, false)
			if sc.StateTTL != nil {
				cj.TTL = *sc.StateTTL
				cj.LeftTime, cj.RightTime = TimeColumn(cj.Left), TimeColumn(cj.Right)
			}
			return &cj
		case *TopN:
			ct := *w
			ct.Input = walk(w.Input, false)
			if sc.StateTTL != nil {
				ct.TTL = *sc.StateTTL
			}
			return &ct
		case *OverAggregate:
			co := *w
			co.Input = walk(w.Input, false)
			co.Emit = c.Emit
			if sc.StateTTL != nil {
				co.TTL = *sc.StateTTL
			}
			if werr == nil {
				werr = checkOverContract(c, &co)
			}
			return &co
		case *Project, *Filter, *TemporalFilter:
			return x.WithChildren(walk(x.Children()[0], top))
		}
		ch := x.Children()
		if len(ch) == 0 {
			return x
		}
		nc := make([]Node, len(ch))
		for i, c := range ch {
			nc[i] = walk(c, false)
		}
		return x.WithChildren(nc...)
	}
	out := walk(n, true)
	return out, werr
}

// TimeColumnOf reports whether column col of n carries a watermark.
func TimeColumnOf(n Node, col int) bool {
	switch x := n.(type) {
	case *Scan:
		return x.TimeCol == col && col >= 0
	case *Filter:
		return TimeColumnOf(x.Input, col)
	case *TemporalFilter:
		return TimeColumnOf(x.Input, col)
	case *Project:
		if r, ok := x.Exprs[col].(*ColRef); ok {
			return TimeColumnOf(x.Input, r.Index)
		}
	case *WindowAssign:
		return col < len(x.Input.Schema()) && TimeColumnOf(x.Input, col)
	case *ProjectSet:
		return x.Input != nil && col < len(x.Input.Schema()) && TimeColumnOf(x.Input, col)
	case *Union:
		return unionTimeColumnOf(x, col)
	case *OverAggregate:
		// Final rows come out, in ts order, before the watermark passes
		// them; the updating form's output retracts and states none.
		return col == x.TimeCol && !x.Updating()
	case *WindowTopN:
		// Like a window aggregate's: a window's rows come out before
		// the watermark passes its end.
		return col == x.StartCol || col == x.EndCol
	case *WindowAggregate:
		// window_start and window_end carry the watermark: rows are
		// emitted when it passes window_end, in end order.
		return (col == len(x.GroupCols) || col == len(x.GroupCols)+1) && x.Window.Kind != "session"
	}
	return false
}

// TimeColumn returns the watermark column of n's output, or -1.
func TimeColumn(n Node) int {
	for i := range n.Schema() {
		if TimeColumnOf(n, i) {
			return i
		}
	}
	return -1
}

// checkBounded refuses (under strict) state that nothing bounds.
func (vp *ViewPlan) checkBounded(n Node, set Settings) error {
	var err error
	Transform(n, func(x Node) (Node, bool) {
		var msg, fix string
		switch a := x.(type) {
		case *Aggregate:
			if a.TTL == 0 && tableBound(a.Input) == "" {
				msg = "unbounded state: " + a.String() + " keeps one row per group forever"
				fix = "group by a window (TUMBLE/HOP/SESSION) or add STATE TTL <interval>"
			}
		case *Join:
			if a.Kind == Unbounded && a.TTL == 0 && tableBound(a) == "" {
				msg = "unbounded state: " + a.String() + " keeps every row of both inputs forever"
				fix = "bound the join from below and above by the inputs' watermark columns (b.ts BETWEEN a.ts - INTERVAL ... AND a.ts + INTERVAL ...), join windows on window_start, or add STATE TTL <interval>"
			}
		case *OverAggregate:
			if a.TTL == 0 && tableBound(a.Input) == "" {
				msg = "unbounded state: " + a.String() + " keeps " + a.StateBound()
				fix = "add STATE TTL <interval> (a partition idle that long is dropped)"
			}
		case *TopN:
			if a.TTL == 0 {
				msg = "unbounded state: " + a.String() + " keeps " + a.StateBound()
				fix = "rank within windows (PARTITION BY window_start, window_end over a window TVF or window aggregate: window Top-N), or add STATE TTL <interval> (a partition idle that long is dropped and its rows retracted)"
			}
		case *SemiJoin:
			if a.TTL == 0 {
				msg = "unbounded state: " + a.String() + " (IN, EXISTS or their negation over a subquery) keeps the left rows and the right rows forever"
				fix = "add STATE TTL <interval>"
			}
		}
		if msg == "" {
			return x, false
		}
		if set.Strict {
			if err == nil {
				err = sqlerr.New(sqlerr.InvalidObjectDef, "%s", msg).WithHint(fix + ", or SET strict = off")
			}
		} else {
			vp.Warnings = append(vp.Warnings, msg)
		}
		return x, false
	})
	return err
}

// viewKey finds the output columns that identify a row of the view: the
// group columns (and window bounds) of a top aggregate, when they are all
// in the output. nil means rows are identified by their whole value.
func viewKey(n Node) []int {
	p, ok := n.(*Project)
	if !ok {
		return nil
	}
	var need int
	var from func(in Node, col int) (int, bool)
	from = func(in Node, col int) (int, bool) {
		switch x := in.(type) {
		case *Project:
			if r, ok := x.Exprs[col].(*ColRef); ok {
				return from(x.Input, r.Index)
			}
		case *Filter:
			return from(x.Input, col)
		case *TemporalFilter:
			return from(x.Input, col)
		case *Aggregate:
			need = len(x.GroupCols)
			return col, col < len(x.GroupCols)
		case *WindowAggregate:
			need = len(x.GroupCols) + 2
			return col, col < len(x.GroupCols)+2
		}
		return 0, false
	}
	var key []int
	seen := map[int]bool{}
	for i, e := range p.Exprs {
		r, ok := e.(*ColRef)
		if !ok {
			continue
		}
		if g, ok := from(p.Input, r.Index); ok && !seen[g] {
			seen[g] = true
			key = append(key, i)
		}
	}
	if need == 0 || len(key) < need {
		// A window is identified by either bound alone.
		if need > 0 && len(key) == need-1 {
			return key
		}
		return nil
	}
	return key
}

// Explain renders the plans, the rules that fired and the contract.
func (vp *ViewPlan) Explain(set Settings, sinks []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "view %s\n", vp.Name)
	b.WriteString("logical plan:\n")
	b.WriteString(indent(Format(vp.Logical)))
	b.WriteString("rules applied: ")
	if len(vp.Rules) == 0 {
		b.WriteString("none")
	}
	b.WriteString(strings.Join(vp.Rules, ", "))
	b.WriteString("\nphysical plan:\n")
	b.WriteString(indent(Physical(vp.Optimized, set.Parallelism)))
	b.WriteString("contract:\n")
	for _, l := range vp.Contract(set, sinks) {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "  " + strings.Join(lines, "\n  ") + "\n"
}

// Physical renders the physical plan: the optimized plan with the
// parallel instances and the exchanges that route rows to them by key.
func Physical(n Node, par int) string { return PhysicalAnnotated(n, par, nil) }

// PhysicalAnnotated is Physical with note(node)'s text, when not empty,
// appended to each node's line (EXPLAIN ANALYZE's live figures). A node
// ShareIdenticalSubplans shared prints in full at its first use, marked
// "shared #k by n consumers", and as "Shared #k (Kind above)" at the others.
func PhysicalAnnotated(n Node, par int, note func(Node) string) string {
	if par < 1 {
		par = 1
	}
	var b strings.Builder
	shared := SharedNodes(n)
	refs := map[Node]int{}
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		pad := strings.Repeat("  ", depth)
		if ref, ok := refs[n]; ok {
			fmt.Fprintf(&b, "%sShared #%d (%s above)\n", pad, ref, Kind(n))
			return
		}
		line := n.String()
		var keys string
		switch x := n.(type) {
		case *WindowAggregate:
			keys = colList(x.GroupCols, x.Input.Schema())
		case *Aggregate:
			keys = colList(x.GroupCols, x.Input.Schema())
		case *Join:
			keys = colList(x.LeftKeys, x.Left.Schema()) + " | " + colList(x.RightKeys, x.Right.Schema())
		case *SemiJoin:
			keys = colList(x.LeftKeys, x.Left.Schema()) + " | " + colList(x.RightKeys, x.Right.Schema())
		case *WindowTopN:
			keys = colList(x.Partition, x.Input.Schema())
		case *TopN:
			keys = colList(x.Partition, x.Input.Schema())
		case *OverAggregate:
			keys = colList(x.Partition, x.Input.Schema())
		}
		b.WriteString(pad + line)
		if keys != "" || isKeyed(n) {
			fmt.Fprintf(&b, " parallelism=%d", InstancesOf(n, par))
		}
		fmt.Fprintf(&b, " [%s]", PropsOf(n).Format(n.Schema()))
		if uses := shared[n]; uses > 1 {
			refs[n] = len(refs) + 1
			fmt.Fprintf(&b, " shared #%d by %d consumers", refs[n], uses)
		}
		if note != nil {
			if s := note(n); s != "" {
				b.WriteString(" (" + s + ")")
			}
		}
		b.WriteByte('\n')
		if isKeyed(n) && InstancesOf(n, par) > 1 {
			fmt.Fprintf(&b, "%s  Exchange hash(%s) -> %d instances\n", pad, keys, par)
			depth++
			if w, ok := n.(*WindowAggregate); ok && w.TwoPhase {
				in := w.Input.Schema()
				fmt.Fprintf(&b, "%s    LocalWindowAggregate %s partial aggs=[%s] parallelism=%d\n", pad, w.Window.Format(in), joinAggs(w.Aggs, in), par)
				fmt.Fprintf(&b, "%s      Exchange split evenly -> %d instances\n", pad, par)
				depth += 2
			}
		}
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

func isKeyed(n Node) bool {
	switch n.(type) {
	case *WindowAggregate, *Aggregate, *Join, *WindowTopN, *TopN, *SemiJoin, *OverAggregate:
		return true
	}
	return false
}

// onceEach wraps a Transform visitor that only inspects nodes so that it
// sees a node shared by several consumers (ShareIdenticalSubplans) once.
func onceEach(fn func(Node) (Node, bool)) func(Node) (Node, bool) {
	seen := map[Node]bool{}
	return func(x Node) (Node, bool) {
		if seen[x] {
			return x, false
		}
		seen[x] = true
		return fn(x)
	}
}

// Contract lists the design checklist for the view (dialect.md, last
// section). Missing items are marked "MISSING".
func (vp *ViewPlan) Contract(set Settings, sinks []string) []string {
	var out []string
	Transform(vp.Optimized, onceEach(func(x Node) (Node, bool) {
		s, ok := x.(*Scan)
		if !ok {
			return x, false
		}
		switch {
		case s.Kind == ScanView:
			out = append(out, viewClock(s))
		case s.Kind == ScanTable && s.TimeCol >= 0:
			out = append(out, fmt.Sprintf("clock: %s table changelog (retracting: an upsert retracts the row it replaces), version time %s, watermark %s - %s",
				s.Name, s.Out[s.TimeCol].Name, s.Out[s.TimeCol].Name, types.FormatInterval(s.Delay)))
		case s.Kind == ScanTable:
			out = append(out, "clock: "+s.Name+" table changelog (retracting: an upsert retracts the row it replaces), no watermark (no event-time operators over it)")
		case s.TimeCol < 0:
			out = append(out, "clock: "+s.Name+" has no watermark (no event-time operators over it)")
		case s.Clock == "processing time":
			out = append(out, fmt.Sprintf("clock: %s processing time (wall clock; NOT reproducible on replay), watermark %s", s.Name, s.Out[s.TimeCol].Name))
		default:
			clock := s.Clock
			if clock == "" {
				clock = "event time"
			}
			out = append(out, fmt.Sprintf("clock: %s %s, watermark %s - %s", s.Name, clock, s.Out[s.TimeCol].Name, types.FormatInterval(s.Delay)))
		}
		return x, false
	}))
	Transform(vp.Optimized, onceEach(func(x Node) (Node, bool) {
		switch n := x.(type) {
		case *WindowAggregate:
			emit := n.Contract.Emit
			if emit == "every" {
				emit = "every " + types.FormatInterval(n.Contract.Every) + " (early firings on the wall clock: processing time, not reproducible on replay; final at window close)"
			}
			out = append(out, fmt.Sprintf("window %s: allowed lateness %s, late data %s, emit %s",
				n.Window.Kind, types.FormatInterval(n.Contract.Lateness), n.Contract.Policy, emit))
			if n.Contract.SideTable != "" {
				out = append(out, "side table: "+n.Contract.SideTable)
			}
			out = append(out, fmt.Sprintf("state: %s key=(group, window) bound=window_end + %s", "WindowAggregate", types.FormatInterval(n.Contract.Lateness)))
		case *WindowTopN:
			if topNReadsTVF(n) {
				out = append(out, "window Top-N: late data drop (a row whose window_end the watermark reached is late; rows are final at window close)")
			}
			out = append(out, fmt.Sprintf("state: WindowTopN key=[%s] bound=%s", colList(n.Partition, n.Input.Schema()), n.StateBound()))
		case *TopN:
			out = append(out, fmt.Sprintf("state: TopN key=[%s] bound=%s", colList(n.Partition, n.Input.Schema()), n.StateBound()))
		case *OverAggregate:
			switch {
			case !n.Updating():
				out = append(out, "running aggregate OVER: late data drop (a row whose ts the watermark passed is late), emit on window close (each row once the watermark passes its ts)")
			case TimeColumnOf(n.Input, n.TimeCol):
				out = append(out, "running aggregate OVER: updating (each row at once; a row out of order within the delay, or a delete, corrects the later rows of its partition), late data drop (a row whose ts the watermark passed is late)")
			default:
				out = append(out, "running aggregate OVER: updating (each row at once; a row earlier in the order, or a delete, corrects the later rows of its partition)")
			}
			out = append(out, fmt.Sprintf("state: OverAggregate key=[%s] bound=%s", colList(n.Partition, n.Input.Schema()), n.StateBound()))
		case *TemporalFilter:
			out = append(out, "clock: temporal filter on "+n.ClockText()+clockNote(n))
			out = append(out, "state: TemporalFilter key=(row) bound="+n.StateBound())
		case *Aggregate:
			b := "MISSING (unbounded)"
			if tb := tableBound(n.Input); tb != "" {
				b = tb
			}
			if n.TTL > 0 {
				b = "STATE TTL " + types.FormatInterval(n.TTL)
			}
			b += multisetNote(n)
			out = append(out, fmt.Sprintf("state: Aggregate key=[%s] bound=%s", colList(n.GroupCols, n.Input.Schema()), b))
		case *Join:
			b := "MISSING (unbounded)"
			if tb := tableBound(n); tb != "" {
				b = tb
			}
			switch n.Kind {
			case IntervalJoin:
				b = "interval " + n.Interval()
			case WindowJoin:
				b = "window size " + types.FormatInterval(n.WindowSize)
			case TemporalJoin, LookupJoin:
				b = TemporalJoinBound(n)
			}
			if n.TTL > 0 {
				b = "STATE TTL " + types.FormatInterval(n.TTL) + ttlClock(n)
			}
			out = append(out, fmt.Sprintf("state: Join(%s) key=[%s | %s] bound=%s", n.Kind, colList(n.LeftKeys, n.Left.Schema()), colList(n.RightKeys, n.Right.Schema()), b))
		case *SemiJoin:
			b := "MISSING (unbounded)"
			if n.TTL > 0 {
				b = n.StateBound()
			}
			out = append(out, fmt.Sprintf("state: %s key=[%s | %s] bound=%s", Kind(n), colList(n.LeftKeys, n.Left.Schema()), colList(n.RightKeys, n.Right.Schema()), b))
		}
		return x, false
	}))
	out = append(out, fmt.Sprintf("view key: [%s]", colList(vp.Key, vp.Optimized.Schema())))
	if len(sinks) == 0 {
		out = append(out, "sinks: none (the view is queryable)")
	}
	out = append(out, sinks...)
	out = append(out, "source errors: "+vp.SourceErrors)
	ci := set.CheckpointInterval
	if ci == "" {
		ci = "10s"
	}
	out = append(out, "checkpoint interval: "+ci)
	return out
}

// viewClock is the contract's line for a scan of a materialized view:
// it reads the view's changelog and follows its output watermark.
func viewClock(s *Scan) string {
	kind := "append-only"
	if s.Retracting {
		kind = "retracting"
	}
	line := "clock: " + s.Name + " materialized view changelog (" + kind + "), "
	if s.TimeCol < 0 {
		return line + "no watermark (no event-time operators over it)"
	}
	return line + "watermark " + s.Out[s.TimeCol].Name + " (the view's output watermark)"
}

// clockNote says whether a temporal filter's clock replays alike.
func clockNote(n *TemporalFilter) string {
	if n.Clock == ClockProcessing {
		return " (wall clock; NOT reproducible on replay)"
	}
	return " (event time)"
}

// sourceErrors describes what the view's sources do with undecodable
// records (their on_error option); inputs whose connector delivers typed
// rows (catalog.Object.Typed: memory, datagen) cannot have any.
func sourceErrors(n Node, cat Resolver) string {
	var parts []string
	typed := true
	seen := map[string]bool{}
	Transform(n, func(x Node) (Node, bool) {
		s, ok := x.(*Scan)
		if !ok || seen[strings.ToLower(s.Name)] {
			return x, false
		}
		seen[strings.ToLower(s.Name)] = true
		o, ok := cat.Get(s.Name)
		if !ok {
			return x, false
		}
		if o.Options["connector"] != "" && !o.Typed {
			typed = false
		}
		pol := o.OnError()
		if pol == "dead_letter" {
			pol += " → table " + o.DeadLetterTable()
		}
		parts = append(parts, s.Name+" "+pol)
		return x, false
	})
	if typed {
		return "fail (typed inputs: nothing to decode)"
	}
	return strings.Join(parts, ", ")
}
