// Package bench is the Nexmark benchmark harness of streamsql: it runs the
// queries under bench/*.sql over the in-process datagen source into a
// blackhole sink, as the project's Nexmark protocol (nexmark.md) asks, and
// measures wall time, CPU time, peak RSS and the state left on disk.
//
// Like cmd/streamsql, this package is a composition root: it imports the
// concrete datagen and blackhole connectors (Registry) so that `streamsql
// bench` and the engine's Go benchmarks run the same thing. Nothing else
// outside cmd/streamsql may import concrete connectors. A Config can still
// pass another registry in.
//
// # What a run measures
//
// A run opens a fresh engine on a new temporary state directory, executes
// the query's script (sources, one materialized view, a blackhole sink),
// calls Step until every source has ended, checkpoints every 10 s of wall
// time as production does (never turned off), and closes the engine, which
// writes a final checkpoint. Wall and CPU time cover Open through Close.
//
//   - Events is the datagen `events` option: the length of the whole Nexmark
//     event sequence, counting persons, auctions and bids (2% / 6% / 92%), as
//     Flink and RisingWave count it. A bid-only query over 1,000,000 events
//     reads 920,000 bids; the generator skips the other types without
//     producing them.
//   - CPU time is getrusage(RUSAGE_SELF) user + system: every goroutine of
//     the process, Badger's compactions and the garbage collector included.
//   - Peak RSS is ru_maxrss. Before each run the harness returns free memory
//     to the OS and resets the kernel's high-water mark (/proc/self/clear_refs
//     "5"); where the kernel refuses, PeakRSSReset is false and the figure is
//     the process's peak so far.
//   - State is the disk usage (allocated blocks, as du counts them) of the
//     state directory after Close.
//
// Reports quote the median of each column over the repeats.
package bench

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/blackhole"
	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/exec/state"
)

//go:embed *.sql
var sqlFiles embed.FS

// Queries lists the benchmark queries in the order they run by default.
var Queries = []string{"q0", "q1", "q2", "q5", "q7", "q8", "q11"}

