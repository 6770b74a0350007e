package planner

import (
	"reflect"
	"slices"

	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/types"
)

// ShareIdenticalSubplans makes identical stateful subtrees of one plan a
// single node with several consumers: the plan becomes a DAG in which the
// later uses hold the same pointer as the first, and exec runs that node's
// operators once and delivers every batch and watermark to each consumer
// (exec's Tee). Nexmark q5 computes the same HOP count twice, once for
// the join's left input and once under the per-window max; shared, the
// window aggregate's state (one accumulator per auction and window, kept
// until the watermark passes window_end + lateness) is kept once and
// checkpointed once, under the first use's state keys.
//
// Two subtrees are identical when they have the same node kinds, the same
// fields (expressions, window specs, group keys, contracts, source and its
// watermark) and identical inputs, after the earlier rules normalised them
// (a window fused into its aggregate groups by the non-window keys only,
// so GROUP BY window_start, a and GROUP BY a, window_start agree). At the
// subtree's root the output names may differ, and an aggregate's group
// keys compare as a set (GROUP BY a, b and GROUP BY b, a): the later use
// then reads the shared node through a Project that renames and reorders
// its columns.
//
// It keeps streaming semantics: the shared node sees exactly the input
// each copy saw (the same source rows and watermarks, in the same order),
// and its output, rows and watermarks alike, reaches each consumer as it
// reached that consumer's copy, so each consumer's state and emissions are
// unchanged. Subtrees that could observe their own multiplicity are left
// alone: a window aggregate writing a LATE DATA side table (each copy
// records the late row) and expressions calling a volatile function. Only
// keyed nodes (WindowAggregate, Aggregate, Join) are shared; stateless
// chains over a scan cost less than the fan-out. It runs last, on the
// plan the other rules and PruneColumns produced: a Transform afterwards
// would copy the shared node per use (correct, but unshared again).
func ShareIdenticalSubplans(n Node) (Node, bool) {
	s := &sharer{}
	return s.rewrite(n)
}

// sharer holds the shareable subtrees seen so far, in the order the walk
// (children left to right, each subtree after its inputs) met them.
type sharer struct {
	seen []Node
}

// rewrite replaces n by an earlier identical subtree, or rewrites its
// inputs and records it.
func (s *sharer) rewrite(n Node) (Node, bool) {
	if shareable(n) {
		for _, prev := range s.seen {
			if cols, ok := matchSubplan(prev, n); ok {
				return readAs(prev, cols, n.Schema()), true
			}
		}
	}
	n, changed := mapChildren(n, s.rewrite)
	if shareable(n) {
		s.seen = append(s.seen, n)
	}
	return n, changed
}

// shareable reports whether n may be the root of a shared subtree: a
// keyed node whose subtree neither writes a side table nor calls a
// volatile function.
func shareable(n Node) bool {
	switch n.(type) {
	case *WindowAggregate, *Aggregate, *Join:
	default:
		return false
	}
	ok := true
	Transform(n, func(x Node) (Node, bool) {
		if w, is := x.(*WindowAggregate); is && w.Contract.SideTable != "" {
			ok = false
		}
		if hasVolatile(x) {
			ok = false
		}
		return x, false
	})
	return ok
}

// hasVolatile reports whether one of n's own expressions calls a
// volatile function.
func hasVolatile(n Node) bool {
	var exprs []Scalar
	switch x := n.(type) {
	case *Filter:
		exprs = []Scalar{x.Pred}
	case *Project:
		exprs = x.Exprs
	case *Join:
		exprs = []Scalar{x.Residual}
	case *ProjectSet:
		for _, c := range x.Calls {
			exprs = append(exprs, c.Args...)
		}
	}
	found := false
	for _, e := range exprs {
		if e == nil {
			continue
		}
		rewriteScalar(e, func(s Scalar) (Scalar, bool) {
			if c, ok := s.(*Call); ok {
				if f, ok := funcs.Lookup(c.Fn); ok && f.Volatile {
					found = true
				}
			}
			return s, false
		})
	}
	return found
}

