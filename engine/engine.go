// Package engine runs streamsql: it owns the catalog, the state store, the
// memory-source log and one pipeline per materialized view, and executes
// statements (DDL, INSERT, FLUSH, ad-hoc SELECT, EXPLAIN, SET, SHOW).
// Connectors come in through a registry that cmd/streamsql fills.
//
//	INSERT ──▶ memory log (Badger, synced) ─┐
//	datagen / kafka / file ─────────────────┼─▶ exec.Source (watermarks)
//	                                        ▼
//	                   view pipeline: filter/project/window/agg/join
//	                                        ▼
//	                     Materialize (view contents) ──▶ exec.Sink
//
// The pipeline, its source and sink operators live in exec; the engine
// keeps statements, the catalog and the checkpoint driver. A checkpoint
// pre-commits every sink operator, then writes, in one Badger
// transaction, every pipeline's changed state, every source operator's
// position and watermark, the sinks' staged changes and the catalog; the
// sinks commit once it is stored. Recovery loads the last checkpoint,
// hands each sink its staged changes and replays inputs from the stored
// positions.
package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Result is what a statement returns: rows for queries, SHOW and EXPLAIN;
// a tag otherwise.
type Result struct {
	Schema types.Schema
	Rows   []types.Row
	Tag    string
	Notice []string
	// TimeZone is the statement's session TimeZone, the zone clients
	// print its TIMESTAMPTZ values in.
	TimeZone string
}

// Options configure an engine.
type Options struct {
	StateDir string
	Registry *connectors.Registry
	Settings map[string]string
	Stdout   io.Writer // where stdout sinks print
	Clock    func() time.Time
	// SkipSameDDL makes a CREATE of an existing object with the same text
	// a no-op, so `streamsql run FILE` can be re-run on its state.
	SkipSameDDL bool
	// PlanOnly validates connector options without opening connectors
	// (see planonly.go): for explain and check.
	PlanOnly bool
	// Script is the script the caller Execs right after Open (the file
	// `streamsql run` runs again on its state), or "". Recovery starts each
	// view and query sink it creates with the settings the script's SETs
	// give at its CREATE (parallelism, state_cache_size: what views read
	// when they start), as a fresh run of the script would; the script's
	// own SETs run only after recovery. Other objects start with Settings.
	Script string
	// SetMemoryLimit, when set, receives the memory_limit setting in bytes
	// (0: no limit) when the engine opens (the script's SET, else
	// Settings', else the default: the value Badger's buffers are sized
	// from, see state.BadgerSizes) and whenever SET changes it; the
	// command passes debug.SetMemoryLimit. Nil leaves the Go runtime's
	// limit alone (tests, embedders).
	SetMemoryLimit func(bytes int64)
	// ReadOnly opens the state read-only and answers queries from its
	// last checkpoint without starting the pipelines (engine/readonly.go):
	// `streamsql query`.
	ReadOnly bool
	// Logger receives the engine's events as structured records: stalled
	// watermarks (stall.go) at warn, checkpoints at debug (their failures
	// at error), what recovery restored at info. Nil discards them.
	Logger *slog.Logger
}

// Engine is one streamsql instance over a state directory. Its methods
// are safe for concurrent use; statements run one at a time.
type Engine struct {
	mu lock
	// mem is the bytes of state the pipelines keep in memory, from
	// memory_limit (see stateBytes).
	mem *exec.MemoryBudget
	// readMu serialises reading from sources, so Step can read with mu
	// released (a source may wait in Read: a throttled datagen, a Kafka
	// poll) while queries run. It is taken before mu, by Step and by
	// statements that read, open or close sources (see needsReadLock).
	readMu lock
	// sess is the settings of the session whose statement runs (nil for
	// scripts); set by Exec under mu, see WithSession.
	sess map[string]string
	// params are the parameter values of the prepared statement Execute
	// runs (nil otherwise): INSERT, DELETE, UPDATE and queries bind them.
	params   []types.Value
	stepping bool // Step holds readMu and releases mu around Read
	// changed is what the views' stores changed since the last checkpoint
	// (exec.Pipeline.ChangedBytes) after the last Step, for Run's early
	// checkpoints.
	changed  atomic.Int64
	opts     Options
	store    *state.Store
	cat      *catalog.Catalog
	settings map[string]string
	views    map[string]*viewRT
	evalErrs exec.EvalErrors
	// dlq holds the dead-letter tables by lower-case name.
	dlq    map[string]*deadLetters
	tables map[string]*tableRT // running TABLEs by lower-case name
	// pointShapes caches, by parameterised text, which SELECT texts are
	// point reads (pointtext.go); e.mu guards it.
	pointShapes map[string]pointShape
	ckptStats   ckptStats // see metrics.go
	logSeq      uint64    // last memory-log sequence number written
	ckpt        uint64
	closed      bool
	// repaired is set when a read-only open had to recover the store of a
	// crashed process first (see openReadOnlyStore).
	repaired bool
	// recovered is what Open restored (zero on a fresh start).
	recovered Recovery
}