// Published lists the further queries, written in their published forms
// (docs/benchmarks.md), that --queries can name; they are not in the
// default run, whose 10 M-event protocol q16 alone would take many minutes.
var Published = []string{"q3", "q4", "q6", "q9", "q10", "q12", "q13", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22"}

// Floors are the per-core throughputs (events per CPU second) each query
// must reach, as the benchmark issue sets them.
var Floors = map[string]float64{
	"q0": 1_000_000, "q7": 300_000, "q8": 300_000, "q5": 200_000, "q11": 200_000,
}

// Flink is Flink's published per-core throughput (events per second per
// core) for the queries with a floor, to set beside ours.
var Flink = map[string]float64{
	"q0": 155_000, "q7": 12_000, "q8": 146_000, "q5": 22_000, "q11": 40_000,
}

// EventsPlaceholder is replaced in a query file by the event count.
const EventsPlaceholder = "{{events}}"

// CheckpointInterval is the wall time between checkpoints during a run,
// the production default.
const CheckpointInterval = 10 * time.Second

// DefaultBatch is the most rows a Step reads from each source.
const DefaultBatch = 4096

// SQL returns the script of a benchmark query ("q7") with its event count
// substituted. A name ending in .sql is read from that file instead.
func SQL(query string, events int64) (string, error) {
	var b []byte
	var err error
	if strings.HasSuffix(query, ".sql") {
		b, err = os.ReadFile(query)
	} else {
		b, err = sqlFiles.ReadFile(strings.ToLower(query) + ".sql")
		if errors.Is(err, fs.ErrNotExist) {
			known := strings.Join(append(slices.Clone(Queries), Published...), ", ")
			return "", fmt.Errorf("unknown benchmark query %q (known: %s)", query, known)
		}
	}
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(string(b), EventsPlaceholder, strconv.FormatInt(events, 10)), nil
}

// Registry returns a connector registry holding the datagen source and the
// blackhole sink, which is all the benchmark queries use.
func Registry() *connectors.Registry {
	r := connectors.NewRegistry()
	r.AddSource(datagen.Factory())
	r.AddSink(blackhole.Factory())
	return r
}

// Config tunes a run; the zero value is the protocol's setting.
type Config struct {
	// Registry supplies the connectors; nil means Registry().
	Registry *connectors.Registry
	// CheckpointInterval is the wall time between checkpoints; 0 means
	// CheckpointInterval. It cannot turn checkpoints off.
	CheckpointInterval time.Duration
	// TempDir is where state directories are created; "" means os.TempDir.
	TempDir string
	// Batch is the most rows a Step reads per source; 0 means DefaultBatch.
	Batch int
	// Settings are engine settings (e.g. parallelism); nil keeps the
	// engine's defaults.
	Settings map[string]string
}

// registry is the Registry the runs use: cfg.Registry or the default.
func (cfg Config) registry() *connectors.Registry {
	if cfg.Registry == nil {
		return Registry()
	}
	return cfg.Registry
}

// interval is the checkpoint interval the runs use.
func (cfg Config) interval() time.Duration {
	if cfg.CheckpointInterval <= 0 {
		return CheckpointInterval
	}
	return cfg.CheckpointInterval
}

// Measurement is the outcome of one run.
type Measurement struct {
	Events       int64         // events of the whole Nexmark sequence (all types)
	Wall         time.Duration // Open through Close
	CPU          time.Duration // user + system CPU of the process over the run
	PeakRSS      int64         // bytes
	PeakRSSReset bool          // whether the high-water mark was reset before the run
	StateBytes   int64         // disk usage of the state directory after Close
	SinkRows     int64         // changes the blackhole sinks received
	Checkpoints  int           // checkpoints taken, the final one at Close included
}

// PerCore is events per CPU second.
func (m Measurement) PerCore() float64 { return rate(m.Events, m.CPU) }

// AllCores is events per wall second.
func (m Measurement) AllCores() float64 { return rate(m.Events, m.Wall) }

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Report is the result of repeated runs of one query.
type Report struct {
	Query  string
	Events int64
	Runs   []Measurement
	// Median holds the median of each column over Runs (so PerCore and
	// AllCores are the medians of those rates too).
	Median Measurement
	// NotSupported is the engine's error when the query's script does not
	// run (e.g. it does not plan); Runs is then empty.
	NotSupported string
	// Failed is the error that stopped a run of a script the engine did
	// accept (RunSQL returns it too); Median is then unset.
	Failed string
}

// Run runs a benchmark query repeats times over events events with the
// protocol's settings and returns the report. A query the engine refuses
// gives a Report with NotSupported set and a nil error.
func Run(ctx context.Context, query string, events int64, repeats int) (Report, error) {
	return RunWith(ctx, Config{}, query, events, repeats)
}

// RunWith is Run with a Config.
func RunWith(ctx context.Context, cfg Config, query string, events int64, repeats int) (Report, error) {
	sql, err := SQL(query, events)
	if err != nil {
		return Report{}, err
	}
	return RunSQL(ctx, cfg, query, sql, events, repeats)
}

// RunSQL runs a script repeats times; events is the count the throughput
// figures divide by.
func RunSQL(ctx context.Context, cfg Config, name, sql string, events int64, repeats int) (Report, error) {
	rep := Report{Query: name, Events: events}
	if repeats < 1 {
		repeats = 1
	}
	for i := 0; i < repeats; i++ {
		m, err := RunOnce(ctx, cfg, sql, events)
		var ns *NotSupportedError
		if errors.As(err, &ns) {
			rep.NotSupported = ns.Err.Error()
			rep.Runs = nil
			return rep, nil
		}
		if err != nil {
			err = fmt.Errorf("%s run %d: %w", name, i+1, err)
			rep.Failed = err.Error()
			return rep, err
		}
		rep.Runs = append(rep.Runs, m)
	}
	rep.Median = median(rep.Runs)
	return rep, nil
}

// NotSupportedError wraps the error of a script the engine does not
// accept: the benchmark reports it and goes on.
type NotSupportedError struct{ Err error }

func (e *NotSupportedError) Error() string { return "not supported: " + e.Err.Error() }
func (e *NotSupportedError) Unwrap() error { return e.Err }

// RunOnce runs a script once on a fresh state directory, which it removes
// afterwards. An error from executing the script is a *NotSupportedError.
func RunOnce(ctx context.Context, cfg Config, sql string, events int64) (Measurement, error) {
	reg := cfg.registry()
	interval := cfg.interval()
	batch := cfg.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	dir, err := os.MkdirTemp(cfg.TempDir, "streamsql-bench-")
	if err != nil {
		return Measurement{}, err
	}
	defer os.RemoveAll(dir)

	m := Measurement{Events: events}
	runtime.GC()
	debug.FreeOSMemory()
	m.PeakRSSReset = resetPeakRSS()
	sink0 := blackhole.Rows.Load()
	ru0 := rusage()
	t0 := time.Now()

	if err := run(ctx, reg, dir, sql, interval, batch, cfg.Settings, &m); err != nil {
		return m, err
	}

	m.Wall = time.Since(t0)
	ru1 := rusage()
	m.CPU = cpu(ru1) - cpu(ru0)
	m.PeakRSS = ru1.Maxrss * 1024 // Linux reports KiB
	m.SinkRows = blackhole.Rows.Load() - sink0
	m.StateBytes, err = diskUsage(dir)
	return m, err
}

// run is the measured part: the loop of `streamsql run` with a checkpoint
// every interval.
func run(ctx context.Context, reg *connectors.Registry, dir, sql string, interval time.Duration, batch int, settings map[string]string, m *Measurement) error {
	e, err := engine.Open(engine.Options{StateDir: dir, Registry: reg, Settings: settings})
	if err != nil {
		return err
	}
	if _, err := e.Exec(ctx, sql); err != nil {
		_ = e.Crash()
		return &NotSupportedError{Err: err}
	}
	last := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			_ = e.Crash()
			return err
		}
		progressed, done, err := e.Step(ctx, batch)
		if err != nil {
			_ = e.Crash()
			return err
		}
		if time.Since(last) >= interval {
			if err := e.Checkpoint(); err != nil {
				_ = e.Crash()
				return err
			}
			m.Checkpoints++
			last = time.Now()
		}
		if done {
			break
		}
		if !progressed {
			time.Sleep(time.Millisecond)
		}
	}
	m.Checkpoints++ // Close writes the final checkpoint
	return e.Close()
}

