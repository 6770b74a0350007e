package planner

import (
	"fmt"
	"strings"
)

// PlanGraph is the physical plan as data, the shape Physical prints as
// text: one node per operator (and per exchange and local phase the
// parallel plan adds), each edge from an input to the node it feeds. The
// dashboard draws it.
type PlanGraph struct {
	Nodes []PlanNode   `json:"nodes"`
	Edges []PlanEdge   `json:"edges"`
	ops   int          // plan nodes numbered so far (PlanNode.Operator)
	done  map[Node]int // nodes added so far: a shared node is added once
}

// PlanNode is one operator of a PlanGraph.
type PlanNode struct {
	ID int `json:"id"`
	// Operator numbers the plan's nodes in pre-order from the root (0),
	// the numbering of EXPLAIN ANALYZE and of the engine's per-operator
	// figures; -1 for the exchanges and local phases the parallel plan
	// adds (their rows are their node's).
	Operator int `json:"operator"`
	// Op is the operator's kind (Scan, Filter, WindowAggregate, Exchange,
	// ...), Detail the rest of its EXPLAIN line.
	Op     string `json:"op"`
	Detail string `json:"detail"`
	// Parallelism is the number of instances of a keyed operator or
	// exchange (0 for operators that run where their input does).
	Parallelism int `json:"parallelism,omitempty"`
	// AppendOnly says whether the output only inserts rows (false:
	// retracting); Watermark names the output's watermark column;
	// StateBound how the operator's state is bounded ("" for stateless).
	AppendOnly bool   `json:"appendOnly"`
	Watermark  string `json:"watermark,omitempty"`
	StateBound string `json:"stateBound,omitempty"`
	// Source is the scanned source's name (Scan nodes only).
	Source string `json:"source,omitempty"`
}

// PlanEdge says that rows flow from node From to node To.
type PlanEdge struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Graph returns n's physical plan at parallelism par as a PlanGraph; the
// root is node 0.
func Graph(n Node, par int) PlanGraph {
	if par < 1 {
		par = 1
	}
	var g PlanGraph
	g.addNode(n, par)
	return g
}

// add appends a node and returns its id.
func (g *PlanGraph) add(pn PlanNode) int {
	pn.ID = len(g.Nodes)
	g.Nodes = append(g.Nodes, pn)
	return pn.ID
}

// link records that from feeds to.
func (g *PlanGraph) link(from, to int) { g.Edges = append(g.Edges, PlanEdge{From: from, To: to}) }

// addNode adds n, the exchanges in front of it when keyed and parallel,
// and its inputs; it returns n's id. A node with several consumers (see
// ShareIdenticalSubplans) is added once and linked to each.
func (g *PlanGraph) addNode(n Node, par int) int {
	if id, ok := g.done[n]; ok {
		return id // a shared node: one operator, one more consumer
	}
	np := InstancesOf(n, par)
	pn := planNode(n, np)
	pn.Operator = g.ops
	g.ops++
	id := g.add(pn)
	if g.done == nil {
		g.done = map[Node]int{}
	}
	g.done[n] = id
	feed := id
	if isKeyed(n) && np > 1 {
		feed = g.add(PlanNode{Op: "Exchange", Operator: -1, Detail: "hash(" + keysOf(n) + ")", Parallelism: np, AppendOnly: g.Nodes[id].AppendOnly})
		g.link(feed, id)
		if w, ok := n.(*WindowAggregate); ok && w.TwoPhase {
			local := g.add(PlanNode{Op: "LocalWindowAggregate", Operator: -1, Detail: fmt.Sprintf("%s partial aggs=[%s]", w.Window.Format(w.Input.Schema()), joinAggs(w.Aggs, w.Input.Schema())), Parallelism: par, AppendOnly: true})
			g.link(local, feed)
			split := g.add(PlanNode{Op: "Exchange", Operator: -1, Detail: "split evenly", Parallelism: par, AppendOnly: true})
			g.link(split, local)
			feed = split
		}
	}
	for _, c := range n.Children() {
		g.link(g.addNode(c, par), feed)
	}
	return id
}

// planNode describes n alone.
func planNode(n Node, par int) PlanNode {
	op, detail, _ := strings.Cut(n.String(), " ")
	if name, phase, ok := strings.Cut(op, "("); ok {
		// WindowAggregate(global): the kind, and the phase in the detail.
		op, detail = name, strings.TrimSpace("("+phase+" "+detail)
	}
	p := PropsOf(n)
	pn := PlanNode{Op: op, Detail: detail, AppendOnly: p.AppendOnly, StateBound: p.StateBound}
	if p.TimeCol >= 0 {
		if s := n.Schema(); p.TimeCol < len(s) {
			pn.Watermark = s[p.TimeCol].Name
		}
	}
	if isKeyed(n) {
		pn.Parallelism = par
	}
	if s, ok := n.(*Scan); ok {
		pn.Source = s.Name
	}
	return pn
}

// keysOf lists the columns a keyed operator routes rows by.
func keysOf(n Node) string {
	switch x := n.(type) {
	case *WindowAggregate:
		return colList(x.GroupCols, x.Input.Schema())
	case *Aggregate:
		return colList(x.GroupCols, x.Input.Schema())
	case *Join:
		return colList(x.LeftKeys, x.Left.Schema()) + " | " + colList(x.RightKeys, x.Right.Schema())
	case *SemiJoin:
		return colList(x.LeftKeys, x.Left.Schema()) + " | " + colList(x.RightKeys, x.Right.Schema())
	case *WindowTopN:
		return colList(x.Partition, x.Input.Schema())
	case *TopN:
		return colList(x.Partition, x.Input.Schema())
	case *OverAggregate:
		return colList(x.Partition, x.Input.Schema())
	}
	return ""
}
