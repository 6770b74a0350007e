package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// viewRT is a running view: its plan, pipeline, one reader per source it
// reads, and its sinks.
type viewRT struct {
	plan    *planner.ViewPlan
	pipe    *exec.Pipeline
	readers []*reader
	sinks   []*sinkRT
	subs    []*Subscription // SUBSCRIBE feeds (engine/subscribe.go)
	updated int64
	// late counts the view's late rows (its operators add to it).
	late lateness.Counters
	// stall watches the view's watermark (stall.go).
	stall stallState
	// err is the first error a sink returned from Write; the pipeline
	// stops with it (sinks retry transient failures themselves).
	err error
	// par is the parallelism the pipeline was built with.
	par int
	// upstream feeds the views this pipeline reads into its scans;
	// feeds are the pipelines reading this view (view_feed.go).
	upstream, feeds []*viewFeed
	// tables feed the TABLEs this pipeline reads into its scans.
	tables []*tableFeed
}

type sinkRT struct {
	name, conn string
	sink       connectors.Sink
	key        string // the columns the sink writes by, for the contract
	side       bool   // reads the view's side table, not the view
	rows       atomic.Int64
	// statsMu guards commits: sinks commit with e.mu released.
	statsMu   sync.Mutex
	commits   Histogram
	committed uint64 // the last checkpoint committed
}

// sinkKey is what sink o writes by: its primary_key option (the postgres
// sink's ON CONFLICT target) when set, else the view's key.
func sinkKey(o *catalog.Object, vp *planner.ViewPlan) string {
	if pk := strings.TrimSpace(o.Options["primary_key"]); pk != "" {
		return pk
	}
	return keyNames(vp)
}

// reader feeds one source into every scan of it in one view and tracks
// the source's position and watermark.
type reader struct {
	obj   *catalog.Object
	scans []exec.ScanInput
	gen   *lateness.Generator
	src   connectors.Source
	offs  []int64 // the offset per partition after the last batch read
	ended bool
	parts int
	// onError is the source's policy for undecodable records.
	onError string
	// in lists the columns the connector supplies (obj.InputColumns()).
	in []int
	// read counts the records read per partition; decodeErrs the
	// undecodable ones (checkpointed with the position).
	read       []int64
	decodeErrs int64
	// bytes counts the bytes read per partition (as the connector
	// measures them); backlog is its last Backlog (nil: it has none).
	bytes   []int64
	backlog []int64
	// computed are the source's computed columns, filled from each row
	// before anything reads it; evalErrs counts their failures.
	computed []computedCol
	evalErrs exec.EvalErrors
	// progDone and progTotal are its last Progress (total ≤ 0: it has none).
	progDone, progTotal int64
}

func (e *Engine) startView(ctx context.Context, vp *planner.ViewPlan) (*viewRT, error) {
	return e.startPipeline(ctx, vp, false)
}

// startPipeline builds and registers the runtime of a view, or (with
// passThrough) of a sink with its own query, which keeps no view store.
func (e *Engine) startPipeline(ctx context.Context, vp *planner.ViewPlan, passThrough bool) (*viewRT, error) {
	rt := &viewRT{plan: vp, par: e.parallelism()}
	env := exec.Env{PassThrough: passThrough, Parallelism: rt.par, Late: &rt.late, EvalErrors: &e.evalErrs, Now: e.now(), SideSchema: vp.SideSchema,
		Store: e.store, StateBudget: e.stateBudget(), Memory: e.mem, Stopwatch: stopwatch()}
	env.Sink = func(ch []connectors.Change) { rt.deliver(ch, false) }
	// Called by the window operators that write late rows, one at a time
	// (the side table's lock), while the step waits for them.
	env.SideSink = func(ch []connectors.Change) { rt.deliver(ch, true) }
	p, err := exec.BuildPipeline(vp.Optimized, env)
	if err != nil {
		return nil, err
	}
	rt.pipe = p
	p.View0.OnWatermark(rt.outWatermark)
	p.View0.OnChanges(rt.outChanges)
	byName := map[string]*reader{}
	for _, sc := range p.Scans {
		if sc.View || sc.Table {
			link := e.linkFeed
			if sc.Table {
				link = e.linkTableFeed
			}
			if err := link(rt, sc); err != nil {
				rt.unlinkFeeds()
				return nil, err
			}
			continue
		}
		r := byName[strings.ToLower(sc.Source)]
		if r == nil {
			o, ok := e.cat.Get(sc.Source)
			if !ok {
				return nil, sqlerr.New(sqlerr.UndefinedTable, "source %q does not exist", sc.Source)
			}
			r, err = e.newReader(ctx, o)
			if err != nil {
				return nil, err
			}
			byName[strings.ToLower(sc.Source)] = r
			rt.readers = append(rt.readers, r)
		}
		r.scans = append(r.scans, sc)
	}
	e.views[strings.ToLower(vp.Name)] = rt
	return rt, nil
}

