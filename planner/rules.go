package planner

// Rule is a named rewrite. Apply returns the rewritten node and whether it
// fired at this node; Optimize drives rules bottom-up with Transform until
// nothing fires.
type Rule struct {
	Name  string
	Apply func(Node) (Node, bool)
}

// Rules are the optimizer's rewrite rules in the order they are tried.
var Rules = []Rule{
	{"PushFilterBelowWindowAssign", PushFilterBelowWindowAssign},
	{"PushFilterBelowProject", PushFilterBelowProject},
	{"MergeFilters", MergeFilters},
	{"AssignWindowFromKey", AssignWindowFromKey},
	{"FuseWindowIntoAggregate", FuseWindowIntoAggregate},
	{"MergeProjects", MergeProjects},
}

// Optimize applies Rules to a fixpoint (bounded), then each of TreeRules
// once to the whole plan, and returns the trace of rule names that fired,
// in order.
func Optimize(n Node) (Node, []string) {
	var trace []string
	for round := 0; round < 16; round++ {
		fired := false
		for _, r := range Rules {
			out, ok := Transform(n, func(x Node) (Node, bool) { return r.Apply(x) })
			if ok {
				n = out
				trace = append(trace, r.Name)
				fired = true
			}
		}
		if !fired {
			break
		}
	}
	for _, r := range TreeRules {
		if out, ok := r.Apply(n); ok {
			n, trace = out, append(trace, r.Name)
		}
	}
	return n, trace
}

// PushFilterBelowWindowAssign moves a filter that does not read
// window_start/window_end below the window assignment. Filtering before
// assignment drops the same rows (assignment only adds columns), and for
// HOP it filters once per row instead of once per window. Watermarks are
// unaffected: they flow from the scan, not from the rows.
func PushFilterBelowWindowAssign(n Node) (Node, bool) {
	f, ok := n.(*Filter)
	if !ok {
		return n, false
	}
	w, ok := f.Input.(*WindowAssign)
	if !ok {
		return n, false
	}
	width := len(w.Input.Schema())
	used := map[int]bool{}
	ColumnsUsed(f.Pred, used)
	for c := range used {
		if c >= width {
			return n, false
		}
	}
	return &WindowAssign{Input: &Filter{Input: w.Input, Pred: f.Pred}, Window: w.Window}, true
}

// PushFilterBelowProject moves a filter below a projection by substituting
// the projected expressions into the predicate, so rows are dropped before
// they are computed. It is exact for deterministic expressions, which are
// all streamsql has in views.
func PushFilterBelowProject(n Node) (Node, bool) {
	f, ok := n.(*Filter)
	if !ok {
		return n, false
	}
	p, ok := f.Input.(*Project)
	if !ok {
		return n, false
	}
	if !substituteFits([]Scalar{f.Pred}, p.Exprs) {
		return n, false
	}
	pred := substitute(f.Pred, p.Exprs)
	return &Project{Input: &Filter{Input: p.Input, Pred: pred}, Exprs: p.Exprs, Names: p.Names}, true
}

// substitute replaces ColRef i with exprs[i].
func substitute(s Scalar, exprs []Scalar) Scalar {
	return MapColRefs(s, func(r *ColRef) Scalar { return exprs[r.Index] })
}

// MergeFilters combines two stacked filters into one conjunction, so the
// operator chain evaluates one predicate per row.
func MergeFilters(n Node) (Node, bool) {
	f, ok := n.(*Filter)
	if !ok {
		return n, false
	}
	g, ok := f.Input.(*Filter)
	if !ok {
		return n, false
	}
	if !conjunctionFits(g.Pred, f.Pred) {
		return n, false
	}
	return &Filter{Input: g.Input, Pred: andAll([]Scalar{g.Pred, f.Pred})}, true
}

