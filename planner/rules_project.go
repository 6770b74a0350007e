package planner

// MergeProjects collapses a projection of a projection into one by
// substituting the inner expressions into the outer ones, so each row is
// built once. Projections are stateless and row-by-row, so the merged
// operator sees and emits exactly the same rows, retractions and
// watermarks.
func MergeProjects(n Node) (Node, bool) {
	p, ok := n.(*Project)
	if !ok {
		return n, false
	}
	q, ok := p.Input.(*Project)
	if !ok || !substituteFits(p.Exprs, q.Exprs) {
		return n, false
	}
	exprs := make([]Scalar, len(p.Exprs))
	for i, e := range p.Exprs {
		exprs[i] = substitute(e, q.Exprs)
	}
	return &Project{Input: q.Input, Exprs: exprs, Names: p.Names}, true
}

// SplitAggregate splits a window aggregate into a local and a global
// phase when it runs on more than one instance. The local phase runs on
// every instance with rows split evenly (not by key), judges lateness and
// folds a batch's rows into partial accumulators per (group, window); the
// global phase, routed by key, merges the partials into the windows'
// state. A skewed or global key then no longer funnels every row through
// one instance. It keeps streaming semantics because a row's verdict
// (on time, late, expired) depends only on the watermark it arrived under,
// the window end and the contract, all known to the local phase; count,
// sum, min, max and avg merge exactly; and watermarks pass through the
// local phase unchanged, after its partials. SESSION windows (which merge
// per row), DISTINCT aggregates (whose partials are sets) and the JSONB
// aggregates and array_agg (whose partials are lists of values) stay whole.
func SplitAggregate(n Node) (Node, bool) {
	w, ok := n.(*WindowAggregate)
	if !ok || w.TwoPhase || w.Window.Kind == "session" {
		return n, false
	}
	for _, a := range w.Aggs {
		if a.Distinct || a.Fn == "jsonb_agg" || a.Fn == "jsonb_object_agg" || a.Fn == "array_agg" {
			return n, false
		}
	}
	c := *w
	c.TwoPhase = true
	return &c, true
}
