package engine

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

func optionMap(opts []parser.Option) map[string]string {
	m := map[string]string{}
	for _, o := range opts {
		m[strings.ToLower(o.Name)] = o.Value
	}
	return m
}

func (e *Engine) exists(name, sql string, ifNotExists bool) (bool, error) {
	if o, ok := e.cat.Get(name); ok {
		if ifNotExists || (e.opts.SkipSameDDL && o.SQL == sql) {
			return true, nil
		}
		return true, sqlerr.New(sqlerr.DuplicateObject, "%s %q already exists", o.Kind, name)
	}
	return false, nil
}

func (e *Engine) createSource(ctx context.Context, st *parser.CreateSourceStmt) (*Result, error) {
	if ok, err := e.exists(st.Name, st.Text(), st.IfNotExists); ok || err != nil {
		return &Result{Tag: "CREATE SOURCE"}, err
	}
	o := &catalog.Object{Kind: catalog.Source, Name: st.Name, SQL: st.Text(), TimeCol: -1, Options: optionMap(st.Options)}
	if st.IsTable {
		o.Kind = catalog.Table
	}
	for _, c := range st.Columns {
		if o.Schema.Index(c.Name) >= 0 {
			return nil, sqlerr.New(sqlerr.DuplicateObject, "column %q specified more than once", c.Name)
		}
		t := c.Type
		var gen uint8
		switch c.Generated {
		case parser.IngestionTime:
			gen = catalog.GenIngestion
		case parser.ProcTime:
			gen = catalog.GenProcTime
		case parser.Computed:
			gen = catalog.GenComputed
			if st.IsTable {
				return nil, sqlerr.New(sqlerr.FeatureNotSupport, "computed column %q: a TABLE's columns are its input; use a view over it", c.Name)
			}
			for len(o.Exprs) < len(o.Schema) {
				o.Exprs = append(o.Exprs, "")
			}
			o.Exprs = append(o.Exprs, c.ExprText)
		}
		if gen == catalog.GenIngestion || gen == catalog.GenProcTime {
			t = types.Timestamp
		}
		o.Schema = append(o.Schema, types.Column{Name: c.Name, Type: t, Precision: c.Precision, Scale: c.Scale})
		o.Generated = append(o.Generated, gen)
	}
	for _, k := range st.PrimaryKey {
		i := o.Schema.Index(k)
		if i < 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "primary key column %q does not exist", k)
		}
		o.Key = append(o.Key, i)
	}
	if w := st.Watermark; w != nil {
		i := o.Schema.Index(w.Column)
		if i < 0 {
			return nil, sqlerr.New(sqlerr.UndefinedColumn, "watermark column %q does not exist", w.Column)
		}
		if o.Schema[i].Type != types.Timestamp {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "watermark column %q must be a TIMESTAMP", w.Column)
		}
		o.TimeCol, o.Delay = i, w.Delay
	}
	conn := o.Options["connector"]
	if conn == "" {
		conn = memoryConnector
		o.Options["connector"] = conn
	}
	if err := e.validateSourceOptions(o); err != nil {
		return nil, err
	}
	if p, ok := o.Options["partitions"]; ok && logged(o) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "partitions must be a positive integer, got %q", p)
		}
	}
	if _, ok := e.opts.Registry.Sources[conn]; !ok {
		return nil, sqlerr.New(sqlerr.InvalidParameter, "unknown connector %q", conn).WithHint("known: " + e.connectorNames())
	} else if err := e.checkSource(ctx, o); err != nil {
		return nil, err
	}
	if o.Kind == catalog.Table && len(o.Key) == 0 {
		return nil, sqlerr.New(sqlerr.InvalidObjectDef, "table %q needs a PRIMARY KEY (a TABLE is updated by key)", o.Name)
	}
	e.markTyped(o)
	if _, err := compileComputed(o, nil); err != nil {
		return nil, err
	}
	if err := e.cat.Add(o); err != nil {
		return nil, sqlerr.New(sqlerr.DuplicateObject, "%s", err.Error())
	}
	if o.Kind == catalog.Table {
		t, err := e.startTable(ctx, o)
		if err == nil && t.rd != nil {
			err = t.rd.Open(ctx)
		}
		if err != nil {
			delete(e.tables, strings.ToLower(o.Name))
			e.cat.Remove(o.Name)
			return nil, err
		}
	}
	if pol, _ := onErrorPolicy(o); pol == onErrorDeadLetter {
		if err := e.ensureDeadLetterTable(o); err != nil {
			e.cat.Remove(o.Name)
			return nil, err
		}
	}
	if err := e.saveCatalog(); err != nil {
		e.cat.Remove(o.Name)
		return nil, err
	}
	tag := "CREATE SOURCE"
	if o.Kind == catalog.Table {
		tag = "CREATE TABLE"
	}
	return &Result{Tag: tag}, nil
}

