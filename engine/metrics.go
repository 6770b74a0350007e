package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// The engine's figures live where the work happens, counted per batch:
// records read per reader partition, decode errors per reader, late rows
// per view (its lateness.Counters), changes per view, rows per sink and
// checkpoint and sink-commit timings. Metrics copies them under the
// engine lock; SHOW METRICS and the Prometheus exporter (package metrics)
// both read that copy, so there is one set of counters. The totals users
// read as totals (decode errors, late rows) are stored with every
// checkpoint and restored with it.

// Histogram counts observations (seconds) into buckets with upper bounds
// Bounds; Counts[i] is the number in bucket i (not cumulative), the last
// one being +Inf.
type Histogram struct {
	Bounds []float64
	Counts []uint64
	Sum    float64
	Count  uint64
}

// durationBounds are the buckets of checkpoint and commit durations.
var durationBounds = []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60}

func newHistogram() Histogram {
	return Histogram{Bounds: durationBounds, Counts: make([]uint64, len(durationBounds)+1)}
}

// observe adds one observation of d.
func (h *Histogram) observe(d time.Duration) {
	s := d.Seconds()
	i, _ := slices.BinarySearch(h.Bounds, s)
	h.Counts[i]++
	h.Sum += s
	h.Count++
}

func (h Histogram) clone() Histogram {
	h.Counts = slices.Clone(h.Counts)
	return h
}

// Snapshot is a copy of the engine's figures at one moment.
type Snapshot struct {
	// Now is the engine clock's time of the copy.
	Now time.Time
	// Sources has one entry per reader: a (pipeline, source) pair.
	Sources []SourceStats
	// Views has one entry per view or query sink.
	Views []ViewStats
	// Sinks has one entry per sink.
	Sinks []SinkStats
	// Checkpoints describes the checkpoints since the process started.
	Checkpoints CheckpointStats
	// Restore is what Open restored; Restored is false on a fresh start.
	Restore  Recovery
	Restored bool
	// ExpressionErrors counts expressions whose errors became NULL.
	ExpressionErrors int64
}

// SourceStats are the figures of one source as one pipeline reads it.
type SourceStats struct {
	// Pipeline is the view, query sink or TABLE that reads the source.
	Pipeline, Source string
	// OnError is the source's on_error policy; DecodeErrors counts the
	// undecodable records it met (kept across restarts).
	OnError      string
	DecodeErrors int64
	// Watermark is the source watermark (microseconds; types.MinTime
	// before the first); HasWatermark is false for sources without one.
	Watermark    int64
	HasWatermark bool
	Partitions   []PartitionStats
	// Done and Total are a bounded source's progress since the process
	// opened it, in a unit of its own (connectors.Progresser); Total ≤ 0
	// when it does not know.
	Done, Total int64
}

// PartitionStats are the figures of one partition of a source.
type PartitionStats struct {
	Read      int64 // records read (decodable ones) since the process started
	Bytes     int64 // bytes of the records read (poison ones too), as the connector measures them
	Watermark int64 // microseconds
	Idle      bool
	// Lag is the consumer lag: records between the position and the
	// partition's end (Kafka's end offset − position); HasLag is false
	// when the source does not know it.
	Lag    int64
	HasLag bool
}

// ViewStats are the figures of one view (or query sink's pipeline).
type ViewStats struct {
	Name string
	// RowsIn counts the source rows fed to it, RowsOut the changes it
	// emitted, both since the process started.
	RowsIn, RowsOut int64
	// Late counts late rows by policy and reason (kept across restarts).
	Late map[lateness.LateKey]int64
	// Watermark is the lowest watermark over its sources that have one
	// and are still reading (microseconds); HasWatermark is false when
	// there is none.
	Watermark    int64
	HasWatermark bool
	// Stalled is set while its watermark has not moved for
	// watermark_stall_timeout although input arrived (see stall.go).
	Stalled bool
	// Sources and Sinks name what it reads and what reads it; Parallelism
	// is its operators' number of instances.
	Sources, Sinks []string
	Parallelism    int
	// Operators has the figures of its plan's nodes: the view store
	// (ID 0) first, then its input's nodes in pre-order, the numbering
	// of EXPLAIN ANALYZE.
	Operators []OperatorStats
}