// FuseWindowIntoAggregate turns Aggregate(group by window_start/_end, ...)
// over WindowAssign into one WindowAggregate. The fused operator keeps one
// accumulator per (key, window) and fires windows on the watermark, so its
// state is bounded by window_end + lateness; the unfused pair would hold
// every window forever. A Filter between them (not reading window columns)
// is kept below the fused operator. The output columns are reordered back
// with a Project, so the node's schema is unchanged.
func FuseWindowIntoAggregate(n Node) (Node, bool) {
	a, ok := n.(*Aggregate)
	if !ok {
		return n, false
	}
	if p, ok := a.Input.(*Project); ok {
		if b, ok := aggregateBelowProject(a, p); ok {
			return FuseWindowIntoAggregate(b)
		}
	}
	var filter *Filter
	in := a.Input
	if f, ok := in.(*Filter); ok {
		filter, in = f, f.Input
	}
	w, ok := in.(*WindowAssign)
	if !ok {
		return n, false
	}
	width := len(w.Input.Schema())
	if filter != nil {
		used := map[int]bool{}
		ColumnsUsed(filter.Pred, used)
		if used[width] || used[width+1] {
			return n, false
		}
	}
	groupsHaveWindow := false
	var groups []int
	var groupPos []int // position of each kept group in a.GroupCols
	winPos := map[int]int{}
	for i, g := range a.GroupCols {
		switch g {
		case width, width + 1:
			groupsHaveWindow = true
			winPos[i] = g - width
		default:
			groups = append(groups, g)
			groupPos = append(groupPos, i)
		}
	}
	for _, ag := range a.Aggs {
		if ag.Arg >= width {
			return n, false
		}
	}
	if !groupsHaveWindow {
		return n, false
	}
	var input Node = w.Input
	if filter != nil {
		input = &Filter{Input: w.Input, Pred: filter.Pred}
	}
	wa := &WindowAggregate{Input: input, Window: w.Window, GroupCols: groups, Aggs: a.Aggs}
	for _, p := range groupPos {
		wa.Names = append(wa.Names, a.Names[p])
	}
	wa.Names = append(wa.Names, "window_start", "window_end")
	wa.Names = append(wa.Names, a.Names[len(a.GroupCols):]...)
	// Reorder back to the Aggregate's schema.
	ws := wa.Schema()
	orig := a.Schema()
	p := &Project{Input: wa}
	ng := len(groups)
	for i := range a.GroupCols {
		var src int
		if wp, ok := winPos[i]; ok {
			src = ng + wp
		} else {
			for k, gp := range groupPos {
				if gp == i {
					src = k
				}
			}
		}
		p.Exprs = append(p.Exprs, &ColRef{Index: src, Name: ws[src].Name, T: ws[src].Type})
		p.Names = append(p.Names, orig[i].Name)
	}
	for k := range a.Aggs {
		src := ng + 2 + k
		p.Exprs = append(p.Exprs, &ColRef{Index: src, Name: ws[src].Name, T: ws[src].Type})
		p.Names = append(p.Names, orig[len(a.GroupCols)+k].Name)
	}
	return p, true
}

// AssignWindowFromKey turns an aggregate that groups by the window_start
// of an upstream windowed aggregate (Nexmark q5: max(count) per window)
// into a windowed aggregate over that same window. Upstream emits each
// window's rows once, when the watermark passes window_end, and forwards
// the watermark in steps; so grouping by window_start is complete when
// the watermark reaches window_start + size, and the state of a group can
// be dropped then. Without this rewrite the aggregate would keep every
// window's group forever (unbounded state).
func AssignWindowFromKey(n Node) (Node, bool) {
	a, ok := n.(*Aggregate)
	if !ok {
		return n, false
	}
	for i, g := range a.GroupCols {
		size, ok := windowStartOf(a.Input, g, true, false)
		if !ok {
			continue
		}
		width := len(a.Input.Schema())
		wa := &WindowAssign{Input: a.Input, Window: WindowSpec{Kind: "keyed", TimeCol: g, Size: size, Slide: size}}
		c := *a
		c.Input = wa
		c.GroupCols = append([]int{}, a.GroupCols...)
		c.GroupCols[i] = width
		return &c, true
	}
	return n, false
}

// aggregateBelowProject rewrites Aggregate(Project(WindowAssign(x))) —
// the shape GROUP BY expressions and aggregate arguments produce: the
// projection passes every column through and appends computed ones — to
// Aggregate(WindowAssign(Project'(x))), so the window can be fused. It
// applies only when the computed columns do not read window_start or
// window_end.
func aggregateBelowProject(a *Aggregate, p *Project) (*Aggregate, bool) {
	w, ok := p.Input.(*WindowAssign)
	if !ok {
		return nil, false
	}
	width := len(w.Input.Schema())
	if len(p.Exprs) < width+2 {
		return nil, false
	}
	for i := 0; i < width+2; i++ {
		if r, ok := p.Exprs[i].(*ColRef); !ok || r.Index != i {
			return nil, false
		}
	}
	extras := p.Exprs[width+2:]
	for _, e := range extras {
		used := map[int]bool{}
		ColumnsUsed(e, used)
		if used[width] || used[width+1] {
			return nil, false
		}
	}
	inner := &Project{Input: w.Input}
	inner.Exprs = append(append(inner.Exprs, p.Exprs[:width]...), extras...)
	inner.Names = append(append(inner.Names, p.Names[:width]...), p.Names[width+2:]...)
	nw := len(inner.Exprs)
	// Old column -> new column of WindowAssign(inner).
	remap := func(c int) int {
		switch {
		case c < width:
			return c
		case c < width+2:
			return nw + (c - width)
		}
		return c - 2
	}
	out := *a
	out.Input = &WindowAssign{Input: inner, Window: w.Window}
	out.GroupCols = make([]int, len(a.GroupCols))
	for i, g := range a.GroupCols {
		out.GroupCols[i] = remap(g)
	}
	out.Aggs = append([]AggCall(nil), a.Aggs...)
	for i := range out.Aggs {
		if out.Aggs[i].Arg >= 0 {
			out.Aggs[i].Arg = remap(out.Aggs[i].Arg)
		}
	}
	return &out, true
}
