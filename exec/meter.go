package exec

import (
	"sync/atomic"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// OpStats are the figures of one plan node of a running pipeline, counted
// per batch (one atomic add per batch, nothing per row): the rows the
// node emitted and its output watermark. Rows in are its children's rows
// out (a source scan's rows in are the rows fed to it).
type OpStats struct {
	// Node is the plan node (of the view's optimized plan) the figures
	// belong to; Children index the pipeline's Ops.
	Node     planner.Node
	Children []int
	rowsOut  atomic.Int64
	wm       atomic.Int64
	// down sums the nanoseconds the operators after this node spent on
	// its batches and watermarks (0 without a stopwatch).
	down  atomic.Int64
	state func() int64
	size  func() StateSize
}

// RowsOut is the number of rows (inserts and retractions) the node
// emitted since the pipeline started.
func (s *OpStats) RowsOut() int64 { return s.rowsOut.Load() }

// Watermark is the last watermark the node emitted (types.MinTime before
// the first).
func (s *OpStats) Watermark() int64 { return s.wm.Load() }

// StateKeys is the number of keys (groups, windows, join keys, view rows)
// the node's operator holds in memory; ok is false for stateless nodes.
// The pipeline must not be processing (the engine holds its lock).
func (s *OpStats) StateKeys() (n int64, ok bool) {
	if s.state == nil {
		return 0, false
	}
	return s.state(), true
}

// State sizes the node's state (see StateSize); ok is false for
// stateless nodes. The pipeline must not be processing.
func (s *OpStats) State() (size StateSize, ok bool) {
	if s.size != nil {
		return s.size(), true
	}
	if s.state != nil {
		return StateSize{Keys: s.state()}, true
	}
	return StateSize{}, false
}

// Downstream is the time the operators after this node (its parent and
// up to the view store and its sinks) spent on what it emitted, in
// nanoseconds. A node's own processing time is its children's Downstream
// minus its own (the engine computes it: see ProcessingNanos).
func (s *OpStats) Downstream() int64 { return s.down.Load() }

// ProcessingNanos is the time node ops[i] itself spent, in nanoseconds:
// the time its inputs' emits took, less the part its own emits took. A
// leaf (a source scan) does no work of its own: 0.
func ProcessingNanos(ops []*OpStats, i int) int64 {
	var in int64
	for _, c := range ops[i].Children {
		in += ops[c].Downstream()
	}
	if len(ops[i].Children) == 0 {
		return 0
	}
	return max(in-ops[i].Downstream(), 0)
}

// stateSizer is an operator that can count the keys of its state.
type stateSizer interface {
	StateKeys() int64
}

// meter sits between a node's operator and the operator it emits to, and
// counts what passes: the node's rows out and watermark.
type meter struct {
	next Output
	st   *OpStats
	// now is a monotonic clock in nanoseconds (Env.Stopwatch); nil: no
	// timing.
	now func() int64
}

func newOpStats(n planner.Node) *OpStats {
	st := &OpStats{Node: n}
	st.wm.Store(types.MinTime)
	return st
}

// Process implements Operator.
func (m *meter) Process(_ int, b *Batch) error {
	m.st.rowsOut.Add(int64(len(b.Rows)))
	if m.now == nil || len(b.Rows) == 0 {
		return m.next.Emit(b)
	}
	start := m.now()
	err := m.next.Emit(b)
	m.st.down.Add(m.now() - start)
	return err
}

// Watermark implements Operator.
func (m *meter) Watermark(_ int, wm int64) error {
	m.st.wm.Store(wm)
	if m.now == nil {
		return m.next.EmitWatermark(wm)
	}
	start := m.now()
	err := m.next.EmitWatermark(wm)
	m.st.down.Add(m.now() - start)
	return err
}

// Tick implements Operator: ticks go to stateful operators directly.
func (m *meter) Tick(int64) error { return nil }