func (e *Engine) connectorNames() string {
	var names []string
	for n := range e.opts.Registry.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (e *Engine) settingsForPlan() planner.Settings {
	ci, _ := e.setting("checkpoint_interval")
	return planner.Settings{Strict: e.strict(), Parallelism: e.parallelism(), CheckpointInterval: ci, TimeZone: e.timeZone()}
}

func (e *Engine) createView(ctx context.Context, st *parser.CreateViewStmt) (*Result, error) {
	if ok, err := e.exists(st.Name, st.Text(), st.IfNotExists); ok || err != nil {
		return &Result{Tag: "CREATE MATERIALIZED VIEW"}, err
	}
	vp, err := planner.PlanView(st, viewResolver(e.cat), e.settingsForPlan())
	if err != nil {
		return nil, err
	}
	// A view dropped earlier under the same name may have left state behind
	// (dropping deletes it in batches, not atomically).
	if err := e.store.DeletePrefix([]byte("v/" + st.Name + "/")); err != nil {
		return nil, err
	}
	o := &catalog.Object{Kind: catalog.View, Name: st.Name, SQL: st.Text(), Schema: vp.Optimized.Schema(), Key: vp.Key, TimeZone: e.timeZone(), Functions: vp.Functions, Reads: vp.Views}
	describeChangelog(o, vp)
	if err := e.cat.Add(o); err != nil {
		return nil, err
	}
	if vp.SideTable != "" {
		side := &catalog.Object{Kind: catalog.Table, Name: vp.SideTable, Schema: vp.SideSchema, SideOf: st.Name, TimeCol: -1}
		if err := e.cat.Add(side); err != nil {
			e.cat.Remove(o.Name)
			return nil, err
		}
	}
	rt, err := e.startView(ctx, vp)
	if err == nil {
		if err = rt.openFresh(ctx); err == nil {
			err = rt.backfill(e.now())
		}
		if err != nil {
			rt.close()
			delete(e.views, strings.ToLower(st.Name))
		}
	}
	if err != nil {
		e.cat.Remove(o.Name)
		if vp.SideTable != "" {
			e.cat.Remove(vp.SideTable)
		}
		return nil, err
	}
	if err := e.saveCatalog(); err != nil {
		return nil, err
	}
	return &Result{Tag: "CREATE MATERIALIZED VIEW", Notice: vp.Warnings}, nil
}

// describeChangelog records on view o what a view reading it scans: its
// output's watermark column and whether its changelog retracts rows.
func describeChangelog(o *catalog.Object, vp *planner.ViewPlan) {
	p := planner.PropsOf(vp.Optimized)
	o.TimeCol, o.Retracting = p.TimeCol, !p.AppendOnly
	o.BoundBy = planner.BoundingTables(vp.Optimized)
}

func (e *Engine) createSink(ctx context.Context, st *parser.CreateSinkStmt) (*Result, error) {
	if ok, err := e.exists(st.Name, st.Text(), st.IfNotExists); ok || err != nil {
		return &Result{Tag: "CREATE SINK"}, err
	}
	if st.Query != nil {
		return e.createQuerySink(ctx, st)
	}
	from, ok := e.cat.Get(st.From)
	if !ok || !e.sinkInput(st.From).found() {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "materialized view %q does not exist", st.From).
			WithHint("a sink reads a materialized view, a TABLE, a view's LATE DATA side table or a source's dead_letter table")
	}
	o := &catalog.Object{Kind: catalog.Sink, Name: st.Name, SQL: st.Text(), From: from.Name, Options: optionMap(st.Options), Schema: from.Schema, Key: from.Key, TimeCol: -1}
	if o.Options["connector"] == "" {
		return nil, sqlerr.New(sqlerr.InvalidParameter, "sink %q needs a connector option", st.Name)
	}
	if err := e.attachSink(o); err != nil {
		return nil, err
	}
	if err := e.sendSnapshot(o); err != nil {
		e.detachSink(o)
		return nil, err
	}
	if err := e.cat.Add(o); err != nil {
		return nil, err
	}
	return &Result{Tag: "CREATE SINK"}, e.saveCatalog()
}

