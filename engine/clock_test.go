package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// openClocked opens an engine at parallelism 1 whose clock reads *now, so
// a test drives the wall clock by hand; run executes SQL and fails the
// test on an error.
func openClocked(t *testing.T, now *time.Time) (e *Engine, run func(sql string) *Result) {
	t.Helper()
	e, err := Open(Options{StateDir: t.TempDir(), Clock: func() time.Time { return *now }, Settings: map[string]string{"parallelism": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e, mustExec(t, e)
}

// TestJoinStateTTLOnTheWallClock: inputs without watermarks make a join's
// STATE TTL run on the wall clock: a stored row meets rows arriving
// within the TTL and is dropped after it.
func TestJoinStateTTLOnTheWallClock(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e, run := openClocked(t, &now)
	step := func() { // what the run loop does: read, then tick on the wall clock
		t.Helper()
		run(`FLUSH`)
		if _, _, err := e.Step(context.Background(), 1024); err != nil {
			t.Fatal(err)
		}
	}
	run(`CREATE SOURCE a (k BIGINT, x BIGINT)`)
	run(`CREATE SOURCE b (k BIGINT, y BIGINT)`)
	run(`CREATE MATERIALIZED VIEW j AS SELECT a.k, a.x, b.y FROM a JOIN b ON a.k = b.k STATE TTL INTERVAL '10' SECOND`)
	run(`INSERT INTO a VALUES (1, 10)`)
	step()
	now = now.Add(5 * time.Second)
	run(`INSERT INTO b VALUES (1, 20)`)
	step()
	now = now.Add(20 * time.Second) // both rows are older than the TTL now
	step()
	run(`INSERT INTO b VALUES (1, 21)`)
	run(`INSERT INTO a VALUES (1, 11)`)
	step()
	rows := run(`SELECT k, x, y FROM j`).Rows
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = r.String()
	}
	slices.Sort(got)
	if want := []string{"1 10 20", "1 11 21"}; !slices.Equal(got, want) {
		t.Fatalf("join = %q, want %q (a(10) and b(20) expired before the second pair)", got, want)
	}
	if c := run(`EXPLAIN CREATE MATERIALIZED VIEW j2 AS SELECT a.k, a.x, b.y FROM a JOIN b ON a.k = b.k STATE TTL INTERVAL '10' SECOND`).Rows; !strings.Contains(fmt.Sprint(c), "bound=STATE TTL 00:00:10 (wall clock)") {
		t.Fatalf("EXPLAIN does not name the wall clock:\n%v", c)
	}
}
