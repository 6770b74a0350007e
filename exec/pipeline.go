package exec

import (
	"sync"

	"fmt"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Pipeline is the running dataflow of one materialized view: entry points
// per source scan, the stateful operators (for checkpoints) and the view
// store.
type Pipeline struct {
	View     string
	Scans    []ScanInput
	Stateful []Stateful
	View0    *Materialize
	Side     *Materialize // the side table's store, or nil
	SideName string
	// Ops has the figures of every plan node, the root Materialize first,
	// then its input's nodes in pre-order (see meter.go).
	Ops []*OpStats
}

// ScanInput is where rows of one source enter the pipeline: the source
// columns the scan reads, in order, and the operator to feed.
type ScanInput struct {
	Source string
	Cols   []int
	Out    Output
	// View marks a scan of a materialized view: the engine feeds it the
	// view's changelog (inserts and deletes) and output watermark.
	View bool
	// Table marks a scan of a TABLE: the engine feeds it the table's
	// changelog (an upsert deletes the row it replaces, then inserts).
	Table bool
}

// Env is what a pipeline needs from the engine.
type Env struct {
	Parallelism int
	Late        *lateness.Counters
	EvalErrors  *EvalErrors
	Sink        func(changes []connectors.Change) // the view's changelog, or nil
	Now         int64                             // processing time at start
	// Store and StateBudget let stateful operators spill: each instance
	// keeps at most StateBudget windows', groups', rows' values in memory
	// (0: no cap). Memory, when set, is the bytes of state in memory the
	// joins, aggregates, window aggregates and view stores of every
	// pipeline share (see
	// MemoryBudget); each instance spills past its share.
	Store       *state.Store
	StateBudget int
	Memory      *MemoryBudget
	// PassThrough builds a pipeline whose root keeps no rows (a sink with
	// its own query).
	PassThrough bool
	// SideSchema is the side table's schema (source columns + reason +
	// watermark), when the view has one.
	SideSchema types.Schema
	// Stopwatch, when set, is a monotonic clock in nanoseconds the
	// meters time each node's downstream work with (OpStats.Downstream).
	Stopwatch func() int64
	// SideSink, when set, receives the side table's changes (its rows as
	// inserts), for sinks reading the side table.
	SideSink func([]connectors.Change)
	// Sinks, when set, are the sink operators under the view's
	// Materialize (and its side table's): they get the changes after
	// Sink (SideSink) has seen them.
	Sinks *Sinks
}

// out is what the root (side: the side table) hands its changes to:
// the engine's observer, then the sink operators.
func (env Env) out(side bool) func([]connectors.Change) {
	observe := env.Sink
	if side {
		observe = env.SideSink
	}
	sinks := env.Sinks
	if sinks == nil {
		return observe
	}
	return func(ch []connectors.Change) {
		if observe != nil {
			observe(ch)
		}
		_ = sinks.Write(ch, side) // kept: Sinks.Err stops the pipeline
	}
}

// BuildPipeline turns an optimized plan rooted at a Materialize into
// operators.
func BuildPipeline(root *planner.Materialize, env Env) (*Pipeline, error) {
	if env.Parallelism < 1 {
		env.Parallelism = 1
	}
	p := &Pipeline{View: root.View}
	if env.PassThrough {
		p.View0 = NewPassThrough(root.Key, env.out(false))
	} else {
		p.View0 = NewMaterialize(ViewStoreID(root.View), root.Key, env.out(false)).WithSpill(env.Store, env.StateBudget, len(root.Schema()), env.Memory.join())
	}
	p.Stateful = append(p.Stateful, p.View0)
	rootStats := newOpStats(root)
	rootStats.state = p.View0.StateKeys
	rootStats.size = p.View0.stateSize
	p.Ops = append(p.Ops, rootStats)
	b := &pipeBuilder{p: p, env: env, prefix: "v/" + root.View + "/", shared: planner.SharedNodes(root), tees: map[planner.Node]builtShared{}}
	if !env.PassThrough && env.Store != nil {
		b.viewTopN, b.topnView = topNViewOf(root, b.shared)
		if b.topnView != nil {
			b.topnView.readFrom(p.View0)
		}
	}
	if err := b.build(root.Input, Output{Op: p.View0}); err != nil {
		return nil, err
	}
	return p, nil
}

// ChangedBytes is what the pipeline's view stores (the view's and its
// side table's) changed since the last checkpoint, in row encodings:
// rows they keep in memory until the next checkpoint writes them.
func (p *Pipeline) ChangedBytes() int64 {
	var n int64
	for _, m := range []*Materialize{p.View0, p.Side} {
		if m != nil {
			n += m.changedBytes
		}
	}
	return n
}

// memoryMember is an operator holding a share of a MemoryBudget.
type memoryMember interface {
	releaseMemory()
}

// Release gives the pipeline's shares of the memory budget back to the
// other pipelines; call it once the pipeline stops.
func (p *Pipeline) Release() {
	for _, s := range p.Stateful {
		ops := []Operator{s}
		if par, ok := s.(*Parallel); ok {
			ops = par.inst
		}
		for _, op := range ops {
			if m, ok := op.(memoryMember); ok {
				m.releaseMemory()
			}
		}
	}
}

type pipeBuilder struct {
	p      *Pipeline
	env    Env
	prefix string
	n      int
	parent int // index in p.Ops of the node being built's parent
	// shared are the plan's nodes with several consumers; tees the
	// built ones' Tee and Ops index.
	shared map[planner.Node]int
	// viewTopN is the keyed TopN whose ranked rows the view holds, if
	// any, and topnView how (topn_view.go).
	viewTopN *planner.TopN
	topnView *TopNView
	tees     map[planner.Node]builtShared
}

// builtShared is a shared node already wired: the Tee its consumers
// subscribe to and its figures' index in Pipeline.Ops.
type builtShared struct {
	tee *Tee
	op  int
}

// meter registers n's figures and returns out behind a meter counting
// what n emits, with the builder's parent set to n for its children; the
// returned func restores the parent.
func (b *pipeBuilder) meter(n planner.Node, out Output) (Output, *OpStats, func()) {
	st := newOpStats(n)
	idx := len(b.p.Ops)
	b.p.Ops = append(b.p.Ops, st)
	parent := b.parent
	b.p.Ops[parent].Children = append(b.p.Ops[parent].Children, idx)
	b.parent = idx
	return Output{Op: &meter{next: out, st: st, now: b.env.Stopwatch}}, st, func() { b.parent = parent }
}

// keyedState builds a stateful operator partitioned by keys (mk makes
// each parallel instance, keep telling it which keys it owns), registers
// it for ticks and checkpoints, measures its state into st, and builds
// input into it.
func (b *pipeBuilder) keyedState(input planner.Node, keys []int, out Output, st *OpStats, mk func(o Output, keep func(types.Row) bool) Operator) error {
	op := b.keyed(b.env.Parallelism, [][]int{keys}, out, func(_ int, o Output, keep func(types.Row) bool) Operator { return mk(o, keep) })
	b.addStateful(op)
	sized(st, op)
	return b.build(input, Output{Op: op})
}

// sized records op's state size in st when op keeps keyed state.
func sized(st *OpStats, op Operator) {
	if s, ok := op.(stateSizer); ok {
		st.state = s.StateKeys
	}
	if s, ok := op.(stateMeasurer); ok {
		st.size = s.stateSize
	}
}

func (b *pipeBuilder) id() string {
	b.n++
	return fmt.Sprintf("%sop%d/", b.prefix, b.n)
}

// sideFunc returns the writer into the view's side table.
func (b *pipeBuilder) sideFunc(table string) func(types.Row, string, int64) {
	if table == "" {
		return nil
	}
	if b.p.Side == nil {
		b.p.Side = NewMaterialize(SideStoreID(b.p.View), nil, b.env.out(true)).WithSpill(b.env.Store, b.env.StateBudget, 0, b.env.Memory.join())
		b.p.SideName = table
		b.p.Stateful = append(b.p.Stateful, b.p.Side)
	}
	side := b.p.Side
	var mu sync.Mutex // parallel instances share the side table
	return func(r types.Row, reason string, wm int64) {
		mu.Lock()
		defer mu.Unlock()
		row := make(types.Row, 0, len(r)+2)
		row = append(row, r...)
		row = append(row, types.StringValue(reason), types.TimestampValue(wm))
		_ = side.Process(0, &Batch{Rows: []types.Row{row}})
	}
}

// keepFor returns the restore filter of instance i of n.
func keepFor(i, n int) func(types.Row) bool {
	if n <= 1 {
		return nil
	}
	return func(k types.Row) bool { return Owner(k, n) == i }
}

func (b *pipeBuilder) keyed(n int, keys [][]int, out Output, mk func(i int, out Output, keep func(types.Row) bool) Operator) Operator {
	if n <= 1 {
		return mk(0, out, nil)
	}
	return NewParallel(n, keys, out, func(i int, o Output) Operator { return mk(i, o, keepFor(i, n)) })
}

func (b *pipeBuilder) addStateful(op Operator) {
	if s, ok := op.(Stateful); ok {
		b.p.Stateful = append(b.p.Stateful, s)
	}
}

// build wires node n so its output goes to out.
func (b *pipeBuilder) build(n planner.Node, out Output) error {
	if b.shared[n] > 1 {
		return b.buildShared(n, out)
	}
	out, st, done := b.meter(n, out)
	defer done()
	return b.buildOp(n, out, st)
}

// buildShared wires a node with several consumers: the first use builds
// its operators once, behind a Tee, and every use subscribes out to that
// Tee. A later use takes the state ids its own copy would have taken, so
// every other operator keeps the ids (and the checkpointed state) it has
// in the unshared plan; the shared operator's state stays under the first
// use's ids.
func (b *pipeBuilder) buildShared(n planner.Node, out Output) error {
	if bs, ok := b.tees[n]; ok {
		bs.tee.Subscribe(out)
		b.p.Ops[b.parent].Children = append(b.p.Ops[b.parent].Children, bs.op)
		b.n += statefulNodes(n)
		return nil
	}
	tee := &Tee{}
	tee.Subscribe(out)
	b.tees[n] = builtShared{tee: tee, op: len(b.p.Ops)}
	teeOut, st, done := b.meter(n, Output{Op: tee})
	defer done()
	return b.buildOp(n, teeOut, st)
}

// identityProject reports whether p passes its input's columns through
// as they are, each in its place (a SELECT listing a GROUP BY's columns
// and aggregates in their order, as Nexmark q16): it is then built as no
// operator, its meter alone between its input and its consumer, rather
// than copying every row (q16's aggregate emits two rows a bid).
func identityProject(p *planner.Project) bool {
	if p.Input == nil || len(p.Exprs) != len(p.Input.Schema()) {
		return false
	}
	for i, e := range p.Exprs {
		if c, ok := e.(*planner.ColRef); !ok || c.Index != i {
			return false
		}
	}
	return true
}

// statefulNodes counts the nodes of the tree under n that take a state
// id when built (each use of a shared node counted, as unshared).
func statefulNodes(n planner.Node) int {
	c := 0
	switch n.(type) {
	case *planner.WindowAggregate, *planner.Aggregate, *planner.Join, *planner.TemporalFilter, *planner.WindowTopN, *planner.TopN, *planner.SemiJoin, *planner.OverAggregate:
		c = 1
	}
	for _, ch := range n.Children() {
		c += statefulNodes(ch)
	}
	return c
}

// buildOp wires node n's operator to out (n's meter); st gets its state
// size.
func (b *pipeBuilder) buildOp(n planner.Node, out Output, st *OpStats) error {
	par := b.env.Parallelism
	switch x := n.(type) {
	case *planner.Scan:
		b.p.Scans = append(b.p.Scans, ScanInput{Source: x.Name, Cols: x.Cols, Out: out, View: x.Kind == planner.ScanView, Table: x.Kind == planner.ScanTable})
		return nil
	case *planner.Filter:
		pred, err := CompileFilter(x.Pred, b.env.EvalErrors)
		if err != nil {
			return err
		}
		return b.build(x.Input, Output{Op: NewFilter(pred, out)})
	case *planner.TemporalFilter:
		// One instance at any parallelism: it sits on the source's
		// single stream, before any exchange.
		op, err := NewTemporalFilter(TemporalFilterConfig{ID: b.id(), Node: x, Out: out, Store: b.env.Store, Errs: b.env.EvalErrors})
		if err != nil {
			return err
		}
		b.addStateful(op)
		sized(st, op)
		return b.build(x.Input, Output{Op: op})
	case *planner.Project:
		if identityProject(x) { // its input's rows as they are
			return b.build(x.Input, out)
		}
		exprs := make([]Evaluator, len(x.Exprs))
		for i, e := range x.Exprs {
			ev, err := CompileScalar(e, b.env.EvalErrors)
			if err != nil {
				return err
			}
			exprs[i] = ev
		}
		return b.build(x.Input, Output{Op: NewProject(exprs, out)})
	case *planner.ProjectSet:
		if x.Input == nil && len(x.Calls) == 0 {
			return sqlerr.New(sqlerr.FeatureNotSupport, "a view needs a FROM clause: SELECT without FROM runs only as an ad-hoc query").
				WithHint("read a source, a table or a view: SELECT ... FROM src")
		}
		if x.Input == nil {
			return sqlerr.New(sqlerr.FeatureNotSupport, "a view cannot read only a set-returning function").
				WithHint("call it over a source's rows: FROM src, unnest(src.col)")
		}
		op, err := NewProjectSet(x, b.env.EvalErrors, out)
		if err != nil {
			return err
		}
		return b.build(x.Input, Output{Op: op})
	case *planner.WindowAssign:
		if x.Window.Kind == "session" {
			return sqlerr.New(sqlerr.FeatureNotSupport, "SESSION windows must be aggregated (GROUP BY window_start)")
		}
		return b.build(x.Input, Output{Op: NewWindowAssign(x.Window.TimeCol, x.Window.Size, x.Window.Slide, out)})
	case *planner.WindowAggregate:
		id := b.id()
		side := b.sideFunc(x.Contract.SideTable)
		if x.TwoPhase && par > 1 {
			return b.splitWindowAggregate(x, id, side, out, st)
		}
		return b.keyedState(x.Input, x.GroupCols, out, st, func(o Output, keep func(types.Row) bool) Operator {
			return NewWindowAggregate(WindowAggregateConfig{ID: id, Node: x, Out: o, Side: side, Late: b.env.Late, Keep: keep, StartsAt: b.env.Now, Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory})
		})
	case *planner.Aggregate:
		id := b.id()
		tc := planner.TimeColumn(x.Input)
		return b.keyedState(x.Input, x.GroupCols, out, st, func(o Output, keep func(types.Row) bool) Operator {
			return NewAggregate(AggregateConfig{ID: id, Node: x, TimeCol: tc, Out: o, Keep: keep, Now: b.env.Now,
				Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory})
		})
	case *planner.WindowTopN:
		id := b.id()
		return b.keyedState(x.Input, x.Partition, out, st, func(o Output, keep func(types.Row) bool) Operator {
			return NewWindowTopN(WindowTopNConfig{ID: id, Node: x, Out: o, Late: b.env.Late, Keep: keep,
				Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory})
		})
	case *planner.OverAggregate:
		id := b.id()
		return b.keyedState(x.Input, x.Partition, out, st, func(o Output, keep func(types.Row) bool) Operator {
			c := OverAggregateConfig{ID: id, Node: x, Out: o, Late: b.env.Late, Keep: keep,
				Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory}
			if x.Updating() {
				return NewOverUpdate(c, b.env.Now)
			}
			return NewOverAggregate(c)
		})
	case *planner.TopN:
		id, all, tc := b.id(), x.KeepsAll(), planner.TimeColumn(x.Input)
		var view *TopNView
		if x == b.viewTopN {
			view = b.topnView
		}
		return b.keyedState(x.Input, x.Partition, out, st, func(o Output, keep func(types.Row) bool) Operator {
			return NewTopN(TopNConfig{ID: id, Node: x, KeepAll: all, Out: o, Keep: keep, TimeCol: tc, Now: b.env.Now,
				Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory, View: view})
		})
	case *planner.Union:
		op := NewUnion(len(x.Inputs), out)
		for i, in := range x.Inputs {
			if err := b.build(in, Output{Op: op, Port: i}); err != nil {
				return err
			}
		}
		return nil
	case *planner.Join:
		if x.Kind.Temporal() {
			return b.temporalJoin(x, out, st)
		}
		id := b.id()
		return b.keyedJoin(par, x.LeftKeys, x.RightKeys, x.Left, x.Right, x.Residual, out, st,
			func(i int, o Output, keep func(types.Row) bool, residual func(types.Row) bool) Operator {
				var k func(int, types.Row) bool
				if keep != nil {
					k = func(_ int, key types.Row) bool { return keep(key) }
				}
				return NewJoin(JoinConfig{ID: id, Node: x, Residual: residual, Out: o, Late: b.env.Late, Keep: k,
					Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory, Now: b.env.Now,
					Instance: i, Instances: par})
			})
	case *planner.SemiJoin:
		return b.semiJoin(x, out, st)
	}
	return sqlerr.New(sqlerr.FeatureNotSupport, "cannot run plan node %T in a view", n)
}

// temporalJoin wires a join FOR SYSTEM_TIME AS OF, hash-partitioned by
// its keys.
func (b *pipeBuilder) temporalJoin(x *planner.Join, out Output, st *OpStats) error {
	id := b.id()
	return b.keyedJoin(b.env.Parallelism, x.LeftKeys, x.RightKeys, x.Left, x.Right, x.Residual, out, st,
		func(_ int, o Output, keep func(types.Row) bool, residual func(types.Row) bool) Operator {
			return NewTemporalJoin(TemporalJoinConfig{ID: id, Node: x, Residual: residual, Out: o, Late: b.env.Late, Keep: keep,
				Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory})
		})
}

// semiJoin wires a semi or anti join, hash-partitioned by its keys. A
// null-aware one (NOT IN) runs as one instance: whether any right row
// or any NULL one is there is a fact about the whole right input.
func (b *pipeBuilder) semiJoin(x *planner.SemiJoin, out Output, st *OpStats) error {
	id := b.id()
	par := planner.InstancesOf(x, b.env.Parallelism)
	return b.keyedJoin(par, x.LeftKeys, x.RightKeys, x.Left, x.Right, x.Residual, out, st,
		func(_ int, o Output, keep func(types.Row) bool, residual func(types.Row) bool) Operator {
			return NewSemiJoin(SemiJoinConfig{ID: id, Node: x, Residual: residual, Out: o, Keep: keep, Now: b.env.Now,
				Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory})
		})
}

// keyedJoin wires a two-input operator as par instances hash-partitioned
// by the keys of its inputs (left on port 0, right on port 1), each
// instance with its own compiled residual: evaluators may keep scratch
// state and instances run concurrently. mk builds instance i.
func (b *pipeBuilder) keyedJoin(par int, leftKeys, rightKeys []int, left, right planner.Node, residual planner.Scalar, out Output, st *OpStats,
	mk func(i int, o Output, keep func(types.Row) bool, residual func(types.Row) bool) Operator) error {
	var cerr error
	op := b.keyed(par, [][]int{leftKeys, rightKeys}, out, func(i int, o Output, keep func(types.Row) bool) Operator {
		var res func(types.Row) bool
		if residual != nil {
			var err error
			if res, err = CompileFilter(residual, b.env.EvalErrors); err != nil {
				cerr = err
			}
		}
		return mk(i, o, keep, res)
	})
	if cerr != nil {
		return cerr
	}
	b.addStateful(op)
	sized(st, op)
	if err := b.build(left, Output{Op: op, Port: 0}); err != nil {
		return err
	}
	return b.build(right, Output{Op: op, Port: 1})
}

// Restore reloads every operator's state.
func (p *Pipeline) Restore(s *state.Store) error {
	for _, op := range p.Stateful {
		if err := op.Restore(s); err != nil {
			return fmt.Errorf("restore view %s: %w", p.View, err)
		}
	}
	return nil
}

// Checkpoint writes every operator's changed state.
func (p *Pipeline) Checkpoint(w *state.Writer) error {
	for _, op := range p.Stateful {
		if err := op.Checkpoint(w); err != nil {
			return fmt.Errorf("checkpoint view %s: %w", p.View, err)
		}
	}
	return nil
}

// splitWindowAggregate wires a two-phase window aggregate: the input is
// split evenly over local phases, whose partials are routed by key to the
// global phases.
func (b *pipeBuilder) splitWindowAggregate(x *planner.WindowAggregate, id string, side func(types.Row, string, int64), out Output, st *OpStats) error {
	par := b.env.Parallelism
	keys := make([]int, len(x.GroupCols))
	for i := range keys {
		keys[i] = i // partial rows start with the group columns
	}
	global := b.keyed(par, [][]int{keys}, out, func(i int, o Output, keep func(types.Row) bool) Operator {
		return NewWindowAggregate(WindowAggregateConfig{ID: id, Node: x, Out: o, Side: side, Late: b.env.Late, Keep: keep,
			StartsAt: b.env.Now, Store: b.env.Store, Budget: b.env.StateBudget, Memory: b.env.Memory, Partial: true})
	})
	b.addStateful(global)
	sized(st, global)
	local := NewParallel(par, nil, Output{Op: global}, func(_ int, o Output) Operator {
		return NewLocalWindowAggregate(x, o, side, b.env.Late)
	})
	return b.build(x.Input, Output{Op: local})
}