// OperatorStats are the figures of one node of a view's plan, counted
// per batch since the process started.
type OperatorStats struct {
	ID       int    // 0 for the view store, then pre-order
	Operator string // the node's kind: Scan, Filter, Aggregate, ...
	// RowsIn counts the rows its inputs emitted to it (a scan's: the rows
	// its source fed), RowsOut the rows (inserts and retractions) it
	// emitted; the view store's rows out are the view's changes.
	RowsIn, RowsOut int64
	// StateKeys counts the keys its state holds in memory (groups,
	// windows, join keys, view rows); HasState is false when stateless.
	StateKeys int64
	HasState  bool
	// MemoryBytes estimates the bytes of its state's values in memory,
	// SpilledBytes those in the spill area; SpillReads counts the evicted
	// values it read back (see exec.StateSize).
	MemoryBytes, SpilledBytes, SpillReads int64
	// Processing is the time the node itself spent on rows and
	// watermarks (not the nodes after it).
	Processing time.Duration
	// Watermark is the last watermark it emitted (types.MinTime: none).
	Watermark int64
}

// Label is the operator's name in metrics and system tables, e.g.
// "Aggregate#2".
func (o OperatorStats) Label() string { return o.Operator + "#" + strconv.Itoa(o.ID) }

// SinkStats are the figures of one sink.
type SinkStats struct {
	Name, Connector string
	Rows            int64 // changes written since the process started
	// Commit times its commits (Commit.Count of them);
	// LastCommitted is the id of the last checkpoint it committed in this
	// process (0: none yet).
	Commit        Histogram
	LastCommitted uint64
	// Retries counts the failed attempts the sink retried (0 for sinks
	// that do not retry).
	Retries int64
}

// CheckpointStats describe checkpoints since the process started.
type CheckpointStats struct {
	Duration    Histogram
	Failures    int64
	LastSuccess time.Time // zero before the first
	LastID      uint64
	// Recent lists the last checkpoints this process attempted (at most
	// recentCheckpoints), oldest first.
	Recent []CheckpointRecord
}

// CheckpointRecord is one checkpoint attempt.
type CheckpointRecord struct {
	ID       uint64
	At       time.Time // the engine clock when it ended
	Duration time.Duration
	// Err is the failure's message, "" for a stored checkpoint.
	Err string
	// Changes counts the state keys a stored checkpoint wrote or deleted,
	// Bytes the size of what it wrote (keys and values; a delete its key).
	Changes int64
	Bytes   int64
}

// recentCheckpoints is how many checkpoint attempts CheckpointStats.Recent
// keeps.
const recentCheckpoints = 32

// ckptStats is the engine's checkpoint bookkeeping, guarded by its own
// mutex: Checkpoint commits sinks with e.mu released.
type ckptStats struct {
	mu       sync.Mutex
	duration Histogram
	failures int64
	last     time.Time
	recent   []CheckpointRecord
	// stored is the checkpoint storeCheckpoint wrote last, completed by
	// timedCheckpoint, and storedAt when it was stored.
	stored   CheckpointRecord
	storedAt time.Time
	// pace is how fast the checkpoints stored have been writing state
	// (Run's early checkpoints).
	pace checkpointPace
}

// timedCheckpoint runs a checkpoint (run returns the id it tried) and
// records its duration or its failure.
func (e *Engine) timedCheckpoint(run func() (uint64, error)) error {
	start := time.Now()
	id, err := run()
	d := time.Since(start)
	s := &e.ckptStats
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.duration.Counts == nil {
		s.duration = newHistogram()
	}
	rec := CheckpointRecord{ID: id, At: e.opts.Clock(), Duration: d}
	if err != nil {
		rec.Err = redact(err.Error())
	} else if s.stored.ID == id {
		rec.Changes, rec.Bytes = s.stored.Changes, s.stored.Bytes
	}
	if len(s.recent) == recentCheckpoints {
		s.recent = slices.Delete(s.recent, 0, 1)
	}
	s.recent = append(s.recent, rec)
	if err != nil {
		s.failures++
		e.opts.Logger.Error("checkpoint failed", "id", id, "duration", d, "error", rec.Err)
		return err
	}
	e.opts.Logger.Debug("checkpoint stored", "id", id, "duration", d, "bytes", rec.Bytes, "rows", rec.Changes)
	s.duration.observe(d)
	s.last = rec.At
	return nil
}

// storedCheckpoint notes the id and size of the checkpoint just stored,
// and the pace of the checkpoints (over the time since the one before).
func (e *Engine) storedCheckpoint(id uint64, changes int, bytes int64) {
	s := &e.ckptStats
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stored = CheckpointRecord{ID: id, Changes: int64(changes), Bytes: bytes}
	now := time.Now()
	if !s.storedAt.IsZero() {
		s.pace.record(bytes, now.Sub(s.storedAt))
	}
	s.storedAt = now
}