// sendSnapshot writes what sink o's view, side table or TABLE holds now
// to the sink just attached, as upserts (unless snapshot = false), so
// that its destination starts from the same rows; they commit with the
// next checkpoint like any change.
func (e *Engine) sendSnapshot(o *catalog.Object) error {
	if on, ok := types.ParseBool(o.Options["snapshot"]); ok && !on {
		return nil
	}
	var rows []types.Row
	var sinks []*exec.Sink
	var err error
	switch in := e.sinkInput(o.From); {
	case in.table != nil:
		rows, sinks = in.table.Rows(), in.table.sinks.List()
	case in.dead != nil:
		rows, err = in.dead.Rows()
		sinks = in.dead.sinks.List()
	case in.view != nil && in.side:
		if in.view.pipe.Side != nil {
			rows, err = in.view.pipe.Side.Rows()
		}
		sinks = in.view.sinks.List()
	case in.view != nil:
		rows, err = in.view.pipe.View0.Rows()
		sinks = in.view.sinks.List()
	}
	if err != nil || len(rows) == 0 {
		return err
	}
	changes := make([]connectors.Change, len(rows))
	for i, r := range rows {
		changes[i] = connectors.Change{Op: connectors.Upsert, Row: r}
	}
	for _, s := range sinks {
		if strings.EqualFold(s.Name(), o.Name) {
			if err := s.Snapshot(changes); err != nil {
				return fmt.Errorf("sink %s: snapshot of %s: %w", o.Name, o.From, err)
			}
		}
	}
	return nil
}

