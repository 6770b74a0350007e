package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
	readers []*exec.Source
	sinks   *exec.Sinks     // the sink operators under its Materialize
	subs    []*Subscription // SUBSCRIBE feeds (engine/subscribe.go)
	updated int64
	// late counts the view's late rows (its operators add to it).
	late lateness.Counters
	// stall watches the view's watermark (stall.go).
	stall stallState
	// err is the first error a feed between views met; the pipeline
	// stops with it, as with its sinks' first error (sinks.Err).
	err error
	// par is the parallelism the pipeline was built with.
	par int
	// upstream feeds the views this pipeline reads into its scans;
	// feeds are the pipelines reading this view (view_feed.go).
	upstream, feeds []*viewFeed
	// tables feed the TABLEs this pipeline reads into its scans.
	tables []*tableFeed
}

// sinkKey is what sink o writes by: its primary_key option (the postgres
// sink's ON CONFLICT target) when set, else the view's key.
func sinkKey(o *catalog.Object, vp *planner.ViewPlan) string {
	if pk := strings.TrimSpace(o.Options["primary_key"]); pk != "" {
		return pk
	}
	return keyNames(vp)
}

func (e *Engine) startView(ctx context.Context, vp *planner.ViewPlan) (*viewRT, error) {
	return e.startPipeline(ctx, vp, false)
}

// startPipeline builds and registers the runtime of a view, or (with
// passThrough) of a sink with its own query, which keeps no view store.
func (e *Engine) startPipeline(ctx context.Context, vp *planner.ViewPlan, passThrough bool) (*viewRT, error) {
	rt := &viewRT{plan: vp, par: e.parallelism(), sinks: &exec.Sinks{}}
	env := exec.Env{PassThrough: passThrough, Parallelism: rt.par, Late: &rt.late, EvalErrors: &e.evalErrs, Now: e.now(), SideSchema: vp.SideSchema,
		Store: e.store, StateBudget: e.stateBudget(), Memory: e.mem, Stopwatch: stopwatch(), Sinks: rt.sinks}
	// The view's changes go to its sink operators in exec; the engine
	// only counts them and feeds SUBSCRIBE.
	env.Sink = rt.observe
	p, err := exec.BuildPipeline(vp.Optimized, env)
	if err != nil {
		return nil, err
	}
	rt.pipe = p
	p.View0.OnWatermark(rt.outWatermark)
	p.View0.OnChanges(rt.outChanges)
	byName := map[string]*exec.Source{}
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
		r.AddScan(sc)
	}
	e.views[strings.ToLower(vp.Name)] = rt
	return rt, nil
}

// openFresh opens the connectors of a view created just now.
func (v *viewRT) openFresh(ctx context.Context) error {
	for _, r := range v.readers {
		if err := r.Open(ctx); err != nil {
			return err
		}
	}
	return nil
}

// newReader builds the source operator that reads o for one pipeline
// (or one TABLE); its connector is built but not opened.
func (e *Engine) newReader(ctx context.Context, o *catalog.Object) (*exec.Source, error) {
	onError, err := onErrorPolicy(o)
	if err != nil {
		return nil, err
	}
	computed, err := compileComputed(o, new(exec.EvalErrors))
	if err != nil {
		return nil, err
	}
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
	src, err := e.openSource(ctx, o)
	if err != nil {
		return nil, err
	}
	return exec.NewSource(exec.SourceConfig{Object: o, Conn: src, OnError: onError, Computed: computed, IdleTimeout: idle,
		Now: e.now, Wait: e.waitRead,
		DeadLetter: func(errs []connectors.DecodeError, at int64) error {
			return e.deadLetterTable(o.DeadLetterTable()).addAll(o.Name, errs, at)
		}}), nil
}

// waitRead runs a connector's Read: while Step holds readMu no statement
// touches sources, so it releases the statement lock and queries need not
// wait while the source waits for data.
func (e *Engine) waitRead(read func()) {
	if !e.stepping {
		read()
		return
	}
	e.mu.Unlock()
	read()
	e.mu.Lock()
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
		in.table.sinks.Remove(o.Name)
	case in.dead != nil:
		in.dead.sinks.Remove(o.Name)
	case in.view != nil:
		in.view.sinks.Remove(o.Name)
	}
}

// connectSink builds sink o and attaches it to the runtime v; side says
// it reads the view's side table (late rows), not the view.
func (e *Engine) connectSink(v *viewRT, o *catalog.Object, side bool) error {
	key := sinkKey(o, v.plan)
	if side {
		key = ""
	}
	s, err := e.buildSink(o, side || planner.PropsOf(v.plan.Optimized).AppendOnly, key, side)
	if err != nil {
		return err
	}
	v.sinks.Add(s)
	return nil
}

