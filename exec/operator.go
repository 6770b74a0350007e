package exec

import (
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Batch is a run of rows flowing between operators. Diffs is nil for an
// append-only batch (every row an insert); otherwise Diffs[i] is +1 for an
// insert and -1 for a retraction of an identical earlier row. WM, when not
// nil, is the source watermark in force when row i arrived (the watermark
// lateness is judged against); operators that drop or expand rows keep WM
// aligned.
type Batch struct {
	Rows  []types.Row
	Diffs []int8
	WM    []int64
}

// Diff returns the sign of row i.
func (b *Batch) Diff(i int) int8 {
	if b.Diffs == nil {
		return 1
	}
	return b.Diffs[i]
}

// Operator is one incremental operator instance. All calls for a pipeline
// come from one goroutine, in order.
type Operator interface {
	// Process consumes a batch arriving on input port.
	Process(port int, b *Batch) error
	// Watermark tells the operator that input port's event time has
	// reached wm: no more on-time rows with an earlier window will come.
	Watermark(port int, wm int64) error
	// Tick tells the operator the processing time (EMIT EVERY, wall-clock
	// TTL).
	Tick(now int64) error
}

// Stateful is an operator with keyed state that checkpoints.
type Stateful interface {
	Operator
	// Checkpoint writes the keys changed since the last checkpoint.
	Checkpoint(w *state.Writer) error
	// Restore reloads the state written by earlier checkpoints.
	Restore(s *state.Store) error
}

// Output is where an operator sends its results: the next operator and
// the port of it to use.
type Output struct {
	Op   Operator
	Port int
}

// Emit sends a batch downstream (nothing for an empty batch).
func (o Output) Emit(b *Batch) error {
	if o.Op == nil || len(b.Rows) == 0 {
		return nil
	}
	return o.Op.Process(o.Port, b)
}

// EmitWatermark forwards a watermark downstream.
func (o Output) EmitWatermark(wm int64) error {
	if o.Op == nil {
		return nil
	}
	return o.Op.Watermark(o.Port, wm)
}
