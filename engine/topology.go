package engine

import (
	"github.com/streamsql/streamsql/exec"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/planner"
)

// Topology is how data flows between the running objects: sources into
// the pipelines (views, query sinks, TABLEs) that read them, pipelines and
// tables into their sinks, undecodable records into dead-letter tables;
// and each pipeline's physical plan. The dashboard draws it.
type Topology struct {
	Nodes []TopoNode `json:"nodes"`
	Edges []TopoEdge `json:"edges"`
	// Plans has the physical plan and EXPLAIN text of every pipeline, by
	// its name.
	Plans map[string]PipelinePlan `json:"plans"`
}

// TopoNode is one object of a Topology. ID is Kind + ":" + Name.
type TopoNode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Kind is source, view, query (a sink's own query), table, sink or
	// dead_letter.
	Kind      string `json:"kind"`
	Connector string `json:"connector,omitempty"`
}

// TopoEdge says that rows flow from node From to node To; Label says
// which rows when not all of them (late rows, dead letters).
type TopoEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label,omitempty"`
}

// PipelinePlan is one pipeline's plan.
type PipelinePlan struct {
	Graph       planner.PlanGraph `json:"graph"`
	Parallelism int               `json:"parallelism"`
	Explain     string            `json:"explain"`
}

// topoBuilder collects nodes once each.
type topoBuilder struct {
	t    Topology
	seen map[string]bool
}

// node adds a node (once) and returns its id.
func (b *topoBuilder) node(kind, name, connector string) string {
	id := kind + ":" + name
	if !b.seen[id] {
		b.seen[id] = true
		b.t.Nodes = append(b.t.Nodes, TopoNode{ID: id, Name: name, Kind: kind, Connector: connector})
	}
	return id
}

func (b *topoBuilder) edge(from, to, label string) {
	b.t.Edges = append(b.t.Edges, TopoEdge{From: from, To: to, Label: label})
}

// Topology returns the running objects, how rows flow between them and
// every pipeline's plan.
func (e *Engine) Topology() Topology {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := &topoBuilder{t: Topology{Plans: map[string]PipelinePlan{}}, seen: map[string]bool{}}
	set := e.settingsForPlan()
	for _, name := range sortedKeys(e.views) {
		v := e.views[name]
		kind := "view"
		if o, ok := e.cat.Get(v.plan.Name); ok && o.Kind == catalog.Sink {
			kind = "query"
		}
		id := b.node(kind, v.plan.Name, "")
		for _, r := range v.readers {
			b.edge(e.readerNode(b, r), id, "")
		}
		for _, f := range v.upstream {
			b.edge(b.node("view", f.from.plan.Name, ""), id, "changelog")
		}
		for _, f := range v.tables {
			b.edge(b.node("table", f.t.obj.Name, ""), id, "changelog")
		}
		var contract []string
		for _, k := range v.sinks.List() {
			label := ""
			if k.Side() {
				label = "late rows"
			}
			b.edge(id, b.node("sink", k.Name(), k.Connector()), label)
			contract = append(contract, k.ContractLine())
		}
		b.t.Plans[v.plan.Name] = PipelinePlan{Graph: planner.Graph(v.plan.Optimized, v.par), Parallelism: v.par,
			Explain: redact(v.plan.Explain(set, contract))}
	}
	for _, name := range sortedKeys(e.tables) {
		t := e.tables[name]
		id := b.node("table", t.obj.Name, "")
		if t.rd != nil {
			b.edge(e.readerNode(b, t.rd), id, "")
		}
		for _, k := range t.sinks.List() {
			b.edge(id, b.node("sink", k.Name(), k.Connector()), "")
		}
	}
	for _, name := range sortedKeys(e.dlq) {
		d := e.dlq[name]
		id := b.node("dead_letter", d.name, "")
		for _, k := range d.sinks.List() {
			b.edge(id, b.node("sink", k.Name(), k.Connector()), "")
		}
	}
	return b.t
}

// readerNode adds the source r reads (and the edge of its dead letters)
// and returns the source's id.
func (e *Engine) readerNode(b *topoBuilder, r *exec.Source) string {
	kind := "source"
	if r.Object().Kind == catalog.View {
		kind = "view"
	}
	fresh := !b.seen[kind+":"+r.Object().Name]
	id := b.node(kind, r.Object().Name, strings.ToLower(r.Object().Options["connector"]))
	if fresh && r.OnError() == onErrorDeadLetter {
		b.edge(id, b.node("dead_letter", r.Object().DeadLetterTable(), ""), "dead letters")
	}
	return id
}