func rusage() syscall.Rusage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru
}

func cpu(ru syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS resets the kernel's RSS high-water mark of this process
// (Linux ≥ 4.0), which ru_maxrss reports.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// diskUsage is the state directory's size on disk.
func diskUsage(dir string) (int64, error) { return state.DiskUsage(dir) }

// median returns the median of each column of runs (the lower middle for
// an even count).
func median(runs []Measurement) Measurement {
	if len(runs) == 0 {
		return Measurement{}
	}
	mid := (len(runs) - 1) / 2
	pick := func(f func(Measurement) int64) int64 {
		v := make([]int64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[mid]
	}
	out := Measurement{
		Events:       runs[0].Events,
		Wall:         time.Duration(pick(func(m Measurement) int64 { return int64(m.Wall) })),
		CPU:          time.Duration(pick(func(m Measurement) int64 { return int64(m.CPU) })),
		PeakRSS:      pick(func(m Measurement) int64 { return m.PeakRSS }),
		StateBytes:   pick(func(m Measurement) int64 { return m.StateBytes }),
		SinkRows:     pick(func(m Measurement) int64 { return m.SinkRows }),
		Checkpoints:  int(pick(func(m Measurement) int64 { return int64(m.Checkpoints) })),
		PeakRSSReset: true,
	}
	for _, r := range runs {
		out.PeakRSSReset = out.PeakRSSReset && r.PeakRSSReset
	}
	return out
}
