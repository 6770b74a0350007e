package engine

import (
	"context"
	"testing"
	"time"
)

// TestEmitEveryFiresEarlyOnTheWallClock drives the clock by hand: EMIT
// EVERY 5 s shows an open window's current value once 5 s of wall time
// have passed, updates it at the next firing, and the final value at
// window close.
func TestEmitEveryFiresEarlyOnTheWallClock(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e, run := openClocked(t, &now)
	ctx := context.Background()
	view := func() string {
		t.Helper()
		rows := run(`SELECT window_start, n FROM m`).Rows
		if len(rows) == 0 {
			return ""
		}
		return rows[0].String()
	}
	tick := func(d time.Duration) {
		t.Helper()
		now = now.Add(d)
		if _, _, err := e.Step(ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
	run(`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)`)
	run(`CREATE MATERIALIZED VIEW m AS SELECT window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
		GROUP BY window_start LATE DATA DROP EMIT EVERY INTERVAL '5' SECOND`)
	run(`INSERT INTO s VALUES (1, '2024-01-01 00:00:01'), (2, '2024-01-01 00:00:02')`)
	run(`FLUSH`)
	if got := view(); got != "" {
		t.Fatalf("before any firing: %q, want nothing", got)
	}
	tick(3 * time.Second)
	if got := view(); got != "" {
		t.Fatalf("3 s in: %q, want nothing yet", got)
	}
	tick(3 * time.Second)
	if got := view(); got != "2024-01-01 00:00:00 2" {
		t.Fatalf("6 s in: %q, want the early firing 2024-01-01 00:00:00 2", got)
	}
	run(`INSERT INTO s VALUES (3, '2024-01-01 00:00:03')`)
	run(`FLUSH`)
	if got := view(); got != "2024-01-01 00:00:00 2" {
		t.Fatalf("between firings: %q, want the last early value", got)
	}
	tick(5 * time.Second)
	if got := view(); got != "2024-01-01 00:00:00 3" {
		t.Fatalf("second firing: %q, want 2024-01-01 00:00:00 3", got)
	}
	run(`INSERT INTO s VALUES (4, '2024-01-01 00:00:12'), (5, '2024-01-01 00:00:04')`)
	run(`FLUSH`)
	if got := view(); got != "2024-01-01 00:00:00 3" {
		t.Fatalf("at close: %q, want the final 2024-01-01 00:00:00 3 (the row at 00:00:04 is late)", got)
	}
}
