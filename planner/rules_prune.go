package planner

// TreeRules are rewrites of a whole plan. Optimize runs each once, in
// order, on the root after Rules reach their fixpoint, and names it in the
// trace when it changed the plan.
var TreeRules = []Rule{
	{"EndTopNPartitionsAtJoinCleanup", EndTopNPartitionsAtJoinCleanup},
	{"PruneColumns", PruneColumns},
}

// PruneColumns pushes projections toward the sources: after it, every
// Scan reads only the columns some operator above it uses, and every
// Project, Aggregate and WindowAggregate computes only the columns its
// consumer reads. It walks the tree top-down with the set of output
// columns each node must keep, and remaps every column index above a
// pruned node. It treats n as the root: n's output schema is unchanged,
// and so is a Materialize's input (the view keeps every column).
//
// It keeps streaming semantics because it only removes columns, never
// rows, group keys or window bounds:
//   - a source Scan always keeps its watermark column (TimeCol, remapped to
//     its new position), so windows, interval joins and TTL still see
//     event time and EXPLAIN's contract still names the watermark;
//   - a window keeps its time column; an Aggregate keeps its input's
//     watermark column (TimeColumn), which event-time STATE TTL reads;
//   - a join keeps its keys, its time columns and what its residual reads;
//   - group columns are never dropped (that would merge groups), and a
//     WindowAggregate keeps window_start and window_end;
//   - a keyed TopN keeps its partition, ORDER BY and rank columns and its
//     input's watermark column; ties in ORDER BY are then broken by the
//     columns it keeps, which decide the output row anyway (pruneTopN);
//   - rows sent to a LATE DATA side table are the rows entering the window
//     operator and must carry the source's columns, so a WindowAggregate's
//     input is kept whole when its contract names a side table, or when no
//     contract is attached yet (PlanView attaches it after Optimize, so
//     below a window nothing is pruned until the rule runs again on the
//     plan with its contract).
//
// A Scan or Project never shrinks to zero columns (rows keep a width),
// and an Aggregate without groups keeps at least one aggregate.
func PruneColumns(n Node) (Node, bool) {
	p := prune(n, keepAll(len(n.Schema())))
	return p.n, p.changed
}

// pruned is one node after pruning: the new node, where each old output
// column went (-1: dropped) and whether anything changed. When nothing
// changed, m is the identity.
type pruned struct {
	n       Node
	m       []int
	changed bool
}

// notPruned is n as it was.
func notPruned(n Node) pruned {
	return pruned{n: n, m: identityMap(len(n.Schema()))}
}

// prune rewrites n so that it outputs at least the columns marked in need
// (len(need) is n's output width).
func prune(n Node, need []bool) pruned {
	switch x := n.(type) {
	case *Scan:
		return pruneScan(x, need)
	case *Filter:
		return pruneFilter(x, need)
	case *TemporalFilter:
		return pruneTemporalFilter(x, need)
	case *Project:
		return pruneProject(x, need)
	case *WindowAssign:
		return pruneWindowAssign(x, need)
	case *ProjectSet:
		return pruneProjectSet(x, need)
	case *Aggregate:
		return pruneAggregate(x, need)
	case *WindowAggregate:
		return pruneWindowAggregate(x, need)
	case *Join:
		return pruneJoin(x, need)
	case *SemiJoin:
		return pruneSemiJoin(x, need)
	case *Sort:
		return pruneSort(x, need)
	case *TopN:
		return pruneTopN(x, need)
	case *Limit:
		in := prune(x.Input, need)
		return prunePassThrough(x, in)
	case *Materialize:
		return pruneMaterialize(x)
	}
	return pruneOpaque(n)
}

// pruneOpaque keeps every column of a node this pass does not know, and
// prunes inside its inputs without changing their outputs.
func pruneOpaque(n Node) pruned {
	ch := n.Children()
	out := make([]Node, len(ch))
	changed := false
	for i, c := range ch {
		p := prune(c, keepAll(len(c.Schema())))
		out[i], changed = p.n, changed || p.changed
	}
	if !changed {
		return notPruned(n)
	}
	return pruned{n: n.WithChildren(out...), m: identityMap(len(n.Schema())), changed: true}
}

