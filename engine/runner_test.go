package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRunTakesTheScriptsCheckpointInterval: a pipeline file's SET
// checkpoint_interval is the interval Run checkpoints at unless the
// caller gives one; a session's SET stays the session's.
func TestRunTakesTheScriptsCheckpointInterval(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := e.runDefaults(RunOptions{}).CheckpointInterval; got != 10*time.Second {
		t.Fatalf("default interval %v, want 10s", got)
	}
	ctx := context.Background()
	if _, err := e.Exec(ctx, `SET checkpoint_interval = '1s'`); err != nil {
		t.Fatal(err)
	}
	if got := e.runDefaults(RunOptions{}).CheckpointInterval; got != time.Second {
		t.Fatalf("after the script's SET the runner would checkpoint every %v, want 1s", got)
	}
	if got := e.runDefaults(RunOptions{CheckpointInterval: 3 * time.Second}).CheckpointInterval; got != 3*time.Second {
		t.Fatalf("an explicit interval became %v, want 3s", got)
	}
	if _, err := e.Exec(WithSession(ctx, map[string]string{}), `SET checkpoint_interval = '2 minutes'`); err != nil {
		t.Fatal(err)
	}
	if got := e.CheckpointInterval(); got != time.Second {
		t.Fatalf("a session's SET changed the engine's interval to %v", got)
	}
}

// TestRunCheckpointsEarlyWhenViewsChangeMuch: with an hour between
// checkpoints, a view whose changed rows outgrow a quarter of the state
// budget (memory_limit 16MB: a 2 MB budget) is checkpointed by Run
// anyway, so its changed rows leave memory; without a memory limit the
// same changes bring no checkpoint forward.
func TestRunCheckpointsEarlyWhenViewsChangeMuch(t *testing.T) {
	for _, limit := range []string{"16MB", "0"} {
		t.Run("memory_limit="+limit, func(t *testing.T) {
			e, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"memory_limit": limit, "strict": "off"}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			run := mustExec(t, e)
			run(`CREATE SOURCE s (k BIGINT, v VARCHAR)`)
			run(`CREATE MATERIALIZED VIEW m AS SELECT k, v FROM s`)
			pad := strings.Repeat("x", 100)
			for i := 0; i < 20_000; i += 1_000 {
				var vals []string
				for k := i; k < i+1_000; k++ {
					vals = append(vals, fmt.Sprintf("(%d, '%s%d')", k, pad, k))
				}
				run(`INSERT INTO s VALUES ` + strings.Join(vals, ", "))
			}
			run(`FLUSH`) // the view stores the rows, changed since the last checkpoint (none)
			if limit == "0" {
				if _, _, err := e.Step(context.Background(), 100_000); err != nil {
					t.Fatal(err)
				}
				if e.changed.Load() < 1<<20 || e.changedPastBudget() {
					t.Fatalf("changed %d bytes; past the budget: %v (no budget without a limit)", e.changed.Load(), e.changedPastBudget())
				}
				return
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- e.Run(ctx, RunOptions{CheckpointInterval: time.Hour}) }()
			deadline := time.Now().Add(time.Minute)
			for e.Metrics().Checkpoints.LastID == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if e.Metrics().Checkpoints.LastID == 0 {
				t.Fatal("no checkpoint within a minute: the view's changes did not bring one forward")
			}
		})
	}
}

// TestCheckpointPace: the pace is the bytes of the last checkpoint over
// the time it covered, and a checkpoint is past the budget once the
// bytes it would write at that pace pass the budget's share.
func TestCheckpointPace(t *testing.T) {
	var p checkpointPace
	if p.pastBudget(time.Hour, 1<<20) {
		t.Fatal("no checkpoint recorded yet, but past the budget")
	}
	p.record(1<<20, 0) // no time covered: no pace
	if p.pastBudget(time.Hour, 1<<20) {
		t.Fatal("a checkpoint covering no time set a pace")
	}
	p.record(16<<20, 10*time.Second)             // 1.6 MiB/s
	budget := int64(stagedCheckpointShare << 20) // a share of 1 MiB
	for _, c := range []struct {
		since  time.Duration
		budget int64
		want   bool
	}{
		{500 * time.Millisecond, budget, false},
		{time.Second, budget, true},
		{time.Hour, 0, false}, // no memory limit
		{time.Second, 2 * budget, false},
	} {
		if got := p.pastBudget(c.since, c.budget); got != c.want {
			t.Errorf("pastBudget(%v, %d) = %v, want %v", c.since, c.budget, got, c.want)
		}
	}
}

// TestRunCheckpointsEarlyAtThePace: two checkpoints that wrote a grouped
// view's state apiece, a moment apart, set a pace far past a 16MB
// limit's share, so Run, with an hour between checkpoints and nothing
// more to read, checkpoints again well within a minute.
func TestRunCheckpointsEarlyAtThePace(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"memory_limit": "16MB", "strict": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	run := mustExec(t, e)
	run(`CREATE SOURCE s (k BIGINT, v BIGINT)`)
	run(`CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n, sum(v) AS total FROM s GROUP BY k`)
	for round := range 2 {
		var vals []string
		for k := range 5_000 {
			vals = append(vals, fmt.Sprintf("(%d, %d)", k, round))
		}
		run(`INSERT INTO s VALUES ` + strings.Join(vals, ", "))
		run(`FLUSH`)
		if err := e.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	seeded := e.Metrics().Checkpoints.LastID
	if !e.pastPace(time.Minute) {
		t.Fatalf("after two checkpoints of %d bytes a moment apart, a minute at their pace stays within the budget", e.Metrics().Checkpoints.Recent[len(e.Metrics().Checkpoints.Recent)-1].Bytes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx, RunOptions{CheckpointInterval: time.Hour}) }()
	deadline := time.Now().Add(time.Minute)
	for e.Metrics().Checkpoints.LastID == seeded && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if e.Metrics().Checkpoints.LastID == seeded {
		t.Fatal("no checkpoint within a minute: the pace did not bring one forward")
	}
}
