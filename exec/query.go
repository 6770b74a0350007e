package exec

import (
	"sort"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// RunQuery evaluates an ad-hoc plan over bounded snapshots: read returns
// the current rows of a scanned view or table. It is the batch executor
// behind SELECT on views; it keeps no state beyond the query.
func RunQuery(n planner.Node, read func(s *planner.Scan) ([]types.Row, error)) ([]types.Row, error) {
	return (&queryRun{read: read}).run(n)
}

// RunQueryKeyed is RunQuery that reads a relation in key order from src
// instead of copying it whole when the plan has a key access path
// (PlanKeyScan): a range of the key, or the first rows in key order.
func RunQueryKeyed(n planner.Node, read func(s *planner.Scan) ([]types.Row, error), src KeyedSource) ([]types.Row, error) {
	return (&queryRun{read: read, src: src, ks: PlanKeyScan(n, src.Access)}).run(n)
}

// queryRun is one run of an ad-hoc plan: how it reads its scans.
type queryRun struct {
	read func(s *planner.Scan) ([]types.Row, error)
	src  KeyedSource
	ks   *KeyScan // the plan's key access path, or nil
}

func (q *queryRun) run(n planner.Node) ([]types.Row, error) {
	var errs EvalErrors
	switch x := n.(type) {
	case *planner.Scan:
		if q.ks != nil && q.ks.Scan == x {
			return runKeyScan(q.ks, q.src, &errs)
		}
		rows, err := q.read(x)
		if err != nil {
			return nil, err
		}
		out := make([]types.Row, len(rows))
		for i, r := range rows {
			row := make(types.Row, len(x.Cols))
			for j, c := range x.Cols {
				row[j] = r[c]
			}
			out[i] = row
		}
		return out, nil
	case *planner.Filter:
		if q.ks != nil && q.ks.Scan == x.Input {
			return runKeyScan(q.ks, q.src, &errs)
		}
		in, err := q.run(x.Input)
		if err != nil {
			return nil, err
		}
		pred, err := CompileFilter(x.Pred, &errs)
		if err != nil {
			return nil, err
		}
		out := in[:0:0]
		for _, r := range in {
			if pred(r) {
				out = append(out, r)
			}
		}
		return out, nil
	case *planner.Project:
		in, err := q.run(x.Input)
		if err != nil {
			return nil, err
		}
		evs := make([]Evaluator, len(x.Exprs))
		for i, e := range x.Exprs {
			if evs[i], err = CompileScalar(e, &errs); err != nil {
				return nil, err
			}
		}
		out := make([]types.Row, len(in))
		for i, r := range in {
			row := make(types.Row, len(evs))
			for j, e := range evs {
				row[j] = e(r)
			}
			out[i] = row
		}
		return out, nil
	case *planner.ProjectSet:
		in := []types.Row{{}}
		if x.Input != nil {
			var err error
			if in, err = q.run(x.Input); err != nil {
				return nil, err
			}
		}
		ps, err := NewProjectSet(x, &errs, Output{})
		if err != nil {
			return nil, err
		}
		var out []types.Row
		for _, r := range in {
			out = ps.Expand(r, out)
		}
		return out, nil
	case *planner.Aggregate:
		in, err := q.run(x.Input)
		if err != nil {
			return nil, err
		}
		return batchAggregate(x, in), nil
	case *planner.Sort:
		in, err := q.run(x.Input)
		if err != nil {
			return nil, err
		}
		sort.SliceStable(in, func(i, j int) bool {
			for _, k := range x.Keys {
				c := orderCompare(in[i][k.Col], in[j][k.Col])
				if c == 0 {
					continue
				}
				if k.Desc {
					return c > 0
				}
				return c < 0
			}
			return false
		})
		return in, nil
	case *planner.Limit:
		in, err := q.run(x.Input)
		if err != nil {
			return nil, err
		}
		if x.Offset >= int64(len(in)) {
			return nil, nil
		}
		in = in[x.Offset:]
		if x.Count >= 0 && x.Count < int64(len(in)) {
			in = in[:x.Count]
		}
		return in, nil
	case *planner.Join:
		return batchJoin(x, q.read)
	case *planner.SemiJoin:
		return q.semiJoin(x)
	case *planner.Union:
		var out []types.Row
		for _, in := range x.Inputs {
			rows, err := q.run(in)
			if err != nil {
				return nil, err
			}
			out = append(out, rows...)
		}
		return out, nil
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupport, "ad-hoc queries cannot run %T", n)
}

// batchAggregate groups a bounded input; with no GROUP BY it returns one
// row even for empty input, as SQL requires.
func batchAggregate(x *planner.Aggregate, in []types.Row) []types.Row {
	type group struct {
		key types.Row
		acc accs
	}
	var order []*group
	groups := map[string]*group{}
	for _, r := range in {
		key := make(types.Row, len(x.GroupCols))
		for i, c := range x.GroupCols {
			key[i] = r[c]
		}
		k := string(state.AppendKeyRow(nil, key)) // values equal under = (0 and -0, 1.0 and 1.00): one group
		g := groups[k]
		if g == nil {
			g = &group{key: key, acc: newAccs(x.Aggs)}
			groups[k] = g
			order = append(order, g)
		}
		g.acc.add(x.Aggs, r)
	}
	if len(order) == 0 && len(x.GroupCols) == 0 {
		order = append(order, &group{acc: newAccs(x.Aggs)})
	}
	out := make([]types.Row, 0, len(order))
	for _, g := range order {
		row := append(types.Row{}, g.key...)
		for _, a := range g.acc {
			row = append(row, a.result())
		}
		out = append(out, row)
	}
	return out
}

// batchJoin is a nested-loop join of two snapshots; an outer join adds
// the unmatched rows of its preserved sides, NULL-padded.
func batchJoin(x *planner.Join, read func(*planner.Scan) ([]types.Row, error)) ([]types.Row, error) {
	l, err := RunQuery(x.Left, read)
	if err != nil {
		return nil, err
	}
	r, err := RunQuery(x.Right, read)
	if err != nil {
		return nil, err
	}
	var errs EvalErrors
	var residual func(types.Row) bool
	if x.Residual != nil {
		if residual, err = CompileFilter(x.Residual, &errs); err != nil {
			return nil, err
		}
	}
	var out []types.Row
	rightMatched := make([]bool, len(r))
	nl, nr := len(x.Left.Schema()), len(x.Right.Schema())
	for _, a := range l {
		matched := false
		for i, b := range r {
			if row, ok := batchPair(x, residual, a, b); ok {
				out = append(out, row)
				matched, rightMatched[i] = true, true
			}
		}
		if !matched && x.Type.Preserves(0) {
			out = append(out, append(append(types.Row{}, a...), make(types.Row, nr)...))
		}
	}
	if x.Type.Preserves(1) {
		for i, b := range r {
			if !rightMatched[i] {
				out = append(out, append(make(types.Row, nl), b...))
			}
		}
	}
	return out, nil
}

// batchPair is the joined row of a and b and whether they match: keys
// equal and not NULL (unless null-safe), the interval, the residual.
func batchPair(x *planner.Join, residual func(types.Row) bool, a, b types.Row) (types.Row, bool) {
	if nullKey(x, a, x.LeftKeys, x.LeftTime) || nullKey(x, b, x.RightKeys, x.RightTime) {
		return nil, false
	}
	for i := range x.LeftKeys {
		if types.Compare(a[x.LeftKeys[i]], b[x.RightKeys[i]]) != 0 {
			return nil, false
		}
	}
	if x.Kind == planner.IntervalJoin && !inInterval(x, b[x.RightTime].I-a[x.LeftTime].I) {
		return nil, false
	}
	row := append(append(types.Row{}, a...), b...)
	return row, residual == nil || residual(row)
}

// orderCompare orders two values as ORDER BY does in Postgres: NULL after
// every other value, so it comes last ascending and first descending
// (types.Compare puts NULL first).
func orderCompare(a, b types.Value) int {
	switch an, bn := a.IsNull(), b.IsNull(); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return types.Compare(a, b)
}

// semiJoin runs a semi or anti join over two snapshots: the streaming
// operator fed the right rows, then the left ones, so an ad-hoc query
// and a view agree by construction.
func (q *queryRun) semiJoin(x *planner.SemiJoin) ([]types.Row, error) {
	right, err := q.run(x.Right)
	if err != nil {
		return nil, err
	}
	left, err := q.run(x.Left)
	if err != nil {
		return nil, err
	}
	var errs EvalErrors
	var residual func(types.Row) bool
	if x.Residual != nil {
		if residual, err = CompileFilter(x.Residual, &errs); err != nil {
			return nil, err
		}
	}
	c := &collectRows{}
	op := NewSemiJoin(SemiJoinConfig{Node: x, Residual: residual, Out: Output{Op: c}})
	if err := op.Process(1, &Batch{Rows: right}); err != nil {
		return nil, err
	}
	if err := op.Process(0, &Batch{Rows: left}); err != nil {
		return nil, err
	}
	return c.rows, nil
}

// collectRows is an Operator that keeps the rows it is sent (inserts
// only: a semi join fed its right input first never retracts).
type collectRows struct {
	rows []types.Row
}

// Process implements Operator.
func (c *collectRows) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		if b.Diff(i) > 0 {
			c.rows = append(c.rows, r)
		}
	}
	return nil
}

// Watermark implements Operator.
func (c *collectRows) Watermark(int, int64) error { return nil }

// Tick implements Operator.
func (c *collectRows) Tick(int64) error { return nil }