// prunePassThrough rebuilds a node whose output is its input's (Limit) over
// the pruned input.
func prunePassThrough(n Node, in pruned) pruned {
	if !in.changed {
		return notPruned(n)
	}
	return pruned{n: n.WithChildren(in.n), m: in.m, changed: true}
}

// pruneScan reads only the needed source columns, always with the
// watermark column, and remaps TimeCol.
func pruneScan(s *Scan, need []bool) pruned {
	if s.TimeCol >= 0 {
		need = markCol(need, s.TimeCol)
	}
	keep := markedCols(need)
	if len(keep) == 0 && len(s.Cols) > 0 {
		keep = []int{0}
	}
	if len(keep) == len(s.Cols) {
		return notPruned(s)
	}
	c := *s
	c.Cols, c.Out = nil, nil
	m := droppedMap(len(s.Cols))
	for i, k := range keep {
		c.Cols = append(c.Cols, s.Cols[k])
		c.Out = append(c.Out, s.Out[k])
		m[k] = i
	}
	c.TimeCol = -1
	if s.TimeCol >= 0 {
		c.TimeCol = m[s.TimeCol]
	}
	return pruned{n: &c, m: m, changed: true}
}

// pruneFilter keeps what the parent needs plus what the predicate reads.
func pruneFilter(f *Filter, need []bool) pruned {
	in := prune(f.Input, withScalar(need, f.Pred))
	if !in.changed {
		return notPruned(f)
	}
	return pruned{n: &Filter{Input: in.n, Pred: remapScalar(f.Pred, in.m)}, m: in.m, changed: true}
}

// pruneProject drops the expressions nobody reads and keeps the input
// columns the rest read. Like a scan it keeps the column that carries the
// watermark: a STATE TTL above finds its event-time clock there (without
// it the TTL would fall back to the wall clock).
func pruneProject(p *Project, need []bool) pruned {
	if tc := PropsOf(p).TimeCol; tc >= 0 {
		need = markCol(need, tc)
	}
	keep := markedCols(need)
	if len(keep) == 0 && len(p.Exprs) > 0 {
		keep = []int{0}
	}
	inNeed := make([]bool, len(p.Input.Schema()))
	for _, i := range keep {
		inNeed = withScalar(inNeed, p.Exprs[i])
	}
	in := prune(p.Input, inNeed)
	if !in.changed && len(keep) == len(p.Exprs) {
		return notPruned(p)
	}
	out := &Project{Input: in.n}
	m := droppedMap(len(p.Exprs))
	for k, i := range keep {
		out.Exprs = append(out.Exprs, remapScalar(p.Exprs[i], in.m))
		out.Names = append(out.Names, p.Names[i])
		m[i] = k
	}
	return pruned{n: out, m: m, changed: true}
}

// pruneWindowAssign keeps the needed input columns and the window's time
// column; window_start and window_end stay last.
func pruneWindowAssign(w *WindowAssign, need []bool) pruned {
	width := len(w.Input.Schema())
	inNeed := markCol(need[:width], w.Window.TimeCol)
	in := prune(w.Input, inNeed)
	if !in.changed {
		return notPruned(w)
	}
	nw := len(in.n.Schema())
	spec := w.Window
	spec.TimeCol = in.m[spec.TimeCol]
	m := append(append([]int{}, in.m...), nw, nw+1)
	return pruned{n: &WindowAssign{Input: in.n, Window: spec}, m: m, changed: true}
}

// pruneProjectSet keeps every call (each decides how many rows an input
// row makes, so none can go) and the input columns the parent or the
// calls' arguments read; the calls' columns stay last.
func pruneProjectSet(p *ProjectSet, need []bool) pruned {
	if p.Input == nil {
		return notPruned(p)
	}
	width := len(p.Input.Schema())
	inNeed := append([]bool{}, need[:width]...)
	for _, c := range p.Calls {
		for _, a := range c.Args {
			inNeed = withScalar(inNeed, a)
		}
	}
	in := prune(p.Input, inNeed)
	if !in.changed {
		return notPruned(p)
	}
	out := *p
	out.Input = in.n
	out.Calls = make([]SetCall, len(p.Calls))
	for i, c := range p.Calls {
		args := make([]Scalar, len(c.Args))
		for j, a := range c.Args {
			args[j] = remapScalar(a, in.m)
		}
		out.Calls[i] = SetCall{Fn: c.Fn, Args: args, T: c.T}
	}
	nw := len(in.n.Schema())
	m := append([]int{}, in.m...)
	for k := range len(p.Schema()) - width {
		m = append(m, nw+k)
	}
	return pruned{n: &out, m: m, changed: true}
}

