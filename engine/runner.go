package engine

import (
	"context"
	"time"

	"github.com/streamsql/streamsql/connectors"
)

// RunOptions tune Run.
type RunOptions struct {
	// CheckpointInterval is the time between checkpoints; zero means the
	// engine's checkpoint_interval setting (SET in a script; 10s).
	CheckpointInterval time.Duration
	// StepRows bounds the rows read per source per step (default 4096).
	// Smaller steps hold the engine lock for less time, so statements
	// from other goroutines (a wire server's sessions) wait less.
	StepRows int
	// Idle is the pause when no source produced rows (default 10ms).
	Idle time.Duration
	// OnStep, when set, is called after every step (status lines).
	OnStep func(progressed bool)
	// UntilDone makes Run return when every source has ended (streamsql
	// run); otherwise it runs until ctx ends (a server keeps running as
	// new views may be created).
	UntilDone bool
}

// changedCheckpointGap is the least time between checkpoints that a view's
// changes bring forward (changedPastBudget).
const changedCheckpointGap = time.Second

// changedPastBudget reports whether the rows the views' stores changed
// since the last checkpoint outgrew a quarter of the state's memory
// budget (memory_limit's share for state; never without a limit). A view
// store keeps every changed row in memory until a checkpoint writes it,
// past its budget, and the checkpoint holds them all again while it
// stages and applies them, so an updating view that rewrites many rows
// between two checkpoints (Nexmark q19: 120 MB of staged changes per 10 s)
// took `run` at the default memory_limit to 1 GiB of RSS. A checkpoint
// when they reach the quarter (26 MB at the default) bounds both, as
// RisingWave flushes its shared buffer when it fills rather than at the
// next barrier only.
func (e *Engine) changedPastBudget() bool {
	t := e.mem.Total()
	return t > 0 && e.changed.Load() > t/4
}

// checkpointPace is how fast the checkpoints have been writing state: the
// bytes the last one wrote over the time it covered (since the one
// before; any checkpoint, Run's or a CHECKPOINT statement's). A
// checkpoint holds what it writes several times over while it stages and
// applies it (the chunks, the changes parsed and sorted, their packed
// copy: about four times its bytes), and Badger then flushes and compacts
// it, so the heap a checkpoint takes scales with the bytes it writes. At a
// 10 s interval on the 1 GB restart of docs/benchmarks.md, 11–17 MB each
// took the Go heap 100–140 MB over its level between checkpoints.
type checkpointPace struct {
	bytesPerSec float64
}

// stagedCheckpointShare: under a memory limit, Run checkpoints once a
// checkpoint at the current pace would write more than the state budget
// over this (3.2 MB at the default memory_limit), at most every
// changedCheckpointGap.
const stagedCheckpointShare = 32

// record notes a checkpoint that wrote bytes covering the time covered.
func (p *checkpointPace) record(bytes int64, covered time.Duration) {
	if covered > 0 {
		p.bytesPerSec = float64(bytes) / covered.Seconds()
	}
}

// pastBudget reports whether a checkpoint taken since after the last one
// would write more than budget/stagedCheckpointShare bytes at the pace
// (never without a budget or a pace).
func (p checkpointPace) pastBudget(since time.Duration, budget int64) bool {
	return budget > 0 && p.bytesPerSec*since.Seconds() > float64(budget/stagedCheckpointShare)
}

// Run drives the pipelines: it steps every view's sources and checkpoints
// every CheckpointInterval, or sooner (at most every changedCheckpointGap)
// under a memory limit, when the views' changes since the last one
// outgrow changedPastBudget's bound or the checkpoints' pace says the
// next would outgrow checkpointPace.pastBudget's, until ctx is cancelled
// (or, with UntilDone, every source ended). It does not close the engine;
// a cancelled ctx is not an error.
func (e *Engine) Run(ctx context.Context, o RunOptions) error {
	o = e.runDefaults(o)
	last := time.Now()
	idle := time.NewTimer(0)
	defer idle.Stop()
	for ctx.Err() == nil {
		progressed, done, err := e.Step(ctx, o.StepRows)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if since := time.Since(last); since >= o.CheckpointInterval || since >= changedCheckpointGap && (e.changedPastBudget() || e.pastPace(since)) {
			if err := e.Checkpoint(); err != nil {
				return err
			}
			last = time.Now()
		}
		if o.OnStep != nil {
			o.OnStep(progressed)
		}
		if done && o.UntilDone {
			return nil
		}
		if !progressed {
			idle.Reset(o.Idle)
			select {
			case <-ctx.Done():
			case <-idle.C:
			}
		}
	}
	return nil
}

// runDefaults fills the options Run was not given.
func (e *Engine) runDefaults(o RunOptions) RunOptions {
	if o.CheckpointInterval <= 0 {
		o.CheckpointInterval = e.CheckpointInterval()
	}
	if o.StepRows <= 0 {
		o.StepRows = 4096
	}
	if o.Idle <= 0 {
		o.Idle = 10 * time.Millisecond
	}
	return o
}

// CheckpointInterval is the engine's checkpoint_interval setting: what a
// script SET (a pipeline file's), else 10s. Sessions' SETs are their own
// and do not change it.
func (e *Engine) CheckpointInterval() time.Duration {
	e.mu.Lock()
	v := e.settings["checkpoint_interval"]
	e.mu.Unlock()
	d, err := connectors.ParseDuration(v)
	if err != nil || d <= 0 { // checkSetting admits neither
		return 10 * time.Second
	}
	return d
}
