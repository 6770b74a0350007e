package engine

import (
	"context"
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