func (e *Engine) drop(st *parser.DropStmt) (*Result, error) {
	o, ok := e.cat.Get(st.Name)
	tag := "DROP"
	if !ok {
		if st.IfExists {
			return &Result{Tag: tag}, nil
		}
		return nil, sqlerr.New(sqlerr.UndefinedTable, "%q does not exist", st.Name)
	}
	want := map[parser.ObjectKind]catalog.Kind{parser.ObjSource: catalog.Source, parser.ObjTable: catalog.Table, parser.ObjView: catalog.View, parser.ObjSink: catalog.Sink, parser.ObjPlainView: catalog.PlainView}[st.Kind]
	if o.Kind != want {
		return nil, sqlerr.New(sqlerr.InvalidParameter, "%q is a %s, not a %s", st.Name, o.Kind, want)
	}
	for _, d := range e.cat.List(0) {
		if d.Name == o.Name {
			continue
		}
		if e.reads(d, o.Name) {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "cannot drop %s %q: %s %q depends on it", o.Kind, o.Name, d.Kind, d.Name)
		}
	}
	switch o.Kind {
	case catalog.View:
		if v := e.views[strings.ToLower(o.Name)]; v != nil {
			v.close()
			if err := v.dropState(e.store); err != nil {
				return nil, err
			}
			if v.pipe.SideName != "" {
				e.cat.Remove(v.pipe.SideName)
			}
			delete(e.views, strings.ToLower(o.Name))
		}
	case catalog.Sink:
		if o.From == "" { // a sink with its own query: its pipeline goes too
			if v := e.views[strings.ToLower(o.Name)]; v != nil {
				v.close()
				if err := v.dropState(e.store); err != nil {
					return nil, err
				}
				delete(e.views, strings.ToLower(o.Name))
			}
		} else {
			e.detachSink(o)
		}
		if err := e.store.Update(func(w *state.Writer) error { return exec.DropStaged(w, o.Name) }); err != nil {
			return nil, err
		}
	case catalog.Table:
		if o.SideOf != "" {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "table %q is the side table of view %q; drop the view", o.Name, o.SideOf)
		}
		if o.DeadLetter {
			for _, s := range e.cat.List(0) {
				if pol, _ := onErrorPolicy(s); (s.Kind == catalog.Source || s.Kind == catalog.Table) && pol == onErrorDeadLetter && strings.EqualFold(s.DeadLetterTable(), o.Name) {
					return nil, sqlerr.New(sqlerr.InvalidParameter, "cannot drop table %q: it is the dead_letter table of source %q", o.Name, s.Name)
				}
			}
			if err := e.store.DeletePrefix([]byte(e.deadLetterTable(o.Name).prefix())); err != nil {
				return nil, err
			}
			delete(e.dlq, strings.ToLower(o.Name))
		}
		if t := e.tables[strings.ToLower(o.Name)]; t != nil {
			if t.rd != nil {
				_ = t.rd.Close()
			}
			if err := e.store.DeletePrefix([]byte(t.prefix())); err != nil {
				return nil, err
			}
			delete(e.tables, strings.ToLower(o.Name))
		}
	}
	e.cat.Remove(o.Name)
	return &Result{Tag: tag}, e.saveCatalog()
}

// reads reports whether object d reads the object named name.
func (e *Engine) reads(d *catalog.Object, name string) bool {
	if readsInlined(d, name) {
		return true
	}
	if d.Kind == catalog.Sink && d.From != "" {
		if t, ok := e.cat.Get(d.From); ok && t.SideOf != "" && strings.EqualFold(t.SideOf, name) {
			return true // a sink of a view's side table depends on the view
		}
		return strings.EqualFold(d.From, name)
	}
	if d.Kind != catalog.View && d.Kind != catalog.Sink {
		return false
	}
	if v := e.views[strings.ToLower(d.Name)]; v != nil {
		for _, r := range v.readers {
			if strings.EqualFold(r.Object().Name, name) {
				return true
			}
		}
		for _, f := range v.upstream {
			if strings.EqualFold(f.from.plan.Name, name) {
				return true
			}
		}
		for _, f := range v.tables {
			if strings.EqualFold(f.t.obj.Name, name) {
				return true
			}
		}
	}
	return false
}

func (e *Engine) show(st *parser.ShowStmt) (*Result, error) {
	if st.Kind == 0 && strings.EqualFold(st.Setting, "metrics") {
		return e.metricsResult(), nil
	}
	if st.Kind == 0 && strings.EqualFold(st.Setting, "pipelines") {
		return e.pipelinesResult(), nil
	}
	if st.Kind == 0 {
		v, ok := e.setting(strings.ToLower(st.Setting))
		if !ok {
			return nil, sqlerr.New(sqlerr.UndefinedObject, "unrecognized configuration parameter %q", st.Setting)
		}
		return &Result{Schema: types.Schema{{Name: st.Setting, Type: types.String}}, Rows: []types.Row{{types.StringValue(v)}}}, nil
	}
	kind := map[parser.ObjectKind]catalog.Kind{parser.ObjSource: catalog.Source, parser.ObjTable: catalog.Table, parser.ObjView: catalog.View, parser.ObjSink: catalog.Sink, parser.ObjPlainView: catalog.PlainView}[st.Kind]
	res := &Result{Schema: types.Schema{{Name: "name", Type: types.String}}}
	var names []string
	for _, o := range e.cat.List(kind) {
		names = append(names, o.Name)
	}
	sort.Strings(names)
	for _, n := range names {
		res.Rows = append(res.Rows, types.Row{types.StringValue(n)})
	}
	return res, nil
}

