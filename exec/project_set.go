package exec

import (
	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// ProjectSet expands each input row into the rows of its set-returning
// calls (planner.ProjectSet): output row k is the input row, the k-th
// value of each call (NULL past the end of a shorter set) and, with
// ordinality, k. A row whose sets are all empty yields nothing, or with
// outer the row padded with NULLs. Stateless: a row's output depends on
// the row alone, so each output row carries its input row's sign and a
// retraction retracts every row the insert produced; each also carries
// its input row's watermark. A call that fails (a non-array to
// jsonb_array_elements) counts the error and yields an empty set.
type ProjectSet struct {
	calls      []setCall
	width      int // input columns
	ordinality bool
	outer      bool
	errs       *EvalErrors
	out        Output
	sets       [][]types.Value // scratch: each call's set for the current row
}

// setCall is one compiled set-returning call.
type setCall struct {
	fn     funcs.SetImpl
	strict bool
	args   []Evaluator
	vals   []types.Value // scratch argument values
}

// NewProjectSet compiles n's calls; runtime failures are counted in errs.
func NewProjectSet(n *planner.ProjectSet, errs *EvalErrors, out Output) (*ProjectSet, error) {
	p := &ProjectSet{ordinality: n.Ordinality, outer: n.Outer, errs: errs, out: out}
	if n.Input != nil {
		p.width = len(n.Input.Schema())
	}
	for _, c := range n.Calls {
		f, ok := funcs.Lookup(c.Fn)
		if !ok || !f.ReturnsSet() {
			return nil, sqlerr.New(sqlerr.UndefinedFunction, "set-returning function %s is not known to exec", c.Fn)
		}
		args := make([]Evaluator, len(c.Args))
		for i, a := range c.Args {
			ev, err := CompileScalar(a, errs)
			if err != nil {
				return nil, err
			}
			args[i] = ev
		}
		p.calls = append(p.calls, setCall{fn: f.Set, strict: f.Strict, args: args, vals: make([]types.Value, len(args))})
	}
	p.sets = make([][]types.Value, len(p.calls))
	return p, nil
}

// eval returns c's set for row r (empty on NULL arguments of a strict
// function and on failure).
func (c *setCall) eval(r types.Row, errs *EvalErrors) []types.Value {
	for i, a := range c.args {
		c.vals[i] = a(r)
		if c.strict && c.vals[i].K == types.Null {
			return nil
		}
	}
	set, err := c.fn(c.vals)
	if err != nil {
		errs.record(err)
		return nil
	}
	return set
}

// Expand appends the output rows of input row r to dst.
func (p *ProjectSet) Expand(r types.Row, dst []types.Row) []types.Row {
	n := 0
	for i := range p.calls {
		p.sets[i] = p.calls[i].eval(r, p.errs)
		n = max(n, len(p.sets[i]))
	}
	if n == 0 && p.outer {
		return append(dst, p.row(r, -1))
	}
	for k := range n {
		dst = append(dst, p.row(r, k))
	}
	return dst
}

// row builds output row k of input row r (k < 0: the NULL-padded row).
func (p *ProjectSet) row(r types.Row, k int) types.Row {
	w := p.width + len(p.calls)
	if p.ordinality {
		w++
	}
	out := make(types.Row, w)
	copy(out, r[:p.width])
	for i, set := range p.sets {
		if k >= 0 && k < len(set) {
			out[p.width+i] = set[k]
		}
	}
	if p.ordinality && k >= 0 {
		out[w-1] = types.IntValue(int64(k + 1))
	}
	return out
}

// Process implements Operator.
func (p *ProjectSet) Process(_ int, b *Batch) error {
	var out Batch
	for i, r := range b.Rows {
		before := len(out.Rows)
		out.Rows = p.Expand(r, out.Rows)
		for range len(out.Rows) - before {
			if b.Diffs != nil {
				out.Diffs = append(out.Diffs, b.Diffs[i])
			}
			if b.WM != nil {
				out.WM = append(out.WM, b.WM[i])
			}
		}
	}
	return p.out.Emit(&out)
}

// Watermark implements Operator.
func (p *ProjectSet) Watermark(_ int, wm int64) error { return p.out.EmitWatermark(wm) }

// Tick implements Operator.
func (p *ProjectSet) Tick(int64) error { return nil }