// keptAggs lists the aggregates whose output column (at base+k) is
// needed; with no group columns at least one is kept, so the output keeps
// a width.
func keptAggs(aggs []AggCall, need []bool, base int, groups int) []int {
	var keep []int
	for k := range aggs {
		if need[base+k] {
			keep = append(keep, k)
		}
	}
	if len(keep) == 0 && groups == 0 && len(aggs) > 0 {
		keep = []int{0}
	}
	return keep
}

// aggInputNeed marks the input columns an aggregate reads: its group
// columns and the arguments of the kept aggregates.
func aggInputNeed(width int, groups []int, aggs []AggCall, keep []int) []bool {
	need := make([]bool, width)
	for _, g := range groups {
		need[g] = true
	}
	for _, k := range keep {
		if aggs[k].Arg >= 0 {
			need[aggs[k].Arg] = true
		}
	}
	return need
}

// rebuildAgg remaps the group columns and the kept aggregates through
// the input mapping in, and returns the new groups, aggregates and output
// names. extra output columns (a window's bounds) sit between groups and
// aggregates in names.
func rebuildAgg(groups []int, aggs []AggCall, names []string, keep []int, extra int, in []int) ([]int, []AggCall, []string) {
	ng := make([]int, len(groups))
	for i, g := range groups {
		ng[i] = in[g]
	}
	var na []AggCall
	var nn []string
	for i := 0; i < len(groups)+extra; i++ {
		nn = append(nn, nameAt(names, i))
	}
	for _, k := range keep {
		a := aggs[k]
		if a.Arg >= 0 {
			a.Arg = in[a.Arg]
		}
		na = append(na, a)
		nn = append(nn, nameAt(names, len(groups)+extra+k))
	}
	return ng, na, nn
}

// aggMap maps an aggregate's old output columns (fixed columns first,
// then one per aggregate) to the new ones.
func aggMap(fixed, naggs int, keep []int) []int {
	m := droppedMap(fixed + naggs)
	for i := 0; i < fixed; i++ {
		m[i] = i
	}
	for i, k := range keep {
		m[fixed+k] = fixed + i
	}
	return m
}

// pruneAggregate keeps every group column, drops unread aggregates and
// keeps the input's watermark column for event-time STATE TTL.
func pruneAggregate(a *Aggregate, need []bool) pruned {
	ng := len(a.GroupCols)
	if a.Ranked && len(a.Aggs) > 0 {
		need = append([]bool(nil), need...)
		need[ng+len(a.Aggs)-1] = true // the rank: the groups' values depend on it
	}
	keep := keptAggs(a.Aggs, need, ng, ng)
	inNeed := aggInputNeed(len(a.Input.Schema()), a.GroupCols, a.Aggs, keep)
	if tc := TimeColumn(a.Input); tc >= 0 {
		inNeed[tc] = true // event-time STATE TTL reads it
	}
	in := prune(a.Input, inNeed)
	if !in.changed && len(keep) == len(a.Aggs) {
		return notPruned(a)
	}
	c := *a
	c.Input = in.n
	c.GroupCols, c.Aggs, c.Names = rebuildAgg(a.GroupCols, a.Aggs, a.Names, keep, 0, in.m)
	return pruned{n: &c, m: aggMap(ng, len(a.Aggs), keep), changed: true}
}