// buildSink validates sink o's options, opens it (plan-only engines open
// nothing) and hands it the changes it had staged before a crash.
func (e *Engine) buildSink(o *catalog.Object, appendOnly bool, key string, side bool) (*exec.Sink, error) {
	f, err := e.sinkFactory(o.Name, o.Options)
	if err != nil {
		return nil, err
	}
	if e.opts.PlanOnly {
		return exec.NewSink(o.Name, o.Options["connector"], key, side, newPlannedSink(f, o.Options), durationBounds), nil
	}
	spec := connectors.SinkSpec{Name: o.Name, Schema: o.Schema, Key: o.Key, Options: o.Options, AppendOnly: appendOnly}
	s, err := f.New(spec)
	if err != nil {
		return nil, &sqlerr.Error{Code: sqlerr.InvalidParameter, Msg: "sink " + o.Name, Err: redactedError{err}}
	}
	rt := exec.NewSink(o.Name, o.Options["connector"], key, side, s, durationBounds)
	// The changes it had staged before a crash.
	if err := rt.Recover(e.store); err != nil {
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

// eachSink calls fn for every sink: the views' (their side tables'
// included), the tables' and the dead-letter tables'.
func (e *Engine) eachSink(fn func(*exec.Sink) error) error {
	for _, v := range e.views {
		for _, s := range v.sinks.List() {
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	for _, t := range e.tables {
		for _, s := range t.sinks.List() {
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	for _, d := range e.dlq {
		for _, s := range d.sinks.List() {
			if err := fn(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// observe counts the view's changes and feeds them to its
// subscriptions; its sink operators write them (exec.Env.Sinks).
func (v *viewRT) observe(ch []connectors.Change) {
	v.updated += int64(len(ch))
	v.notify(ch)
}

// fault is the error that stops the view's pipeline: a feed's, or the
// first a sink returned from Write (sinks retry transient failures
// themselves).
func (v *viewRT) fault() error {
	if v.err != nil {
		return v.err
	}
	return v.sinks.Err()
}

func (v *viewRT) close() {
	v.endSubs()
	v.unlinkFeeds()
	if v.pipe != nil {
		v.pipe.Release() // its share of the memory budget goes to the other views
	}
	for _, r := range v.readers {
		_ = r.Close()
	}
	v.sinks.Close()
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
		if err := w.Set([]byte(v.prefix()+"reader/"+strings.ToLower(r.Object().Name)), r.Encode()); err != nil {
			return err
		}
	}
	return v.checkpointTables(w)
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
		if err := r.Restore(ctx, st, []byte(v.prefix()+"reader/"+strings.ToLower(r.Object().Name))); err != nil {
			return err
		}
	}
	// Operators learn the restored watermark before new rows arrive; a
	// view read here was restored before this one (it was created first)
	// and its output watermark is where the checkpoint left it.
	for _, r := range v.readers {
		if err := r.EmitWatermark(r.Watermark()); err != nil {
			return err
		}
	}
	for _, f := range v.upstream {
		if err := f.watermark(f.from.pipe.View0.OutputWatermark()); err != nil {
			return err
		}
	}
	return v.fault()
}

func pick(s types.Schema, cols []int) types.Schema {
	out := make(types.Schema, len(cols))
	for i, c := range cols {
		out[i] = s[c]
	}
	return out
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
			if err := r.Tick(e.now()); err != nil {
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
			if logged(r.Object()) {
				from = min(from, uint64(slices.Min(r.Offsets())))
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
				if !logged(r.Object()) || !strings.EqualFold(r.Object().Name, en.source) || en.part >= len(r.Offsets()) || r.Offsets()[en.part] >= int64(en.seq) {
					continue
				}
				if _, err := r.Pull(ctx, flushBatchRows, nil); err != nil {
					return err
				}
				if err := v.fault(); err != nil {
					return err
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
		if logged(r.Object()) {
			continue
		}
		p, err := r.Pull(ctx, max, nil)
		if err != nil {
			return false, err
		}
		progressed = progressed || p
	}
	return progressed, v.fault()
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
			if !logged(r.Object()) && !r.Ended() {
				done = false
			}
		}
		for _, r := range v.readers {
			if err := r.Tick(e.now()); err != nil {
				return false, false, err
			}
		}
		for _, op := range v.pipe.Stateful {
			if err := op.Tick(e.now()); err != nil {
				return false, false, err
			}
		}
		e.checkStall(v, e.now(), stallAfter)
		if err := v.fault(); err != nil {
			return false, false, err
		}
	}
	for _, t := range e.tables {
		p, err := e.stepTable(ctx, t, max)
		if err != nil {
			return false, false, err
		}
		progressed = progressed || p
		if t.rd != nil && !t.rd.Ended() {
			done = false
		}
	}
	var changed int64
	for _, v := range e.views {
		if v.pipe != nil {
			changed += v.pipe.ChangedBytes()
		}
	}
	e.changed.Store(changed)
	return progressed, done, nil
}

// Stats returns the total changes emitted by views and the minimum
// watermark over all readers.
func (e *Engine) Stats() (updates int64, watermark int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	watermark = types.EndOfTime
	for _, v := range e.views {
		updates += v.updated
		for _, r := range v.readers {
			if c := r.Watermark(); c < watermark {
				watermark = c
			}
		}
	}
	return updates, watermark
}
