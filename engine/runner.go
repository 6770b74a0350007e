package engine

import (
	"context"
	"time"
)

// RunOptions tune Run.
type RunOptions struct {
	// CheckpointInterval is the time between checkpoints (default 10s).
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

// Run drives the pipelines: it steps every view's sources and checkpoints
// every CheckpointInterval until ctx is cancelled (or, with UntilDone,
// every source ended). It does not close the engine; a cancelled ctx is not
// an error.
func (e *Engine) Run(ctx context.Context, o RunOptions) error {
	if o.CheckpointInterval <= 0 {
		o.CheckpointInterval = 10 * time.Second
	}
	if o.StepRows <= 0 {
		o.StepRows = 4096
	}
	if o.Idle <= 0 {
		o.Idle = 10 * time.Millisecond
	}
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
		if time.Since(last) >= o.CheckpointInterval {
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
