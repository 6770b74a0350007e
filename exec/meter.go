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
	state    func() int64
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

// stateSizer is an operator that can count the keys of its state.
type stateSizer interface {
	StateKeys() int64
}

// meter sits between a node's operator and the operator it emits to, and
// counts what passes: the node's rows out and watermark.
type meter struct {
	next Output
	st   *OpStats
}

func newOpStats(n planner.Node) *OpStats {
	st := &OpStats{Node: n}
	st.wm.Store(types.MinTime)
	return st
}

// Process implements Operator.
func (m *meter) Process(_ int, b *Batch) error {
	m.st.rowsOut.Add(int64(len(b.Rows)))
	return m.next.Emit(b)
}

// Watermark implements Operator.
func (m *meter) Watermark(_ int, wm int64) error {
	m.st.wm.Store(wm)
	return m.next.EmitWatermark(wm)
}

// Tick implements Operator: ticks go to stateful operators directly.
func (m *meter) Tick(int64) error { return nil }
