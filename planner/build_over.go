package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// overAggFuncs are the aggregates an OverAggregate runs OVER a frame.
var overAggFuncs = map[string]bool{"sum": true, "avg": true, "count": true, "min": true, "max": true}

// overCollector gathers the running-aggregate OVER calls of a select
// list (not the ranking ones, which a Top-N plans, nor those of
// subqueries).
type overCollector struct {
	skip  *ast.WindowFuncExpr
	calls []*ast.WindowFuncExpr
}

func (c *overCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.WindowFuncExpr:
		if x != c.skip && !rankFuncs[strings.ToLower(x.Name)] {
			c.calls = append(c.calls, x)
		}
		return n, true
	case *ast.SelectStmt:
		return n, true
	}
	return n, false
}

func (c *overCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// collectOvers lists the running-aggregate OVER calls of s's select list.
func (b *builder) collectOvers(s *ast.SelectStmt) []*ast.WindowFuncExpr {
	c := &overCollector{skip: b.over}
	s.Fields.Accept(c)
	return c.calls
}

// overAggregate plans the OVER calls of a select list over in as an
// OverAggregate (with a projection of their arguments and partition keys
// below it) and binds each call to its output column for the select list.
func (b *builder) overAggregate(s *ast.SelectStmt, in Node, scope *relScope, calls []*ast.WindowFuncExpr) (Node, error) {
	f := calls[0]
	if b.adhoc {
		return nil, notSupported(f, "window functions (OVER) in ad-hoc queries are")
	}
	if len(collectAggs(s)) > 0 || s.GroupBy != nil {
		return nil, notSupported(f, "OVER together with GROUP BY or aggregates is")
	}
	inSchema := in.Schema()
	var extras []Scalar
	extraCol := func(e Scalar) int {
		if r, ok := e.(*ColRef); ok {
			return r.Index
		}
		extras = append(extras, e)
		return len(inSchema) + len(extras) - 1
	}
	n := &OverAggregate{Emit: b.emit}
	if err := b.overSpec(n, f, in, scope, extraCol); err != nil {
		return nil, err
	}
	spec := nodeText(&f.Spec)
	for _, c := range calls {
		if nodeText(&c.Spec) != spec {
			return nil, notSupported(c, "OVER calls with different windows in one SELECT are")
		}
		call, err := b.overCall(c, scope, extraCol)
		if err != nil {
			return nil, err
		}
		n.Aggs = append(n.Aggs, call)
		n.Names = append(n.Names, call.Name)
	}
	n.Input = withExtraColumns(in, inSchema, extras)
	base := len(n.Input.Schema())
	if b.overCols == nil {
		b.overCols = map[*ast.WindowFuncExpr]Scalar{}
	}
	for i, c := range calls {
		b.overCols[c] = &ColRef{Index: base + i, Name: n.Names[i], T: n.Aggs[i].T}
	}
	return n, nil
}

// overCall binds one OVER call's aggregate.
func (b *builder) overCall(c *ast.WindowFuncExpr, scope *relScope, extraCol func(Scalar) int) (AggCall, error) {
	fn := strings.ToLower(c.Name)
	switch {
	case !overAggFuncs[fn]:
		return AggCall{}, sqlerr.New(sqlerr.FeatureNotSupport, "window function %s() OVER is not supported: %s", fn, exprText(c)).
			WithHint("sum, avg, count, min and max run OVER (PARTITION BY … ORDER BY ts ROWS|RANGE BETWEEN … PRECEDING AND CURRENT ROW); ROW_NUMBER(), RANK() and DENSE_RANK() in a derived table filtered by rn <= N (Top-N)")
	case c.Distinct:
		return AggCall{}, notSupported(c, fn+"(DISTINCT …) OVER is")
	case c.FromLast || c.IgnoreNull:
		return AggCall{}, notSupported(c, "FROM LAST and IGNORE NULLS are")
	}
	return b.aggCall(&ast.AggregateFuncExpr{F: fn, Args: c.Args}, scope, extraCol)
}

// overSpec reads the window of f into n: PARTITION BY keys, the ORDER BY
// column (one, ascending, a TIMESTAMP; checkOverContract wants the
// watermark on it for EMIT ON WINDOW CLOSE) and the frame (ROWS or
// RANGE from some PRECEDING to CURRENT ROW; RANGE UNBOUNDED PRECEDING
// when absent, as in SQL).
func (b *builder) overSpec(n *OverAggregate, f *ast.WindowFuncExpr, in Node, scope *relScope, extraCol func(Scalar) int) error {
	sp := f.Spec
	if sp.Name.O != "" || sp.Ref.O != "" {
		return notSupported(f, "named windows (OVER w) are")
	}
	if sp.PartitionBy != nil {
		for _, it := range sp.PartitionBy.Items {
			e, err := b.bindIn("PARTITION BY", it.Expr, scope)
			if err != nil {
				return err
			}
			n.Partition = append(n.Partition, extraCol(e))
		}
	}
	if sp.OrderBy == nil || len(sp.OrderBy.Items) != 1 || sp.OrderBy.Items[0].Desc {
		return overOrderErr(f)
	}
	e, err := b.bindIn("ORDER BY", sp.OrderBy.Items[0].Expr, scope)
	if err != nil {
		return err
	}
	r, ok := e.(*ColRef)
	if !ok || in.Schema()[r.Index].Type != types.Timestamp {
		return overOrderErr(f)
	}
	n.TimeCol = r.Index
	return overFrame(n, f)
}

// overOrderErr refuses an OVER ordered by anything but one TIMESTAMP
// column.
func overOrderErr(f *ast.WindowFuncExpr) error {
	return sqlerr.New(sqlerr.FeatureNotSupport, "%s is not supported: a running aggregate OVER must be ordered by one TIMESTAMP column, ascending", exprText(f)).
		WithHint("OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 10 PRECEDING AND CURRENT ROW), ts the source's WATERMARK FOR column")
}

// overFrame reads f's frame into n.
func overFrame(n *OverAggregate, f *ast.WindowFuncExpr) error {
	fr := f.Spec.Frame
	if fr == nil {
		n.Unbounded = true
		return nil
	}
	st, end := fr.Extent.Start, fr.Extent.End
	switch {
	case fr.Type == ast.Groups:
		return notSupported(f, "GROUPS frames are")
	case end.Type != ast.CurrentRow || st.Type == ast.Following:
		return notSupported(f, "a frame that does not end at CURRENT ROW is")
	}
	n.Rows = fr.Type == ast.Rows
	switch {
	case st.Type == ast.CurrentRow:
	case st.UnBounded:
		n.Unbounded = true
	case n.Rows:
		v, err := intLiteral(st.Expr)
		if err != nil || v < 0 {
			return notSupported(f, "a ROWS offset that is not a non-negative integer constant is")
		}
		n.Preceding = v
	default:
		if st.Unit == ast.TimeUnitInvalid {
			return notSupported(f, "a RANGE offset that is not an INTERVAL is")
		}
		us, err := IntervalLiteral(st.Expr, st.Unit)
		if err != nil {
			return err
		}
		if us < 0 {
			return notSupported(f, "a negative RANGE offset is")
		}
		n.Preceding = us
	}
	return nil
}

// overEmit is the EMIT mode a view's clauses give its running
// aggregates while its query is built (attachContract sets the same):
// the form decides whether ts carries the watermark out of them, which
// the joins and windows built over them ask.
func overEmit(sc parser.StreamingClauses) string {
	if sc.Emit != nil && sc.Emit.Mode == parser.EmitOnWindowClose {
		return "on_window_close"
	}
	return "on_update"
}

// checkOverContract refuses the view clauses a running aggregate cannot
// follow. With LATE DATA DROP EMIT ON WINDOW CLOSE it emits each row
// once, final, when the watermark passes its ts: ts must carry the
// watermark (checkAppendOnlyInputs wants an append-only input). Without
// an EMIT clause, or with EMIT ON UPDATE, it is the updating form; late
// rows are dropped (LATE DATA DROP or none), as nothing could correct
// the rows a late row's frame reaches once they are let go.
func checkOverContract(c Contract, n *OverAggregate) error {
	switch {
	case c.Emit == "on_window_close" && c.Policy == lateness.Drop:
		if !TimeColumnOf(n.Input, n.TimeCol) {
			return sqlerr.New(sqlerr.FeatureNotSupport, "a running aggregate OVER with EMIT ON WINDOW CLOSE must be ordered by a column that carries the watermark: %s", n.String()).
				WithHint("order by the source's WATERMARK FOR column, or drop EMIT ON WINDOW CLOSE for the updating form")
		}
		return nil
	case (c.Emit == "" || c.Emit == "on_update") && (c.Policy == 0 || c.Policy == lateness.Drop):
		return nil
	}
	return sqlerr.New(sqlerr.FeatureNotSupport, "a running aggregate OVER is supported without an EMIT clause (an updating view) or with LATE DATA DROP EMIT ON WINDOW CLOSE (each row appears once the watermark passes its ts, with its final value)").
		WithHint("drop the EMIT and LATE DATA clauses, or write LATE DATA DROP EMIT ON WINDOW CLOSE")
}