func (e *Engine) describe(name string) (*Result, error) {
	o, ok := e.cat.Get(name)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name)
	}
	res := &Result{Schema: types.Schema{{Name: "name", Type: types.String}, {Name: "type", Type: types.String}, {Name: "key", Type: types.Bool}}}
	for i, c := range o.Schema {
		isKey := false
		for _, k := range o.Key {
			isKey = isKey || k == i
		}
		res.Rows = append(res.Rows, types.Row{types.StringValue(c.Name), types.StringValue(strings.ToLower(c.TypeName())), types.BoolValue(isKey)})
	}
	return res, nil
}

func (e *Engine) explain(st *parser.ExplainStmt) (*Result, error) {
	var text string
	if st.Analyze {
		var err error
		if text, err = e.explainAnalyze(st); err != nil {
			return nil, err
		}
		return explainResult(text), nil
	}
	switch in := st.Stmt.(type) {
	case *parser.CreateViewStmt:
		vp, err := planner.PlanView(in, viewResolver(e.cat), e.settingsForPlan())
		if err != nil {
			return nil, err
		}
		text = vp.Explain(e.settingsForPlan(), nil)
	case *parser.QueryStmt:
		n, err := planner.BuildQuery(in, e.queryResolver(), true, e.timeZone())
		if err != nil {
			return nil, err
		}
		opt, rules := planner.Optimize(n)
		text = "logical plan:\n" + planner.Format(n) + "rules applied: " + strings.Join(rules, ", ") + "\nplan:\n" + planner.Format(opt)
		if ks := exec.PlanKeyScan(opt, keyedTables{e}.Access); ks != nil {
			text += "access: " + ks.String() + "\n"
		}
	case *parser.CreateSinkStmt:
		var err error
		if text, err = e.explainSink(in); err != nil {
			return nil, err
		}
	default:
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "EXPLAIN supports CREATE MATERIALIZED VIEW, CREATE SINK and SELECT")
	}
	return explainResult(text), nil
}

// explainResult is EXPLAIN's result: one row per line of text.
func explainResult(text string) *Result {
	res := &Result{Schema: types.Schema{{Name: "QUERY PLAN", Type: types.String}}}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		res.Rows = append(res.Rows, types.Row{types.StringValue(l)})
	}
	return res
}

// Explain returns EXPLAIN text for every view (used by `streamsql explain`
// and `check`); missing contract items are reported in gaps.
func (e *Engine) Explain() (text string, gaps []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, o := range e.cat.List(catalog.View) {
		v := e.views[strings.ToLower(o.Name)]
		if v == nil {
			continue
		}
		var sinks []string
		for _, s := range v.sinks.List() {
			sinks = append(sinks, s.ContractLine())
		}
		if len(sinks) == 0 {
			gaps = append(gaps, fmt.Sprintf("view %s: no sink delivers its results (it is only queryable)", o.Name))
		}
		b.WriteString(v.plan.Explain(e.settingsForPlan(), sinks))
		b.WriteString("\n")
		for _, l := range v.plan.Contract(e.settingsForPlan(), sinks) {
			if strings.Contains(l, "MISSING") {
				gaps = append(gaps, "view "+o.Name+": "+l)
			}
		}
		for _, w := range v.plan.Warnings {
			gaps = append(gaps, "view "+o.Name+": "+w)
		}
	}
	for _, o := range e.cat.List(catalog.Table) {
		var sinks []*exec.Sink
		switch in := e.sinkInput(o.Name); {
		case in.table != nil:
			sinks = in.table.sinks.List()
		case in.dead != nil:
			sinks = in.dead.sinks.List()
		}
		if len(sinks) == 0 {
			continue
		}
		fmt.Fprintf(&b, "table %s\ncontract:\n", o.Name)
		for _, s := range sinks {
			fmt.Fprintf(&b, "  %s\n", s.ContractLine())
		}
		b.WriteString("\n")
	}
	return b.String(), gaps
}

