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
	if !ok {
		return n, false
	}
	exprs := make([]Scalar, len(p.Exprs))
	for i, e := range p.Exprs {
		exprs[i] = substitute(e, q.Exprs)
	}
	return &Project{Input: q.Input, Exprs: exprs, Names: p.Names}, true
}
