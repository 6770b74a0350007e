package pgwire

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// waitDeadline is how long a test waits for an event it expects: generous,
// so the suite passes on a busy 2-core machine.
const waitDeadline = 60 * time.Second

// waitEngineHeld returns once another session's long statement (a FLUSH)
// holds the engine: probe, a statement that needs the engine, then no
// longer answers within a 2 s statement_timeout (the background driver
// holds the engine only for a step or a checkpoint at a time). Tests cancel
// a FLUSH only after this, because a cancel that arrives before the
// statement runs is ignored, as in Postgres, and the FLUSH would then
// never end.
func waitEngineHeld(t *testing.T, addr, probe string) {
	t.Helper()
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	defer c.Close(context.Background())
	mustExec(t, c, "SET statement_timeout = '2s'")
	waitFor(t, "a FLUSH holding the engine", func() bool {
		_, err := c.Exec(context.Background(), probe)
		code, _ := pgCode(err)
		return code == "57014"
	})
}

// waitFor polls cond until it holds, failing the test after waitDeadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitDeadline); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", waitDeadline, what)
		}
	}
}

// cancelUntilDone cancels a long statement until it ends (done yields its
// result), sending cancel again every 2 s: waitEngineHeld can be fooled by
// the background driver holding the engine for a moment on a loaded
// machine, and a cancel that arrives before the statement runs is
// ignored. A cancel that arrives after it ended is ignored too, so
// repeating is harmless. It returns the statement's result, or an error
// if it has not ended after waitDeadline.
func cancelUntilDone[T any](t *testing.T, done <-chan T, cancel func() error) (T, error) {
	t.Helper()
	deadline := time.After(waitDeadline)
	for {
		if err := cancel(); err != nil {
			t.Logf("cancel: %v", err)
		}
		select {
		case r := <-done:
			return r, nil
		case <-time.After(2 * time.Second):
		case <-deadline:
			var zero T
			return zero, fmt.Errorf("the statement did not end within %v of cancelling", waitDeadline)
		}
	}
}