// openFresh opens the connectors of a view created just now.
func (v *viewRT) openFresh(ctx context.Context) error {
	for _, r := range v.readers {
		if err := r.open(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) newReader(ctx context.Context, o *catalog.Object) (*reader, error) {
	r := &reader{obj: o, parts: 1, in: o.InputColumns()}
	var err error
	if r.onError, err = onErrorPolicy(o); err != nil {
		return nil, err
	}
	if r.computed, err = compileComputed(o, &r.evalErrs); err != nil {
		return nil, err
	}
	src, err := e.openSource(ctx, o)
	if err != nil {
		return nil, err
	}
	r.src = src
	r.parts = src.Partitions()
	r.offs = make([]int64, r.parts)
	idle := int64(0)
	if s := o.Options["idle_timeout"]; s != "" {
		// The forms the option spec validates: Go durations ('30s'),
		// milliseconds ('500') and SQL interval text ('30 seconds').
		d, err := connectors.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "idle_timeout %q: want a duration such as '30s' or '30 seconds'", s)
		}
		idle = d.Microseconds()
	}
	r.gen = lateness.NewGenerator(r.parts, o.Delay, idle, e.now())
	return r, nil
}

func (e *Engine) openSource(ctx context.Context, o *catalog.Object) (connectors.Source, error) {
	f, ok := e.opts.Registry.Sources[o.Options["connector"]]
	if !ok {
		return nil, sqlerr.New(sqlerr.InvalidParameter, "unknown connector %q", o.Options["connector"])
	}
	if e.opts.PlanOnly && !logged(o) { // memory sources open nothing
		return plannedSource{}, nil
	}
	// Each source gets its own directory beside Badger's files.
	dir := filepath.Join(e.opts.StateDir, "connectors", strings.ToLower(o.Name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("source %s: state directory: %w", o.Name, err)
	}
	in := o.InputColumns()
	spec := connectors.SourceSpec{Name: o.Name, Schema: pick(o.Schema, in), Options: o.Options, StateDir: dir, Table: o.Kind == catalog.Table}
	for _, k := range o.Key { // key positions among the input columns
		if i := slices.Index(in, k); i >= 0 {
			spec.Key = append(spec.Key, i)
		}
	}
	if i := slices.Index(in, o.TimeCol); o.TimeCol >= 0 && i >= 0 {
		spec.Required = []int{i}
	}
	src, err := f.New(ctx, spec)
	if err != nil {
		return nil, &sqlerr.Error{Code: sqlerr.InvalidParameter, Msg: "source " + o.Name, Err: redactedError{err}}
	}
	return src, nil
}

// checkSource validates a source's options by building it once.
func (e *Engine) checkSource(ctx context.Context, o *catalog.Object) error {
	src, err := e.openSource(ctx, o)
	if err != nil {
		return err
	}
	return src.Close()
}

// sinkInput is the runtime a sink FROM reads: a view's (side: the
// view's LATE DATA side table, which its view's runtime feeds), a
// TABLE's, or a dead-letter table's. At most one is set.
type sinkInput struct {
	view  *viewRT
	side  bool
	table *tableRT
	dead  *deadLetters
}

// found reports whether anything feeds the sink.
func (in sinkInput) found() bool { return in.view != nil || in.table != nil || in.dead != nil }

// sinkInput resolves what a sink FROM from reads; nothing is set when no
// such object exists.
func (e *Engine) sinkInput(from string) sinkInput {
	o, ok := e.cat.Get(from)
	switch {
	case ok && o.SideOf != "":
		return sinkInput{view: e.views[strings.ToLower(o.SideOf)], side: true}
	case ok && o.DeadLetter:
		return sinkInput{dead: e.deadLetterTable(o.Name)}
	}
	if t := e.tables[strings.ToLower(from)]; t != nil {
		return sinkInput{table: t}
	}
	return sinkInput{view: e.views[strings.ToLower(from)]}
}

func (e *Engine) attachSink(o *catalog.Object) error {
	switch in := e.sinkInput(o.From); {
	case in.table != nil:
		return e.connectTableSink(&in.table.sinks, in.table.obj, o)
	case in.dead != nil:
		t, _ := e.cat.Get(o.From)
		return e.connectTableSink(&in.dead.sinks, t, o)
	case in.view != nil:
		return e.connectSink(in.view, o, in.side)
	}
	return sqlerr.New(sqlerr.UndefinedTable, "materialized view %q does not exist", o.From)
}

// detachSink closes and forgets the runtime of sink o (DROP SINK, or a
// CREATE SINK that failed after attaching it).
func (e *Engine) detachSink(o *catalog.Object) {
	switch in := e.sinkInput(o.From); {
	case in.table != nil:
		in.table.sinks = removeSink(in.table.sinks, o.Name)
	case in.dead != nil:
		in.dead.sinks = removeSink(in.dead.sinks, o.Name)
	case in.view != nil:
		in.view.sinks = removeSink(in.view.sinks, o.Name)
	}
}

// connectSink builds sink o and attaches it to the runtime v; side says
// it reads the view's side table (late rows), not the view.
func (e *Engine) connectSink(v *viewRT, o *catalog.Object, side bool) error {
	key := sinkKey(o, v.plan)
	if side {
		key = ""
	}
	rt, err := e.buildSink(o, side || planner.PropsOf(v.plan.Optimized).AppendOnly, key)
	if err != nil {
		return err
	}
	rt.side = side
	v.sinks = append(v.sinks, rt)
	return nil
}

// buildSink validates sink o's options, opens it (plan-only engines open
// nothing) and hands it the changes it had staged before a crash.
func (e *Engine) buildSink(o *catalog.Object, appendOnly bool, key string) (*sinkRT, error) {
	f, err := e.sinkFactory(o.Name, o.Options)
	if err != nil {
		return nil, err
	}
	if e.opts.PlanOnly {
		return &sinkRT{name: o.Name, conn: o.Options["connector"], sink: newPlannedSink(f, o.Options), key: key}, nil
	}
	spec := connectors.SinkSpec{Name: o.Name, Schema: o.Schema, Key: o.Key, Options: o.Options, AppendOnly: appendOnly}
	s, err := f.New(spec)
	if err != nil {
		return nil, &sqlerr.Error{Code: sqlerr.InvalidParameter, Msg: "sink " + o.Name, Err: redactedError{err}}
	}
	rt := &sinkRT{name: o.Name, conn: o.Options["connector"], sink: s, key: key}
	if err := e.recoverStaged(rt); err != nil {
		_ = s.Close()
		return nil, err
	}
	return rt, nil
}

// sinkFactory finds sink name's connector and validates its options.
func (e *Engine) sinkFactory(name string, opts map[string]string) (connectors.SinkFactory, error) {
	f, ok := e.opts.Registry.Sinks[opts["connector"]]
	if !ok {
		return f, sqlerr.New(sqlerr.InvalidParameter, "unknown sink connector %q", opts["connector"])
	}
	if len(f.Options) > 0 {
		if err := connectors.ValidateOptions(f.Name, f.Options, connectors.CommonSinkOptions, opts); err != nil {
			return f, &sqlerr.Error{Code: sqlerr.InvalidParameter, Msg: fmt.Sprintf("sink %s: %v", name, err)}
		}
	}
	return f, nil
}

// contractLine is the sink's line in EXPLAIN and the contract.
func (s *sinkRT) contractLine() string {
	delivery := "at-least-once"
	if d, ok := s.sink.(connectors.Delivery); ok {
		delivery = d.Delivery()
	}
	return fmt.Sprintf("sink %s: %s, %s, key [%s]", s.name, s.conn, delivery, s.key)
}

// eachSink calls fn for every sink: the views' (their side tables'
// included), the tables' and the dead-letter tables'.
func (e *Engine) eachSink(fn func(*sinkRT) error) error {
	for _, v := range e.views {
		for _, s := range v.sinks {
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	for _, t := range e.tables {
		for _, s := range t.sinks {
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	for _, d := range e.dlq {
		for _, s := range d.sinks {
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeSink closes sink name and returns sinks without it.
func removeSink(sinks []*sinkRT, name string) []*sinkRT {
	for i, s := range sinks {
		if strings.EqualFold(s.name, name) {
			_ = s.sink.Close()
			return append(sinks[:i], sinks[i+1:]...)
		}
	}
	return sinks
}

// writeSinks writes changes to the sinks whose side flag is side and
// returns the first error (sinks retry transient failures themselves).
func writeSinks(sinks []*sinkRT, changes []connectors.Change, side bool) error {
	var first error
	for _, s := range sinks {
		if s.side != side {
			continue
		}
		s.rows.Add(int64(len(changes)))
		if err := s.sink.Write(context.Background(), changes); err != nil && first == nil {
			first = fmt.Errorf("sink %s: %w", s.name, err)
		}
	}
	return first
}

// deliver writes the view's changes (side: its side table's) to the
// sinks reading them.
func (v *viewRT) deliver(ch []connectors.Change, side bool) {
	if !side {
		v.updated += int64(len(ch))
		v.notify(ch)
	}
	if len(v.sinks) == 0 {
		return
	}
	if err := writeSinks(v.sinks, ch, side); err != nil && v.err == nil {
		v.err = err
	}
}

func (v *viewRT) close() {
	v.endSubs()
	v.unlinkFeeds()
	if v.pipe != nil {
		v.pipe.Release() // its share of the memory budget goes to the other views
	}
	for _, r := range v.readers {
		if r.src != nil {
			_ = r.src.Close()
		}
	}
	for _, s := range v.sinks {
		_ = s.sink.Close()
	}
}

func (v *viewRT) prefix() string { return "v/" + v.plan.Name + "/" }

func (v *viewRT) dropState(st *state.Store) error {
	return st.DeletePrefix([]byte(v.prefix()))
}

// checkpoint writes the pipeline's changed state and each reader's
// position and watermarks.
func (v *viewRT) checkpoint(w *state.Writer) error {
	if err := v.pipe.Checkpoint(w); err != nil {
		return err
	}
	if err := v.checkpointCounters(w); err != nil {
		return err
	}
	for _, r := range v.readers {
		if err := w.Set([]byte(v.prefix()+"reader/"+strings.ToLower(r.obj.Name)), r.encode()); err != nil {
			return err
		}
	}
	return v.checkpointTables(w)
}

// encode is the reader's checkpointed position: the per-partition offsets
// (a memory source's: log sequence numbers), and the watermark state.
// The first value is 0; checkpoints before memory sources had offsets
// held a memory source's position there.
func (r *reader) encode() []byte {
	parts, cur := r.gen.State()
	row := types.Row{types.IntValue(0), types.IntValue(cur), types.BoolValue(r.ended)}
	offs := make(types.Row, len(r.offs))
	for i, o := range r.offs {
		offs[i] = types.IntValue(o)
	}
	wms := make(types.Row, len(parts))
	for i, p := range parts {
		wms[i] = types.IntValue(p)
	}
	return state.EncodeValue(row, offs, wms, types.Row{types.IntValue(r.decodeErrs)})
}

// restore loads a position written by encode (found is false for a
// reader that was never checkpointed) and opens the connector there.
func (r *reader) restore(ctx context.Context, st *state.Store, key []byte) error {
	b, ok, err := st.Get(key)
	if err != nil {
		return err
	}
	if ok {
		rows, err := state.DecodeValue(b)
		if err != nil {
			return fmt.Errorf("restore reader %s: %w", r.obj.Name, err)
		}
		r.ended = rows[0][2].Bool()
		if len(rows[1]) > len(r.offs) {
			return fmt.Errorf("restore reader %s: the checkpoint has %d partitions and the source now %d; partitions only go away when the input is recreated: drop and recreate the source to read it anew", r.obj.Name, len(rows[1]), len(r.offs))
		}
		for i := range r.offs {
			switch {
			case i < len(rows[1]):
				r.offs[i] = rows[1][i].I
			case len(rows[1]) == 0: // an older memory source's one log position (0 for other sources)
				r.offs[i] = rows[0][0].I
			}
		}
		parts := make([]int64, len(rows[2]))
		for i, p := range rows[2] {
			parts[i] = p.I
		}
		r.gen.Restore(parts, rows[0][1].I)
		if len(rows) > 3 && len(rows[3]) > 0 { // checkpoints before the counters have none
			r.decodeErrs = rows[3][0].I
		}
	}
	if !ok {
		return r.open(ctx)
	}
	if err := r.src.Open(ctx, r.offs); err != nil {
		return fmt.Errorf("open source %s: %w", r.obj.Name, err)
	}
	return nil
}

// grow follows a source that gained partitions while running: the new
// ones get offset 0 (their start) until their first batch, and a
// watermark slot that holds the source watermark like any partition that
// has not yet seen a row.
func (r *reader) grow(now int64) {
	if n := r.src.Partitions(); n > len(r.offs) {
		r.offs = append(r.offs, make([]int64, n-len(r.offs))...)
		r.parts = n
		r.gen.Grow(n, now)
	}
}

// open starts a connector that has no checkpointed position: nil offsets
// let it begin where its options say (the start, or a startup mode).
func (r *reader) open(ctx context.Context) error {
	if err := r.src.Open(ctx, nil); err != nil {
		return fmt.Errorf("open source %s: %w", r.obj.Name, err)
	}
	return nil
}

func (v *viewRT) restore(ctx context.Context, st *state.Store) error {
	if err := v.pipe.Restore(st); err != nil {
		return err
	}
	if err := v.restoreCounters(st); err != nil {
		return err
	}
	if err := v.restoreTables(st); err != nil {
		return err
	}
	for _, r := range v.readers {
		if err := r.restore(ctx, st, []byte(v.prefix()+"reader/"+strings.ToLower(r.obj.Name))); err != nil {
			return err
		}
	}
	// Operators learn the restored watermark before new rows arrive; a
	// view read here was restored before this one (it was created first)
	// and its output watermark is where the checkpoint left it.
	for _, r := range v.readers {
		if err := r.emitWatermark(r.gen.Current()); err != nil {
			return err
		}
	}
	for _, f := range v.upstream {
		if err := f.watermark(f.from.pipe.View0.OutputWatermark()); err != nil {
			return err
		}
	}
	return v.err
}

// feed pushes rows of partition part through every scan of r, computing
// the watermark in force before each row and advancing it after.
func (r *reader) feed(part int, rows []types.Row, now int64, owned bool) error {
	if len(rows) == 0 {
		return nil
	}
	rows = r.fillComputed(r.fillProcTime(rows, now))
	wms := make([]int64, len(rows))
	tc := r.obj.TimeCol
	for i, row := range rows {
		wms[i] = r.gen.Current()
		if tc >= 0 && !row[tc].IsNull() {
			r.gen.Observe(part, row[tc].I, now)
		}
	}
	// Scans reading the same columns share one projection (rows are
	// immutable once emitted).
	var done [][]int
	var projected [][]types.Row
	for _, sc := range r.scans {
		out := rows
		if !identity(sc.Cols, len(r.obj.Schema)) {
			i := slices.IndexFunc(done, func(c []int) bool { return slices.Equal(c, sc.Cols) })
			if i < 0 {
				p := projectInPlace(rows, sc.Cols, owned && len(r.scans) == 1)
				done, projected = append(done, sc.Cols), append(projected, p)
				i = len(done) - 1
			}
			out = projected[i]
		}
		if err := sc.Out.Emit(&exec.Batch{Rows: out, WM: wms}); err != nil {
			return err
		}
		if err := sc.Out.EmitWatermark(r.gen.Current()); err != nil {
			return err
		}
	}
	return nil
}

// emitWatermark sends wm to every scan of the source.
func (r *reader) emitWatermark(wm int64) error {
	for _, sc := range r.scans {
		if err := sc.Out.EmitWatermark(wm); err != nil {
			return err
		}
	}
	return nil
}

func pick(s types.Schema, cols []int) types.Schema {
	out := make(types.Schema, len(cols))
	for i, c := range cols {
		out[i] = s[c]
	}
	return out
}

// expand places connector rows (input columns only) into full source
// rows, filling INGESTION_TIME() columns with the row's ingestion time
// (times[i], else the batch's).
func (r *reader) expand(rows []types.Row, ingested int64, times []int64) []types.Row {
	in := r.in
	if len(in) == len(r.obj.Schema) {
		return rows
	}
	n := len(r.obj.Schema)
	slab := make([]types.Value, len(rows)*n)
	out := make([]types.Row, len(rows))
	for i, src := range rows {
		row := slab[i*n : (i+1)*n : (i+1)*n]
		for j, c := range in {
			row[c] = src[j]
		}
		at := ingested
		if i < len(times) {
			at = times[i]
		}
		for c, g := range r.obj.Generated {
			if g == catalog.GenIngestion {
				row[c] = types.TimestampValue(at)
			}
		}
		out[i] = row
	}
	return out
}

// fillProcTime sets PROCTIME() columns to now.
func (r *reader) fillProcTime(rows []types.Row, now int64) []types.Row {
	has := false
	for _, g := range r.obj.Generated {
		has = has || g == catalog.GenProcTime
	}
	if !has {
		return rows
	}
	out := make([]types.Row, len(rows))
	for i, src := range rows {
		row := src.Clone()
		for c, g := range r.obj.Generated {
			if g == catalog.GenProcTime {
				row[c] = types.TimestampValue(now)
			}
		}
		out[i] = row
	}
	return out
}

// tick advances the source's watermark on the wall clock: partitions idle
// for longer than idle_timeout stop holding it back, and a processing-time
// watermark moves to now, so windows fire even when no rows arrive.
func (r *reader) tick(now int64) error {
	before := r.gen.Current()
	r.gen.Tick(now)
	tc := r.obj.TimeCol
	if tc >= 0 && tc < len(r.obj.Generated) && r.obj.Generated[tc] == catalog.GenProcTime {
		for p := 0; p < r.parts; p++ {
			r.gen.Observe(p, now, now)
		}
	}
	if r.gen.Current() == before {
		return nil
	}
	return r.emitWatermark(r.gen.Current())
}

func identity(cols []int, n int) bool {
	if len(cols) != n {
		return false
	}
	for i, c := range cols {
		if c != i {
			return false
		}
	}
	return true
}

func project(rows []types.Row, cols []int) []types.Row {
	out := make([]types.Row, len(rows))
	slab := make([]types.Value, len(rows)*len(cols))
	for i, r := range rows {
		row := slab[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
		for j, c := range cols {
			row[j] = r[c]
		}
		out[i] = row
	}
	return out
}

// projectInPlace is project, reusing rows and their arrays when mayReuse
// (the rows are the caller's and nothing else reads them) and cols are
// ascending: each row's kept values move to its front (a value moves only
// to a place before it, never over one still to move). It saves the
// projection's allocation per row of a source read from a connector.
func projectInPlace(rows []types.Row, cols []int, mayReuse bool) []types.Row {
	if !mayReuse || !ascending(cols) {
		return project(rows, cols)
	}
	for i, r := range rows {
		for j, c := range cols {
			r[j] = r[c]
		}
		rows[i] = r[:len(cols):len(cols)]
	}
	return rows
}

// ascending reports whether cols are column numbers in strictly ascending
// order.
func ascending(cols []int) bool {
	for k, c := range cols {
		if c < 0 || (k > 0 && c <= cols[k-1]) {
			return false
		}
	}
	return true
}

// logEntry is one INSERT into a memory source: where the log holds it.
type logEntry struct {
	seq    uint64
	source string
	part   int
}

func logKey(seq uint64) []byte {
	k := append([]byte{}, prefixLog...)
	return binary.BigEndian.AppendUint64(k, seq)
}

// flush drives every view to quiescence: memory-log entries in insertion
// order, then bounded external sources until they end.
func (e *Engine) flush(ctx context.Context) error {
	if err := e.replayLog(ctx); err != nil {
		return err
	}
	for _, v := range e.views {
		for _, r := range v.readers {
			if err := r.tick(e.now()); err != nil {
				return err
			}
		}
	}
	limit := e.flushLimitBatches()
	for _, v := range e.views {
		for batches := 0; ; batches++ {
			if err := ctx.Err(); err != nil {
				return &sqlerr.Error{Code: sqlerr.QueryCanceled, Msg: "canceling statement", Err: err}
			}
			if batches == limit {
				return sqlerr.New(sqlerr.FeatureNotSupport, "FLUSH: view %s's sources are still producing after %d rows; an unbounded source (datagen without events) never drains", v.plan.Name, limit*flushBatchRows).
					WithHint("bound the source (events = N), raise SET flush_limit_rows, or use streamsql run")
			}
			progressed, err := e.step(ctx, v, flushBatchRows)
			if err != nil {
				return err
			}
			if !progressed {
				break
			}
		}
	}
	for _, t := range e.tables {
		for batches := 0; ; batches++ {
			if batches == limit {
				return sqlerr.New(sqlerr.FeatureNotSupport, "FLUSH: table %s's source is still producing after %d rows", t.obj.Name, limit*flushBatchRows)
			}
			progressed, err := e.stepTable(ctx, t, flushBatchRows)
			if err != nil {
				return err
			}
			if !progressed {
				break
			}
		}
	}
	return nil
}

// flushBatchRows is the batch size FLUSH reads external sources with.
const flushBatchRows = 4096

// flushLimitBatches bounds how long FLUSH drains external sources (SET
// flush_limit_rows, default 40 M rows), so an unbounded source fails the
// FLUSH instead of hanging it.
func (e *Engine) flushLimitBatches() int {
	v, _ := e.setting("flush_limit_rows")
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		n = 40_000_000
	}
	return max(1, n/flushBatchRows)
}

// replayLog feeds every memory-log entry a view has not consumed yet, in
// insertion order: for each entry, each memory reader of its source
// reads it (memorySource returns a source's entries in log order).
func (e *Engine) replayLog(ctx context.Context) error {
	from := e.logSeq
	for _, v := range e.views {
		for _, r := range v.readers {
			if logged(r.obj) {
				from = min(from, uint64(slices.Min(r.offs)))
			}
		}
	}
	if from >= e.logSeq {
		return nil
	}
	// Log keys are big-endian sequence numbers: the scan starts at the
	// first entry not yet consumed and runs in insertion order.
	var entries []logEntry
	err := e.store.ScanFrom(prefixLog, logKey(from+1), func(k, val []byte) error {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		entries = append(entries, logEntry{seq: binary.BigEndian.Uint64(k[len(prefixLog):]), source: rows[0][0].S, part: int(rows[0][1].I)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("read memory log: %w", err)
	}
	for _, en := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, v := range e.views {
			for _, r := range v.readers {
				if !logged(r.obj) || !strings.EqualFold(r.obj.Name, en.source) || en.part >= len(r.offs) || r.offs[en.part] >= int64(en.seq) {
					continue
				}
				if _, err := e.readBatch(ctx, r, flushBatchRows, func(b connectors.Batch, rows []types.Row) error {
					return r.feed(b.Partition, rows, e.now(), true)
				}); err != nil {
					return err
				}
				if v.err != nil {
					return v.err
				}
			}
		}
	}
	return nil
}

// step reads one batch from each external source of v; it reports whether
// any source produced rows. Memory sources are read by replayLog (FLUSH
// and recovery), in the log's order across sources.
func (e *Engine) step(ctx context.Context, v *viewRT, max int) (bool, error) {
	progressed := false
	for _, r := range v.readers {
		if logged(r.obj) {
			continue
		}
		p, err := e.readBatch(ctx, r, max, func(b connectors.Batch, rows []types.Row) error {
			return r.feed(b.Partition, rows, e.now(), true) // a connector's rows are the engine's
		})
		if err != nil {
			return false, err
		}
		progressed = progressed || p
	}
	return progressed, v.err
}

// readBatch reads one batch from r's connector, applies the source's
// on_error policy to its poison records, hands the good rows (expanded to
// the full source schema) to apply, and advances r's offset. It reports
// whether the source produced anything.
func (e *Engine) readBatch(ctx context.Context, r *reader, max int, apply func(b connectors.Batch, rows []types.Row) error) (bool, error) {
	if r.ended {
		return false, nil
	}
	var b connectors.Batch
	var err error
	if e.stepping {
		// Step holds readMu: no statement touches sources meanwhile, and
		// queries need not wait while the source waits for data.
		e.mu.Unlock()
		b, err = r.src.Read(ctx, max)
		e.mu.Lock()
	} else {
		b, err = r.src.Read(ctx, max)
	}
	if errors.Is(err, connectors.ErrEndOfInput) {
		r.ended = true
		// A bounded input that ended closes every window: event time is
		// complete.
		return false, r.emitWatermark(1<<63 - 1)
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", r.obj.Name, err)
	}
	r.grow(e.now())
	if bl, ok := r.src.(connectors.Backlogger); ok {
		r.backlog = bl.Backlog()
	}
	if pr, ok := r.src.(connectors.Progresser); ok {
		r.progDone, r.progTotal = pr.Progress()
	}
	if b.Partition < 0 || b.Partition >= len(r.offs) {
		return false, fmt.Errorf("read %s: batch for partition %d of %d", r.obj.Name, b.Partition, len(r.offs))
	}
	if len(b.Rows) == 0 && b.Next == r.offs[b.Partition] {
		return false, nil
	}
	ingested := b.Ingested
	if ingested == 0 {
		ingested = e.now()
	}
	if err := e.poison(r, b.Errors, ingested); err != nil {
		return false, err
	}
	if err := apply(b, r.expand(b.Rows, ingested, b.Times)); err != nil {
		return false, err
	}
	r.count(b.Partition, len(b.Rows))
	r.countBytes(b.Partition, b.Bytes)
	r.offs[b.Partition] = b.Next
	return true, nil
}

// Step reads and processes one batch per external source of every view;
// it reports whether anything was read and whether every source ended.
func (e *Engine) Step(ctx context.Context, max int) (progressed, done bool, err error) {
	e.readMu.Lock()
	defer e.readMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false, true, nil
	}
	e.stepping = true
	defer func() { e.stepping = false }()
	stallAfter := e.stallTimeout()
	done = true
	for _, v := range e.views {
		p, err := e.step(ctx, v, max)
		if err != nil {
			return false, false, err
		}
		progressed = progressed || p
		for _, r := range v.readers {
			if !logged(r.obj) && !r.ended {
				done = false
			}
		}
		for _, r := range v.readers {
			if err := r.tick(e.now()); err != nil {
				return false, false, err
			}
		}
		for _, op := range v.pipe.Stateful {
			if err := op.Tick(e.now()); err != nil {
				return false, false, err
			}
		}
		e.checkStall(v, e.now(), stallAfter)
		if v.err != nil {
			return false, false, v.err
		}
	}
	for _, t := range e.tables {
		p, err := e.stepTable(ctx, t, max)
		if err != nil {
			return false, false, err
		}
		progressed = progressed || p
		if t.rd != nil && !t.rd.ended {
			done = false
		}
	}
	return progressed, done, nil
}

// Stats returns the total changes emitted by views and the minimum
// watermark over all readers.
func (e *Engine) Stats() (updates int64, watermark int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	watermark = 1<<63 - 1
	for _, v := range e.views {
		updates += v.updated
		for _, r := range v.readers {
			if c := r.gen.Current(); c < watermark {
				watermark = c
			}
		}
	}
	return updates, watermark
}

// Staged sink changes live under sinkstage/<sink>: the id of the
// checkpoint they belong to, then the bytes the sink's PreCommit returned.
// Each checkpoint replaces them; only the last one can be uncommitted.
func stagedKey(sink string) []byte { return []byte("sinkstage/" + strings.ToLower(sink)) }

func writeStaged(w *state.Writer, sink string, id uint64, b []byte) error {
	if b == nil {
		return w.Delete(stagedKey(sink))
	}
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(b)), id)
	return w.Set(stagedKey(sink), append(v, b...))
}

// recoverStaged hands an exactly-once sink the changes of the last
// checkpoint, which the crash may have kept from being committed.
func (e *Engine) recoverStaged(s *sinkRT) error {
	r, ok := s.sink.(connectors.Recoverer)
	if !ok {
		return nil
	}
	b, found, err := e.store.Get(stagedKey(s.name))
	if err != nil || !found || len(b) < 8 {
		return err
	}
	if err := r.Recover(context.Background(), binary.BigEndian.Uint64(b), b[8:]); err != nil {
		return fmt.Errorf("sink %s: recover checkpoint %d: %w", s.name, binary.BigEndian.Uint64(b), err)
	}
	return nil
}