// Open opens (or recovers) the engine in opts.StateDir.
func Open(opts Options) (*Engine, error) { return OpenContext(context.Background(), opts) }

// OpenContext is Open whose recovery ends when ctx does: reopening the
// sources waits while their systems are unreachable (see
// connectors.SourceFactory).
func OpenContext(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Registry == nil {
		opts.Registry = connectors.NewRegistry()
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var st *state.Store
	var err error
	var repaired bool
	start := time.Now() // the restore time includes the store's own recovery
	memLimit := memoryLimitAtOpen(opts)
	if opts.ReadOnly {
		st, err = openReadOnlyStore(opts.StateDir, &repaired)
	} else {
		// The spill area holds values changed after the last checkpoint:
		// they are not part of it, so recovery starts without them.
		// Deleted (not dropped: a DropPrefix rewrites tables for seconds
		// on the restart's path) as the store opens, before anything
		// spills again.
		st, err = state.Open(opts.StateDir, state.WithMemoryLimit(memLimit), state.WithClearOnOpen([]byte(exec.SpillPrefix)))
	}
	if err != nil {
		return nil, err
	}
	e := &Engine{mem: exec.NewMemoryBudget(stateBytes(memLimit)), repaired: repaired, mu: newLock(), readMu: newLock(), opts: opts, store: st, cat: catalog.New(), views: map[string]*viewRT{}, dlq: map[string]*deadLetters{}, tables: map[string]*tableRT{}, pointShapes: map[string]pointShape{}, settings: map[string]string{
		"strict": "on", "parallelism": strconv.Itoa(runtime.NumCPU()), "checkpoint_interval": "10s",
		"state_cache_size": "1000000", "flush_limit_rows": "40000000", "watermark_stall_timeout": "1m",
		"memory_limit": defaultMemoryLimit,
		"timezone":     "UTC",
	}}
	// The memory connector is the engine's own: a source like any other
	// in its copy of the registry.
	reg := connectors.NewRegistry()
	maps.Copy(reg.Sources, opts.Registry.Sources)
	maps.Copy(reg.Sinks, opts.Registry.Sinks)
	reg.Sources[memoryConnector] = e.memoryFactory()
	e.opts.Registry = reg
	for k, v := range opts.Settings {
		if err := checkSetting(strings.ToLower(k), v); err != nil {
			_ = st.Close()
			return nil, err
		}
		e.settings[strings.ToLower(k)] = v
	}
	if opts.ReadOnly {
		if err := e.loadMeta(); err != nil {
			_ = st.Close()
			return nil, err
		}
		return e, nil
	}
	if opts.SetMemoryLimit != nil {
		opts.SetMemoryLimit(memLimit)
	}
	if err := e.recover(ctx); err != nil {
		e.closeAll() // the connectors recovery opened before it failed
		_ = st.Close()
		return nil, err
	}
	if len(e.cat.List(catalog.View))+len(e.cat.List(catalog.Table))+len(e.cat.List(catalog.Sink)) > 0 {
		e.recovered = Recovery{Duration: time.Since(start)}
		e.recovered.Bytes, _ = st.DiskUsage() // a figure for the log line only
	}
	return e, nil
}

// Recovery describes what Open restored from an existing state directory.
type Recovery struct {
	// Bytes is the state directory's size on disk after recovery.
	Bytes int64
	// Duration is the wall time from opening the store (which replays
	// Badger's write-ahead log and finishes a committed checkpoint's
	// apply after a crash) to every view, table and sink being restored
	// and the memory log replayed.
	Duration time.Duration
}

// String is the line `run` and `serve` print, e.g. "restored 465 MB of
// state in 19.8 s".
func (r Recovery) String() string {
	return fmt.Sprintf("restored %.0f MB of state in %.1f s", float64(r.Bytes)/1e6, r.Duration.Seconds())
}

// Recovered returns what Open restored; ok is false when the state
// directory held no views, tables or sinks (a fresh start).
func (e *Engine) Recovered() (r Recovery, ok bool) {
	return e.recovered, e.recovered.Duration > 0
}

var (
	keyCatalog = []byte("meta/catalog")
	keyCkpt    = []byte("meta/checkpoint")
	prefixLog  = []byte("mlog/")
)

// recover loads the catalog and re-plans every view, then restores their
// state and reader positions from the last checkpoint.
func (e *Engine) recover(ctx context.Context) error {
	if err := e.loadMeta(); err != nil {
		return err
	}
	for _, o := range e.cat.List(catalog.Table) {
		switch {
		case o.DeadLetter:
			e.deadLetterTable(o.Name) // its rows stay in the store
		case o.SideOf == "":
			t, err := e.startTable(ctx, o)
			if err != nil {
				return err
			}
			if err := t.restore(ctx, e.store); err != nil {
				return err
			}
		}
	}
	at := scriptSettings(e.opts.Script)
	for _, o := range e.cat.List(catalog.View) {
		if err := e.recoverView(ctx, o, at[strings.ToLower(o.Name)]); err != nil {
			return err
		}
	}
	for _, o := range e.cat.List(catalog.Sink) {
		undo := e.withSettings(at[strings.ToLower(o.Name)])
		err := e.recoverSink(ctx, o)
		undo()
		if err != nil {
			return err
		}
	}
	// Views take the TABLE changes made after the checkpoint, and
	// acknowledged INSERTs after the checkpoint are replayed now, so views
	// show at least what they showed before a crash without a new FLUSH.
	if err := e.catchUpTables(ctx); err != nil {
		return err
	}
	return e.replayLog(ctx)
}

// recoverView re-plans view o from its stored DDL with the settings set
// laid over the engine's, starts it and restores its state.
func (e *Engine) recoverView(ctx context.Context, o *catalog.Object, set map[string]string) error {
	defer e.withSettings(set)()
	stmts, err := parser.Parse(o.SQL)
	if err != nil {
		return fmt.Errorf("recover view %s: %w", o.Name, err)
	}
	cv, ok := stmts[0].(*parser.CreateViewStmt)
	if !ok {
		return fmt.Errorf("recover view %s: stored DDL is not CREATE MATERIALIZED VIEW", o.Name)
	}
	vp, err := planner.PlanView(cv, e.resolverExcluding(o.Name, sideTableOf(cv)), planner.Settings{Strict: false, Parallelism: e.parallelism(), TimeZone: o.TimeZone})
	if err != nil {
		return fmt.Errorf("recover view %s: %w", o.Name, err)
	}
	// Catalogs written before views could read views kept no changelog
	// description; the plan gives it again.
	describeChangelog(o, vp)
	rt, err := e.startView(ctx, vp)
	if err != nil {
		return err
	}
	return rt.restore(ctx, e.store)
}

// recoverSink re-attaches a sink: to its view, or, for a sink with its own
// query, by re-planning and restoring that query's pipeline.
func (e *Engine) recoverSink(ctx context.Context, o *catalog.Object) error {
	if o.From != "" {
		return e.attachSink(o)
	}
	stmts, err := parser.Parse(o.SQL)
	if err != nil {
		return fmt.Errorf("recover sink %s: %w", o.Name, err)
	}
	st, ok := stmts[0].(*parser.CreateSinkStmt)
	if !ok || st.Query == nil {
		return fmt.Errorf("recover sink %s: stored DDL is not CREATE SINK ... AS", o.Name)
	}
	vp, err := planner.PlanView(querySinkView(st), e.resolverExcluding(o.Name), planner.Settings{Parallelism: e.parallelism(), TimeZone: o.TimeZone})
	if err != nil {
		return fmt.Errorf("recover sink %s: %w", o.Name, err)
	}
	rt, err := e.startPipeline(ctx, vp, true)
	if err != nil {
		return err
	}
	if err := rt.restore(ctx, e.store); err != nil {
		return err
	}
	return e.connectSink(rt, o, false)
}

// sideTableOf names the view's LATE DATA side table, or "".
func sideTableOf(cv *parser.CreateViewStmt) string {
	if cv.Streaming.LateData != nil {
		return cv.Streaming.LateData.SideTable
	}
	return ""
}

// resolverExcluding hides the view itself and its side table while it is
// re-planned (they are in the catalog already).
func (e *Engine) resolverExcluding(names ...string) planner.Resolver {
	return excl{cat: e.cat, names: names}
}

type excl struct {
	cat   *catalog.Catalog
	names []string
}

func (x excl) Get(name string) (*catalog.Object, bool) {
	for _, n := range x.names {
		if n != "" && strings.EqualFold(n, name) {
			return nil, false
		}
	}
	return x.cat.Get(name)
}

// Function implements planner.FunctionResolver.
func (x excl) Function(name string) (*catalog.Function, bool) { return x.cat.Function(name) }

func (e *Engine) parallelism() int {
	v, _ := e.setting("parallelism")
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// stateBudget is the number of windows per operator instance whose values
// stay in memory (SET state_cache_size; 0 = no limit).
func (e *Engine) stateBudget() int {
	n, err := strconv.Atoi(e.settings["state_cache_size"])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func (e *Engine) strict() bool {
	v, _ := e.setting("strict")
	on, ok := types.ParseBool(v)
	return on || !ok
}

func (e *Engine) now() int64 { return e.opts.Clock().UnixMicro() }

// enter takes the locks statements stmts run under (the read lock first
// when one reads what a step writes, then the engine's) and binds the
// caller's session and the parameters' values (nil: none) until the
// returned func releases them.
func (e *Engine) enter(ctx context.Context, stmts []parser.Stmt, params []types.Value) (func(), error) {
	read := needsReadLock(stmts)
	if read {
		if err := e.readMu.LockContext(ctx); err != nil {
			return nil, err
		}
	}
	release := func() {
		if read {
			e.readMu.Unlock()
		}
	}
	if err := e.mu.LockContext(ctx); err != nil {
		release()
		return nil, err
	}
	if e.closed {
		e.mu.Unlock()
		release()
		return nil, errors.New("engine is closed")
	}
	e.sess, e.params = sessionOf(ctx), params
	return func() {
		e.sess, e.params = nil, nil
		e.mu.Unlock()
		release()
	}, nil
}

// Exec parses and runs a script; it returns the result of the last
// statement. Statements before a failing one stay applied.
func (e *Engine) Exec(ctx context.Context, sql string) (*Result, error) {
	if res, ok, err := e.execPointText(ctx, sql); ok || err != nil {
		return res, err
	}
	stmts, err := parser.Parse(sql)
	if err != nil {
		return nil, err
	}
	unlock, err := e.enter(ctx, stmts, nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var res *Result
	var notices []string
	for _, s := range stmts {
		if err := ctx.Err(); err != nil {
			return nil, &sqlerr.Error{Code: sqlerr.QueryCanceled, Msg: "canceling statement", Err: err}
		}
		res, err = e.execStmt(ctx, s)
		if err != nil {
			return nil, locate(err, sql, s)
		}
		if res != nil {
			notices = append(notices, res.Notice...)
		}
	}
	if res != nil {
		res.Notice = notices // every statement's, not only the last one's
		res.TimeZone = e.timeZone()
	}
	return res, nil
}

// needsReadLock reports whether a script may read, open or close sources
// (DDL, FLUSH): it then runs under readMu, never while Step reads.
// Queries, INSERT, SET and the read-only statements do not wait for a
// source's Read.
func needsReadLock(stmts []parser.Stmt) bool {
	for _, s := range stmts {
		switch s.(type) {
		case *parser.QueryStmt, *parser.InsertStmt, *parser.DeleteStmt, *parser.UpdateStmt, *parser.SetStmt, *parser.ShowStmt, *parser.DescribeStmt, *parser.ExplainStmt:
		default:
			return true
		}
	}
	return false
}

func (e *Engine) execStmt(ctx context.Context, s parser.Stmt) (*Result, error) {
	if err := e.readOnlyStmt(s); err != nil {
		return nil, err
	}
	switch st := s.(type) {
	case *parser.CreateSourceStmt:
		return e.createSource(ctx, st)
	case *parser.CreateViewStmt:
		return e.createView(ctx, st)
	case *parser.CreateSinkStmt:
		return e.createSink(ctx, st)
	case *parser.CreatePlainViewStmt:
		return e.createPlainView(st)
	case *parser.InsertStmt:
		return e.insert(st)
	case *parser.DeleteStmt:
		return e.deleteFrom(st)
	case *parser.UpdateStmt:
		return e.update(st)
	case *parser.QueryStmt:
		return e.query(st)
	case *parser.FlushStmt:
		return &Result{Tag: "FLUSH"}, e.flush(ctx)
	case *parser.SetStmt:
		return &Result{Tag: "SET"}, e.set(st.Name, st.Value)
	case *parser.ShowStmt:
		return e.show(st)
	case *parser.DescribeStmt:
		return e.describe(st.Name)
	case *parser.DropStmt:
		return e.drop(st)
	case *parser.CreateFunctionStmt:
		return e.createFunction(st)
	case *parser.DropFunctionStmt:
		return e.dropFunction(st)
	case *parser.ExplainStmt:
		return e.explain(st)
	}
	return nil, sqlerr.New(sqlerr.FeatureNotSupport, "statement %T is not supported", s)
}

// saveCatalog persists the catalog at once (DDL is durable when it
// returns).
func (e *Engine) saveCatalog() error {
	b, err := e.cat.Encode()
	if err != nil {
		return err
	}
	return e.store.Update(func(w *state.Writer) error { return w.Set(keyCatalog, b) })
}

// Checkpoint commits every view's changed state, reader positions and the
// catalog in one transaction, then tells sinks to commit.
//
// Sinks commit after the state is stored, with the statement lock
// released but the read lock held: a slow or unreachable destination
// holds the pipeline (nothing is read: backpressure) while queries,
// INSERTs and SUBSCRIBE go on.
func (e *Engine) Checkpoint() error {
	e.readMu.Lock()
	defer e.readMu.Unlock()
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return errors.New("engine is closed")
	}
	return e.timedCheckpoint(func() (uint64, error) {
		id, err := e.storeCheckpoint()
		e.mu.Unlock()
		if err != nil {
			return id, err
		}
		// readMu keeps DDL (the only writer of e.views) out while mu is free.
		return id, e.commitSinks(id)
	})
}

// checkpoint stores a checkpoint and commits the sinks, holding mu.
func (e *Engine) checkpoint() error {
	return e.timedCheckpoint(func() (uint64, error) {
		id, err := e.storeCheckpoint()
		if err != nil {
			return id, err
		}
		return id, e.commitSinks(id)
	})
}

// storeCheckpoint pre-commits every sink and writes the next checkpoint:
// changed state, positions, staged sink changes and the catalog.
func (e *Engine) storeCheckpoint() (uint64, error) {
	id := e.ckpt + 1
	ctx := context.Background()
	staged := map[string][]byte{}
	err := e.eachSink(func(s *exec.Sink) error {
		b, err := s.PreCommit(ctx, id)
		if err != nil {
			return err
		}
		if b != nil {
			staged[s.Name()] = b
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	cat, err := e.cat.Encode()
	if err != nil {
		return 0, err
	}
	err = e.store.Checkpoint(id, func(w *state.Writer) error {
		for _, v := range e.views {
			if err := v.checkpoint(w); err != nil {
				return err
			}
		}
		if err := e.eachSink(func(s *exec.Sink) error { return s.Stage(w, id, staged[s.Name()]) }); err != nil {
			return err
		}
		for _, d := range e.dlq {
			if err := d.checkpoint(w); err != nil {
				return err
			}
		}
		for _, t := range e.tables {
			if err := t.checkpoint(w); err != nil {
				return err
			}
		}
		var idb [8]byte
		binary.BigEndian.PutUint64(idb[:], id)
		if err := w.Set(keyCkpt, idb[:]); err != nil {
			return err
		}
		if err := w.Set(keyCatalog, cat); err != nil {
			return err
		}
		e.storedCheckpoint(id, w.Writes(), w.Bytes())
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("checkpoint %d: %w", id, err)
	}
	for _, d := range e.dlq {
		d.checkpointed()
	}
	e.ckpt = id
	return id, nil
}

// commitSinks makes checkpoint id visible in every sink's destination.
func (e *Engine) commitSinks(id uint64) error {
	ctx := context.Background()
	return e.eachSink(func(s *exec.Sink) error { return s.Commit(ctx, id) })
}

// Close checkpoints and closes the engine.
func (e *Engine) Close() error {
	e.readMu.Lock()
	defer e.readMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	if e.opts.ReadOnly {
		e.closed = true
		if e.repaired { // opened for writing to recover it: see openReadOnlyStore
			return e.store.Release()
		}
		return e.store.Close()
	}
	err := e.checkpoint()
	e.closeAll()
	if cerr := e.store.Close(); err == nil {
		err = cerr
	}
	e.closed = true
	return err
}

// Crash drops the engine without a checkpoint, as a killed process would.
func (e *Engine) Crash() error {
	e.readMu.Lock()
	defer e.readMu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closeAll()
	e.closed = true
	return e.store.Abandon()
}

func (e *Engine) closeAll() {
	for _, v := range e.views {
		v.close()
	}
	for _, t := range e.tables {
		t.close()
	}
	for _, d := range e.dlq {
		d.sinks.Close()
	}
}
