package engine

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// pipelinesResult is SHOW PIPELINES: one line per view or query sink
// from the engine's figures (metrics.go), what `streamsql_catalog`'s
// tables show in detail.
func (e *Engine) pipelinesResult() *Result {
	s := e.figures()
	res := &Result{Schema: types.Schema{col("name", types.String), col("sources", types.String), col("sinks", types.String),
		col("parallelism", types.Int), col("watermark", types.Timestamp), col("watermark_lag", types.Interval),
		col("stalled", types.Bool), col("rows_in", types.Int), col("rows_out", types.Int), col("state_keys", types.Int)}}
	if e.opts.ReadOnly {
		return res // nothing runs
	}
	now := s.Now.UnixMicro()
	for _, v := range s.Views {
		var keys int64
		for _, o := range v.Operators {
			keys += o.StateKeys
		}
		res.Rows = append(res.Rows, types.Row{types.StringValue(v.Name), types.StringValue(strings.Join(v.Sources, ", ")),
			types.StringValue(strings.Join(v.Sinks, ", ")), types.IntValue(int64(v.Parallelism)),
			timeValue(v.Watermark, v.HasWatermark), lagValue(now, v.Watermark, v.HasWatermark), types.BoolValue(v.Stalled),
			types.IntValue(v.RowsIn), types.IntValue(v.RowsOut), types.IntValue(keys)})
	}
	return res
}

// explainAnalyze is EXPLAIN ANALYZE: a running view's physical plan with
// each node's live figures, or a query's plan followed by those of the
// running views it reads.
func (e *Engine) explainAnalyze(st *parser.ExplainStmt) (string, error) {
	if st.View != "" {
		return e.analyzeView(st.View)
	}
	q, ok := st.Stmt.(*parser.QueryStmt)
	if !ok {
		return "", sqlerr.New(sqlerr.FeatureNotSupport, "EXPLAIN ANALYZE supports a view name or a SELECT over views")
	}
	n, err := planner.BuildQuery(q, e.queryResolver(), true, e.timeZone())
	if err != nil {
		return "", err
	}
	opt, _ := planner.Optimize(n)
	var b strings.Builder
	b.WriteString("plan:\n" + planner.Format(opt))
	seen := map[string]bool{}
	var err2 error
	planner.Transform(opt, func(x planner.Node) (planner.Node, bool) {
		sc, ok := x.(*planner.Scan)
		if !ok || sc.Kind != planner.ScanView || seen[strings.ToLower(sc.Name)] || err2 != nil {
			return x, false
		}
		seen[strings.ToLower(sc.Name)] = true
		var text string
		if text, err2 = e.analyzeView(sc.Name); err2 == nil {
			b.WriteString(text)
		}
		return x, false
	})
	return b.String(), err2
}

// analyzeView renders running view name's plan with its figures.
func (e *Engine) analyzeView(name string) (string, error) {
	v := e.views[strings.ToLower(name)]
	if v == nil {
		return "", sqlerr.New(sqlerr.UndefinedTable, "materialized view %q is not running", name).
			WithHint("EXPLAIN ANALYZE shows a running view's figures; SHOW PIPELINES lists them")
	}
	figs := v.operators()
	byNode := make(map[planner.Node]OperatorStats, len(figs))
	for i, op := range v.pipe.Ops {
		byNode[op.Node] = figs[i]
	}
	note := func(n planner.Node) string {
		o, ok := byNode[n]
		if !ok {
			return ""
		}
		return o.annotation()
	}
	head := fmt.Sprintf("view %s (running, parallelism %d)\n", v.plan.Name, v.par)
	return head + planner.PhysicalAnnotated(v.plan.Optimized, v.par, note), nil
}

// annotation is o's figures as EXPLAIN ANALYZE prints them.
func (o OperatorStats) annotation() string {
	s := fmt.Sprintf("id=%d rows in=%d out=%d", o.ID, o.RowsIn, o.RowsOut)
	if o.HasState {
		s += fmt.Sprintf(" state keys=%d", o.StateKeys)
	}
	if o.Watermark != types.MinTime {
		s += " watermark=" + types.TimestampValue(o.Watermark).String()
	}
	return s
}
