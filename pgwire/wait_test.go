package pgwire

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// waitDeadline is how long a test waits for an event it expects: generous,
// so the suite passes on a busy 2-core machine.
const waitDeadline = 60 * time.Second

// waitEngineHeld returns once another session's long statement (a FLUSH)
// holds the engine: probe, a statement that needs the engine, then no
// longer answers within a short statement_timeout. Tests cancel a FLUSH
// only after this, because a cancel that arrives before the statement runs
// is ignored, as in Postgres, and the FLUSH would then never end.
func waitEngineHeld(t *testing.T, addr, probe string) {
	t.Helper()
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	defer c.Close(context.Background())
	mustExec(t, c, "SET statement_timeout = '200ms'")
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