// pruneWindowAggregate keeps every group column and the window bounds,
// drops unread aggregates, and prunes its input only when no side table
// needs the whole rows (see PruneColumns).
func pruneWindowAggregate(w *WindowAggregate, need []bool) pruned {
	ng := len(w.GroupCols)
	keep := keptAggs(w.Aggs, need, ng+2, ng)
	width := len(w.Input.Schema())
	inNeed := keepAll(width)
	if contractAttached(w) && w.Contract.SideTable == "" {
		inNeed = markCol(aggInputNeed(width, w.GroupCols, w.Aggs, keep), w.Window.TimeCol)
	}
	in := prune(w.Input, inNeed)
	if !in.changed && len(keep) == len(w.Aggs) {
		return notPruned(w)
	}
	c := *w
	c.Input = in.n
	c.Window.TimeCol = in.m[w.Window.TimeCol]
	c.GroupCols, c.Aggs, c.Names = rebuildAgg(w.GroupCols, w.Aggs, w.Names, keep, 2, in.m)
	return pruned{n: &c, m: aggMap(ng+2, len(w.Aggs), keep), changed: true}
}

// contractAttached reports whether PlanView has attached the view's
// lateness contract to w (it always sets a late data policy); before that,
// whether late rows go to a side table is unknown.
func contractAttached(w *WindowAggregate) bool { return w.Contract.Policy != 0 }

// joinNeeds splits the join's needed output columns by side and adds its
// keys, time columns and residual.
func joinNeeds(j *Join, need []bool) (left, right []bool) {
	nl := len(j.Left.Schema())
	if j.Residual != nil {
		need = withScalar(need, j.Residual)
	}
	left, right = append([]bool{}, need[:nl]...), append([]bool{}, need[nl:]...)
	for i := range j.LeftKeys {
		left[j.LeftKeys[i]], right[j.RightKeys[i]] = true, true
	}
	if j.LeftTime >= 0 {
		left[j.LeftTime] = true
	}
	if j.RightTime >= 0 {
		right[j.RightTime] = true
	}
	return left, right
}

// pruneJoin prunes both sides and remaps keys, time columns and the
// residual; the right side's columns shift by the new left width.
func pruneJoin(j *Join, need []bool) pruned {
	ln, rn := joinNeeds(j, need)
	l, r := prune(j.Left, ln), prune(j.Right, rn)
	if !l.changed && !r.changed {
		return notPruned(j)
	}
	nl := len(l.n.Schema())
	m := append([]int{}, l.m...)
	for _, x := range r.m {
		if x >= 0 {
			x += nl
		}
		m = append(m, x)
	}
	c := *j
	c.Left, c.Right = l.n, r.n
	c.LeftKeys, c.RightKeys = remapCols(j.LeftKeys, l.m), remapCols(j.RightKeys, r.m)
	if j.LeftTime >= 0 {
		c.LeftTime = l.m[j.LeftTime]
	}
	if j.RightTime >= 0 {
		c.RightTime = r.m[j.RightTime]
	}
	if j.Residual != nil {
		c.Residual = remapScalar(j.Residual, m)
	}
	return pruned{n: &c, m: m, changed: true}
}

// pruneSemiJoin prunes both sides of a semi or anti join, keeping its
// keys and what its residual reads; its output is its left side's.
func pruneSemiJoin(j *SemiJoin, need []bool) pruned {
	nl := len(j.Left.Schema())
	all := append(append([]bool{}, need...), make([]bool, len(j.Right.Schema()))...)
	if j.Residual != nil {
		all = withScalar(all, j.Residual)
	}
	ln, rn := all[:nl:nl], all[nl:]
	for i := range j.LeftKeys {
		ln[j.LeftKeys[i]], rn[j.RightKeys[i]] = true, true
	}
	if j.LeftTime >= 0 {
		ln[j.LeftTime] = true
	}
	if j.RightTime >= 0 {
		rn[j.RightTime] = true
	}
	l, r := prune(j.Left, ln), prune(j.Right, rn)
	if !l.changed && !r.changed {
		return notPruned(j)
	}
	c := *j
	c.Left, c.Right = l.n, r.n
	c.LeftKeys, c.RightKeys = remapCols(j.LeftKeys, l.m), remapCols(j.RightKeys, r.m)
	if j.LeftTime >= 0 {
		c.LeftTime = l.m[j.LeftTime]
	}
	if j.RightTime >= 0 {
		c.RightTime = r.m[j.RightTime]
	}
	if j.Residual != nil {
		m := append([]int{}, l.m...)
		for _, x := range r.m {
			if x >= 0 {
				x += len(l.n.Schema())
			}
			m = append(m, x)
		}
		c.Residual = remapScalar(j.Residual, m)
	}
	return pruned{n: &c, m: l.m, changed: true}
}