// matchSubplan reports whether n computes what prev computes, and where
// each of n's output columns is in prev's output.
func matchSubplan(prev, n Node) ([]int, bool) {
	if sameSubplan(prev, n, true) {
		return identityMap(len(n.Schema())), true
	}
	pg, ng := groupCols(prev), groupCols(n)
	if len(pg) == 0 || len(pg) != len(ng) || slices.Equal(pg, ng) {
		return nil, false
	}
	cols := identityMap(len(n.Schema()))
	for i, c := range ng {
		j := slices.Index(pg, c)
		if j < 0 || slices.Index(ng, c) != i {
			return nil, false
		}
		cols[i] = j
	}
	// n with prev's key order: equal to prev if the keys were the only
	// difference.
	var reordered Node
	switch x := n.(type) {
	case *Aggregate:
		c := *x
		c.GroupCols = pg
		reordered = &c
	case *WindowAggregate:
		c := *x
		c.GroupCols = pg
		reordered = &c
	}
	return cols, sameSubplan(prev, reordered, true)
}

// groupCols is an aggregate's group keys (nil for other nodes).
func groupCols(n Node) []int {
	switch x := n.(type) {
	case *Aggregate:
		return x.GroupCols
	case *WindowAggregate:
		return x.GroupCols
	}
	return nil
}

// sameSubplan reports whether a and b compute the same rows: the same
// kinds and fields all the way down. Output names are compared except at
// the root.
func sameSubplan(a, b Node, root bool) bool {
	if a == b {
		return true
	}
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	ca, cb := a.Children(), b.Children()
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if !sameSubplan(ca[i], cb[i], false) {
			return false
		}
	}
	return reflect.DeepEqual(ownFields(a, root), ownFields(b, root))
}

// ownFields is a shallow copy of n without its inputs and, for a root,
// without its output names.
func ownFields(n Node, root bool) Node {
	if len(n.Children()) == 0 {
		return n
	}
	c := n.WithChildren(make([]Node, len(n.Children()))...)
	if !root {
		return c
	}
	switch x := c.(type) {
	case *Aggregate:
		x.Names, x.Aggs = nil, unnamed(x.Aggs)
	case *WindowAggregate:
		x.Names, x.Aggs = nil, unnamed(x.Aggs)
	}
	return c
}

// unnamed is aggs without their output names.
func unnamed(aggs []AggCall) []AggCall {
	out := make([]AggCall, len(aggs))
	for i, a := range aggs {
		a.Name = ""
		out[i] = a
	}
	return out
}

// readAs returns shared read as want: output column i is shared's column
// cols[i], named want[i]; shared itself when that is what it outputs.
func readAs(shared Node, cols []int, want types.Schema) Node {
	have := shared.Schema()
	same := len(have) == len(want)
	for i := range cols {
		same = same && cols[i] == i && have[i].Name == want[i].Name
	}
	if same {
		return shared
	}
	p := &Project{Input: shared, Exprs: make([]Scalar, len(cols)), Names: want.Names()}
	for i, c := range cols {
		p.Exprs[i] = &ColRef{Index: c, Name: have[c].Name, T: have[c].Type}
	}
	return p
}

// SharedNodes counts how many parents use each keyed node of the plan
// rooted at n that ShareIdenticalSubplans shared (nodes used once are
// absent).
func SharedNodes(n Node) map[Node]int {
	uses := map[Node]int{}
	visited := map[Node]bool{}
	var walk func(Node)
	walk = func(x Node) {
		for _, c := range x.Children() {
			uses[c]++
			if !visited[c] {
				visited[c] = true
				walk(c)
			}
		}
	}
	walk(n)
	for k, v := range uses {
		if v < 2 || !isKeyed(k) {
			delete(uses, k)
		}
	}
	return uses
}