// pastPace reports whether a checkpoint after since would write past
// checkpointPace.pastBudget's bound at the checkpoints' pace.
func (e *Engine) pastPace(since time.Duration) bool {
	s := &e.ckptStats
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pace.pastBudget(since, e.mem.Total())
}

// Metrics returns a copy of the engine's figures.
func (e *Engine) Metrics() Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.figures()
}

// figures copies the figures; e.mu is held.
func (e *Engine) figures() Snapshot {
	s := Snapshot{Now: e.opts.Clock(), ExpressionErrors: e.evalErrs.Count.Load()}
	s.Restore, s.Restored = e.Recovered()
	for _, name := range sortedKeys(e.views) {
		v := e.views[name]
		vs := ViewStats{Name: v.plan.Name, RowsOut: v.updated, Late: v.late.Totals(), Stalled: v.stall.stalled,
			Parallelism: v.par, Operators: v.operators()}
		if r, ok := v.holder(); ok {
			vs.Watermark, vs.HasWatermark = r.Watermark(), true
		}
		for _, r := range v.readers {
			vs.RowsIn += r.Total()
			vs.Sources = append(vs.Sources, r.Object().Name)
			s.Sources = append(s.Sources, sourceStats(r, v.plan.Name))
		}
		for _, f := range v.upstream { // views read: their changelog and output watermark
			vs.Sources = append(vs.Sources, f.from.plan.Name)
			if wm := f.from.pipe.View0.OutputWatermark(); wm != types.MinTime && (!vs.HasWatermark || wm < vs.Watermark) {
				vs.Watermark, vs.HasWatermark = wm, true
			}
		}
		for _, f := range v.tables { // TABLEs read: their changelog, no watermark
			vs.Sources = append(vs.Sources, f.t.obj.Name)
		}
		for _, k := range v.sinks.List() {
			vs.Sinks = append(vs.Sinks, k.Name())
		}
		s.Views = append(s.Views, vs)
	}
	if e.opts.ReadOnly {
		s.Views = e.storedViews()
	}
	for _, name := range sortedKeys(e.tables) {
		if t := e.tables[name]; t.rd != nil {
			s.Sources = append(s.Sources, sourceStats(t.rd, t.obj.Name))
		}
	}
	_ = e.eachSink(func(k *exec.Sink) error {
		st := SinkStats{Name: k.Name(), Connector: k.Connector(), Rows: k.Rows()}
		counts, sum, n, committed := k.CommitStats()
		if n > 0 {
			st.Commit = Histogram{Bounds: durationBounds, Counts: counts, Sum: sum, Count: n}
		}
		st.LastCommitted = committed
		if r, ok := k.Conn().(connectors.Retrier); ok {
			st.Retries = r.Retries()
		}
		s.Sinks = append(s.Sinks, st)
		return nil
	})
	slices.SortFunc(s.Sinks, func(a, b SinkStats) int { return strings.Compare(a.Name, b.Name) })
	c := &e.ckptStats
	c.mu.Lock()
	s.Checkpoints = CheckpointStats{Duration: c.duration.clone(), Failures: c.failures, LastSuccess: c.last, LastID: e.ckpt,
		Recent: slices.Clone(c.recent)}
	if s.Checkpoints.Duration.Counts == nil {
		s.Checkpoints.Duration = newHistogram()
	}
	c.mu.Unlock()
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// operators copies the figures of v's plan nodes (see exec.OpStats).
func (v *viewRT) operators() []OperatorStats {
	ops := v.pipe.Ops
	out := make([]OperatorStats, len(ops))
	for i, op := range ops {
		o := OperatorStats{ID: i, Operator: planner.Kind(op.Node), RowsOut: op.RowsOut(), Watermark: op.Watermark(),
			Processing: time.Duration(exec.ProcessingNanos(ops, i))}
		var size exec.StateSize
		size, o.HasState = op.State()
		o.StateKeys, o.MemoryBytes, o.SpilledBytes, o.SpillReads = size.Keys, size.MemoryBytes, size.SpilledBytes, size.SpillReads
		for _, c := range op.Children {
			o.RowsIn += ops[c].RowsOut()
		}
		out[i] = o
	}
	if len(out) > 0 {
		out[0].RowsOut = v.updated // the view store emits the view's changes
		if c := ops[0].Children; len(c) == 1 {
			out[0].Watermark = out[c[0]].Watermark // and holds its input's watermark
		}
	}
	for i, op := range ops {
		if _, ok := op.Node.(*planner.Scan); ok {
			out[i].RowsIn = out[i].RowsOut
		}
	}
	return out
}

// stopwatch returns a monotonic clock in nanoseconds, for the meters
// that time each plan node (exec.Env.Stopwatch).
func stopwatch() func() int64 {
	start := time.Now()
	return func() int64 { return int64(time.Since(start)) }
}

// sourceStats copies r's figures; pipeline names what reads it.
func sourceStats(r *exec.Source, pipeline string) SourceStats {
	s := SourceStats{Pipeline: pipeline, Source: r.Object().Name, OnError: r.OnError(), DecodeErrors: r.DecodeErrors(),
		Watermark: r.Watermark(), HasWatermark: r.Object().TimeCol >= 0}
	s.Done, s.Total = r.Progress()
	g := r.Generator()
	for p := 0; p < g.Partitions(); p++ {
		ps := g.Partition(p)
		st := PartitionStats{Watermark: ps.Watermark, Idle: ps.Idle}
		st.Read, st.Bytes, st.Lag, st.HasLag = r.PartitionCounters(p)
		s.Partitions = append(s.Partitions, st)
	}
	return s
}

// viewCounters is what a view stores of its counters with each
// checkpoint, under v/<view>/counters.
type viewCounters struct {
	Late []lateCount `json:"late,omitempty"`
}

type lateCount struct {
	Policy, Reason string
	N              int64
}

func (v *viewRT) countersKey() []byte { return viewCountersKey(v.plan.Name) }

// viewCountersKey is where view's counters are stored.
func viewCountersKey(view string) []byte { return []byte("v/" + view + "/counters") }

// checkpointCounters stores the view's late-row counters.
func (v *viewRT) checkpointCounters(w *state.Writer) error {
	var c viewCounters
	for k, n := range v.late.Totals() {
		c.Late = append(c.Late, lateCount{k.Policy, k.Reason, n})
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return w.Set(v.countersKey(), b)
}

// storedViews are the figures a read-only engine has of the views
// (nothing runs): the late-row totals the last checkpoint stored.
func (e *Engine) storedViews() []ViewStats {
	var out []ViewStats
	for _, o := range e.cat.List(catalog.View) {
		vs := ViewStats{Name: o.Name, Late: map[lateness.LateKey]int64{}}
		if b, ok, err := e.store.Get(viewCountersKey(o.Name)); err == nil && ok {
			var c viewCounters
			if json.Unmarshal(b, &c) == nil {
				for _, l := range c.Late {
					vs.Late[lateness.LateKey{Policy: l.Policy, Reason: l.Reason}] = l.N
				}
			}
		}
		out = append(out, vs)
	}
	slices.SortFunc(out, func(a, b ViewStats) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// restoreCounters loads the counters checkpointCounters stored.
func (v *viewRT) restoreCounters(st *state.Store) error {
	b, ok, err := st.Get(v.countersKey())
	if err != nil || !ok {
		return err
	}
	var c viewCounters
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("restore view %s counters: %w", v.plan.Name, err)
	}
	totals := map[lateness.LateKey]int64{}
	for _, l := range c.Late {
		totals[lateness.LateKey{Policy: l.Policy, Reason: l.Reason}] = l.N
	}
	v.late.Restore(totals)
	return nil
}

// metricsResult is SHOW METRICS: late rows by policy and reason, errors,
// view changes and stalled watermarks, summed over the pipelines.
func (e *Engine) metricsResult() *Result {
	s := e.figures()
	res := &Result{Schema: types.Schema{{Name: "name", Type: types.String}, {Name: "value", Type: types.Int}}}
	add := func(name string, v int64) {
		res.Rows = append(res.Rows, types.Row{types.StringValue(name), types.IntValue(v)})
	}
	late := map[lateness.LateKey]int64{}
	var changes, decode int64
	for _, v := range s.Views {
		for k, n := range v.Late {
			late[k] += n
		}
		changes += v.RowsOut
	}
	for _, src := range s.Sources {
		decode += src.DecodeErrors
	}
	keys := make([]lateness.LateKey, 0, len(late))
	for k := range late {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b lateness.LateKey) int { return strings.Compare(a.Name(), b.Name()) })
	for _, k := range keys {
		add(k.Name(), late[k])
	}
	add("expression_errors_total", s.ExpressionErrors)
	add("decode_errors_total", decode)
	add("view_changes_total", changes)
	for _, v := range s.Views {
		if v.Stalled {
			add(`watermark_stalled{view="`+v.Name+`"}`, 1)
		}
	}
	return res
}
