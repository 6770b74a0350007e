package planner

import "github.com/streamsql/streamsql/sqlerr"

// mergeBloat is how many expression nodes a rule that substitutes one
// operator's expressions into another's (MergeProjects,
// PushFilterBelowProject) may add beyond what the two already hold.
// Substitution copies an inner expression once per reference to it, so
// without a bound a stack of n projections that each use a column twice
// (`SELECT x + x AS x FROM (SELECT x + x AS x FROM ...)`) would merge into
// 2^n nodes: one short statement could exhaust memory at plan time and
// CPU on every row. A rule that would exceed the bound does not fire, and
// the operators stay separate.
const mergeBloat = 100

// shape is the size (nodes, shared subtrees counted once per use) and
// depth of an expression.
type shape struct{ size, depth int }

// shapeOf measures s with ColRef i standing for subs[i] (or for itself when
// subs is nil).
func shapeOf(s Scalar, subs []shape) shape {
	var kids []Scalar
	switch e := s.(type) {
	case *ColRef:
		if subs != nil && e.Index < len(subs) {
			return subs[e.Index]
		}
		return shape{1, 1}
	case *Call:
		kids = e.Args
	case *Case:
		kids = append(kids, e.Operand, e.Else)
		for _, w := range e.Whens {
			kids = append(kids, w.Cond, w.Result)
		}
	case *Cast:
		kids = []Scalar{e.Arg}
	}
	out := shape{1, 1}
	for _, k := range kids {
		if k == nil {
			continue
		}
		ks := shapeOf(k, subs)
		out.size += ks.size
		out.depth = max(out.depth, ks.depth+1)
	}
	return out
}

// substituteFits reports whether substituting exprs into each of outer
// stays within mergeBloat extra nodes and sqlerr.MaxDepth levels.
func substituteFits(outer, exprs []Scalar) bool {
	subs := make([]shape, len(exprs))
	budget := mergeBloat
	for i, e := range exprs {
		subs[i] = shapeOf(e, nil)
		budget += subs[i].size
	}
	for _, o := range outer {
		budget += shapeOf(o, nil).size
	}
	size := 0
	for _, o := range outer {
		m := shapeOf(o, subs)
		if size += m.size; size > budget || m.depth > sqlerr.MaxDepth {
			return false
		}
	}
	return true
}

// conjunctionFits reports whether a AND b stays within sqlerr.MaxDepth.
func conjunctionFits(a, b Scalar) bool {
	return max(shapeOf(a, nil).depth, shapeOf(b, nil).depth)+1 <= sqlerr.MaxDepth
}
