package exec

import "github.com/streamsql/streamsql/types"

// Project computes one output column per evaluator. Stateless; the output
// rows are carved from one slab per batch. A plan's Project that lists its
// input's columns in their places is not built (identityProject in
// pipeline.go): its input's rows go on as they are.
type Project struct {
	exprs []Evaluator
	out   Output
}

// NewProject returns a projection.
func NewProject(exprs []Evaluator, out Output) *Project {
	return &Project{exprs: exprs, out: out}
}

// Process implements Operator.
func (p *Project) Process(_ int, b *Batch) error {
	n := len(p.exprs)
	slab := make([]types.Value, len(b.Rows)*n)
	rows := make([]types.Row, len(b.Rows))
	for i, r := range b.Rows {
		row := slab[i*n : (i+1)*n : (i+1)*n]
		for j, e := range p.exprs {
			row[j] = e(r)
		}
		rows[i] = row
	}
	return p.out.Emit(&Batch{Rows: rows, Diffs: b.Diffs, WM: b.WM})
}

// Watermark implements Operator.
func (p *Project) Watermark(_ int, wm int64) error { return p.out.EmitWatermark(wm) }

// Tick implements Operator.
func (p *Project) Tick(int64) error { return nil }