func keyNames(vp *planner.ViewPlan) string {
	s := vp.Optimized.Schema()
	var n []string
	for _, k := range vp.Key {
		n = append(n, s[k].Name)
	}
	return strings.Join(n, ", ")
}

// querySinkView is the view-shaped statement a CREATE SINK ... AS query is
// planned as.
func querySinkView(st *parser.CreateSinkStmt) *parser.CreateViewStmt {
	return &parser.CreateViewStmt{StmtBase: st.StmtBase, Name: st.Name, Query: st.Query, Streaming: st.Streaming}
}

// explainSink is EXPLAIN CREATE SINK: the plan and contract of the view
// it reads (FROM) or of its own query (AS), with the sink's line as CREATE
// SINK would add it. The options are validated; nothing is connected.
func (e *Engine) explainSink(st *parser.CreateSinkStmt) (string, error) {
	opts := optionMap(st.Options)
	f, err := e.sinkFactory(st.Name, opts)
	if err != nil {
		return "", err
	}
	var vp *planner.ViewPlan
	if st.Query != nil {
		if vp, err = planner.PlanView(querySinkView(st), viewResolver(e.cat), e.settingsForPlan()); err != nil {
			return "", err
		}
	} else {
		v := e.sinkInput(st.From).view
		if v == nil {
			return "", sqlerr.New(sqlerr.UndefinedTable, "materialized view %q does not exist", st.From)
		}
		vp = v.plan
	}
	o := &catalog.Object{Kind: catalog.Sink, Name: st.Name, Options: opts}
	s := exec.NewSink(st.Name, opts["connector"], sinkKey(o, vp), false, newPlannedSink(f, opts), durationBounds)
	return vp.Explain(e.settingsForPlan(), []string{s.ContractLine()}), nil
}

// createQuerySink plans CREATE SINK name AS query WITH (...): the query
// runs as a pipeline whose changes go to the sink only (no view store, so
// a pass-through keeps no state).

func (e *Engine) createQuerySink(ctx context.Context, st *parser.CreateSinkStmt) (*Result, error) {
	vp, err := planner.PlanView(querySinkView(st), viewResolver(e.cat), e.settingsForPlan())
	if err != nil {
		return nil, err
	}
	o := &catalog.Object{Kind: catalog.Sink, Name: st.Name, SQL: st.Text(), Options: optionMap(st.Options),
		Schema: vp.Optimized.Schema(), Key: vp.Key, TimeCol: -1, TimeZone: e.timeZone(), Functions: vp.Functions, Reads: vp.Views}
	if o.Options["connector"] == "" {
		return nil, sqlerr.New(sqlerr.InvalidParameter, "sink %q needs a connector option", st.Name)
	}
	if vp.SideTable != "" {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "LATE DATA SIDE OUTPUT needs a materialized view; use CREATE MATERIALIZED VIEW and CREATE SINK ... FROM it")
	}
	if err := e.store.DeletePrefix([]byte("v/" + st.Name + "/")); err != nil {
		return nil, err
	}
	rt, err := e.startPipeline(ctx, vp, true)
	if err != nil {
		return nil, err
	}
	if err := rt.openFresh(ctx); err != nil {
		rt.close()
		delete(e.views, strings.ToLower(st.Name))
		return nil, err
	}
	err = e.connectSink(rt, o, false)
	if err == nil {
		err = rt.backfill(e.now()) // after the sink is attached: the snapshot is its first changes
	}
	if err != nil {
		rt.close()
		delete(e.views, strings.ToLower(st.Name))
		return nil, err
	}
	if err := e.cat.Add(o); err != nil {
		return nil, err
	}
	return &Result{Tag: "CREATE SINK", Notice: vp.Warnings}, e.saveCatalog()
}