// pruneSort keeps the sort keys and remaps them.
func pruneSort(s *Sort, need []bool) pruned {
	for _, k := range s.Keys {
		need = markCol(need, k.Col)
	}
	in := prune(s.Input, need)
	if !in.changed {
		return notPruned(s)
	}
	c := &Sort{Input: in.n, Keys: make([]SortKey, len(s.Keys))}
	for i, k := range s.Keys {
		c.Keys[i] = SortKey{Col: in.m[k.Col], Desc: k.Desc}
	}
	return pruned{n: c, m: in.m, changed: true}
}

// pruneTopN keeps the keyed Top-N's partition and ORDER BY columns, its
// rank column (the slot the rank is written into), the input's watermark
// column (event-time STATE TTL reads it), the column its partitions end
// by (End) and what its consumer reads; the
// other input columns never reach the output, so the Top-N neither
// stores nor compares them. Rows tied in ORDER BY are then ordered by
// the columns kept (docs/sql.md): two rows equal in all of them give the
// same output row, so which one ranks first is not observable. Over a
// retracting input a delete still finds a stored row equal to it in
// every kept column, the one it retracts in the output.
func pruneTopN(t *TopN, need []bool) pruned {
	inNeed := markCol(need, t.RankCol)
	for _, c := range t.Partition {
		inNeed[c] = true
	}
	for _, k := range t.Order {
		inNeed[k.Col] = true
	}
	if tc := TimeColumn(t.Input); tc >= 0 {
		inNeed[tc] = true
	}
	if t.End != nil {
		inNeed[t.End.Col] = true
	}
	in := prune(t.Input, inNeed)
	if !in.changed {
		return notPruned(t)
	}
	c := *t
	c.Input = in.n
	c.Partition = remapCols(t.Partition, in.m)
	c.Order = make([]SortKey, len(t.Order))
	for i, k := range t.Order {
		c.Order[i] = SortKey{Col: in.m[k.Col], Desc: k.Desc}
	}
	c.RankCol = in.m[t.RankCol]
	if t.End != nil {
		end := *t.End
		end.Col = in.m[end.Col]
		c.End = &end
	}
	return pruned{n: &c, m: in.m, changed: true}
}

// pruneMaterialize keeps every input column: they are the view's rows.
func pruneMaterialize(v *Materialize) pruned {
	in := prune(v.Input, keepAll(len(v.Input.Schema())))
	if !in.changed {
		return notPruned(v)
	}
	c := *v
	c.Input = in.n
	c.Key = remapCols(v.Key, in.m)
	return pruned{n: &c, m: in.m, changed: true}
}

// keepAll marks all n columns.
func keepAll(n int) []bool {
	s := make([]bool, n)
	for i := range s {
		s[i] = true
	}
	return s
}

// markCol returns a copy of need with column c marked.
func markCol(need []bool, c int) []bool {
	out := append([]bool{}, need...)
	out[c] = true
	return out
}

// withScalar returns a copy of need with the columns s reads marked.
func withScalar(need []bool, s Scalar) []bool {
	out := append([]bool{}, need...)
	used := map[int]bool{}
	ColumnsUsed(s, used)
	for c := range used {
		out[c] = true
	}
	return out
}

// markedCols lists the marked columns in order.
func markedCols(need []bool) []int {
	var out []int
	for i, k := range need {
		if k {
			out = append(out, i)
		}
	}
	return out
}

// identityMap maps n columns to themselves.
func identityMap(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// droppedMap maps n columns to nothing (-1).
func droppedMap(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = -1
	}
	return m
}

// remapCols maps column indexes through m.
func remapCols(cols []int, m []int) []int {
	if cols == nil {
		return nil
	}
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = m[c]
	}
	return out
}

// remapScalar is RemapColumns with a slice mapping.
func remapScalar(s Scalar, m []int) Scalar {
	mm := make(map[int]int, len(m))
	for i, x := range m {
		if x >= 0 {
			mm[i] = x
		}
	}
	return RemapColumns(s, mm)
}

// nameAt is names[i], or "" past its end.
func nameAt(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return ""
}
