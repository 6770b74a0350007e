package engine

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/lateness"
)

// metricLines is SHOW METRICS as "name value" lines.
func metricLines(t *testing.T, exec func(string) (*Result, error)) string {
	t.Helper()
	r, err := exec(`SHOW METRICS`)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, row := range r.Rows {
		b.WriteString(row.String() + "\n")
	}
	return b.String()
}

// TestCountersSurviveCrash: decode errors and late rows are totals users
// read, so they come back with the checkpoint after a crash and the
// replay adds only what the checkpoint did not hold: the figures equal
// those of a run without the crash.
func TestCountersSurviveCrash(t *testing.T) {
	lineMu.Lock()
	lineInput["counters"] = []string{"1,2024-01-01 00:00:01", "bad", "1,2024-01-01 00:00:12", "1,2024-01-01 00:00:03"}
	lineMu.Unlock()
	dir := t.TempDir()
	e, exec := openLines(t, dir)
	for _, q := range []string{
		`CREATE SOURCE src (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (connector = 'lines', input = 'counters', follow = true, on_error = 'skip')`,
		`CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n FROM TUMBLE(src, ts, INTERVAL '10' SECOND)
		 GROUP BY k, window_start ALLOWED LATENESS INTERVAL '5' SECOND LATE DATA DROP EMIT ON WINDOW CLOSE`,
		`FLUSH`,
	} {
		if _, err := exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	lineMu.Lock()
	lineInput["counters"] = append(lineInput["counters"], "bad again", "1,2024-01-01 00:00:20", "1,2024-01-01 00:00:04")
	lineMu.Unlock()
	if _, err := exec(`FLUSH`); err != nil {
		t.Fatal(err)
	}
	want := metricLines(t, exec)
	for _, line := range []string{"decode_errors_total 2", `late_events_total{policy="drop",reason="late"} 1`, `late_events_total{policy="drop",reason="expired"} 1`} {
		if !strings.Contains(want, line+"\n") {
			t.Fatalf("before the crash, SHOW METRICS lacks %s:\n%s", line, want)
		}
	}
	if err := e.Crash(); err != nil {
		t.Fatal(err)
	}
	e, exec = openLines(t, dir)
	if _, err := exec(`FLUSH`); err != nil {
		t.Fatal(err)
	}
	if got := metricLines(t, exec); totals(got) != totals(want) {
		t.Fatalf("after crash and replay SHOW METRICS =\n%s\nwant\n%s", got, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, exec = openLines(t, dir) // a clean restart keeps them too
	defer e.Close()
	if got := metricLines(t, exec); totals(got) != totals(want) {
		t.Fatalf("after a restart SHOW METRICS =\n%s\nwant\n%s", got, want)
	}
	s := e.Metrics()
	if len(s.Sources) != 1 || s.Sources[0].DecodeErrors != 2 || s.Sources[0].OnError != "skip" {
		t.Fatalf("source figures %+v, want 2 decode errors under skip", s.Sources)
	}
	if len(s.Views) != 1 || s.Views[0].Late[lateness.LateKey{Policy: "drop", Reason: "expired"}] != 1 {
		t.Fatalf("view figures %+v, want 1 expired row", s.Views)
	}
}

// totals drops view_changes_total from SHOW METRICS lines: it counts
// since the process started.
func totals(lines string) string {
	var keep []string
	for _, l := range strings.Split(lines, "\n") {
		if !strings.HasPrefix(l, "view_changes_total") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// logBuffer collects an engine's log records as text lines.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// logger returns a debug-level text logger writing to l.
func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (l *logBuffer) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestWatermarkStall drives the engine clock by hand: a view whose input
// keeps arriving on partition 0 while partition 1 is quiet has a stuck
// watermark; after watermark_stall_timeout the engine names partition 1
// and raises the view's stalled figure, and clears it when partition 1
// catches up. A view with no input is not stalled, however long it waits.
func TestWatermarkStall(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var log logBuffer
	e, err := Open(Options{StateDir: t.TempDir(), Clock: func() time.Time { return now }, Logger: log.logger(),
		Settings: map[string]string{"parallelism": "1", "watermark_stall_timeout": "1m"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	exec := func(sql string) (*Result, error) { return e.Exec(context.Background(), sql) }
	run := func(sql string) {
		t.Helper()
		if _, err := exec(sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	step := func(d time.Duration) bool { // the run loop: read, tick, check
		t.Helper()
		now = now.Add(d)
		run(`FLUSH`)
		if _, _, err := e.Step(context.Background(), 1024); err != nil {
			t.Fatal(err)
		}
		return e.Metrics().Views[0].Stalled
	}
	run(`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (partitions = 2)`)
	run(`CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
	     GROUP BY k, window_start LATE DATA DROP EMIT ON WINDOW CLOSE`)
	run(`INSERT INTO s PARTITION (p0) VALUES (1, '2024-01-01 00:00:01')`)
	run(`INSERT INTO s PARTITION (p1) VALUES (2, '2024-01-01 00:00:01')`)
	if step(0) {
		t.Fatal("stalled at the first step")
	}
	if step(5 * time.Minute) {
		t.Fatal("stalled without input")
	}
	run(`INSERT INTO s PARTITION (p0) VALUES (1, '2024-01-01 00:00:30')`)
	if step(10 * time.Second) {
		t.Fatal("stalled before watermark_stall_timeout")
	}
	run(`INSERT INTO s PARTITION (p0) VALUES (1, '2024-01-01 00:00:40')`)
	if !step(time.Minute) {
		t.Fatalf("not stalled after a minute with input; log:\n%s", log.text())
	}
	for _, want := range []string{"view m: watermark stuck at 2024-01-01 00:00:01", "source s partition 1 holds it", "set idle_timeout on source s",
		"level=WARN ", ` view=m watermark="2024-01-01 00:00:01" source=s partition=1`} {
		if !strings.Contains(log.text(), want) {
			t.Fatalf("log lacks %q:\n%s", want, log.text())
		}
	}
	if m := metricLines(t, exec); !strings.Contains(m, `watermark_stalled{view="m"} 1`) {
		t.Fatalf("SHOW METRICS lacks the stall:\n%s", m)
	}
	run(`INSERT INTO s PARTITION (p1) VALUES (2, '2024-01-01 00:00:35')`)
	if step(time.Second) {
		t.Fatal("still stalled after partition 1 caught up")
	}
	if !strings.Contains(log.text(), `level=INFO msg="watermark moved again" view=m watermark="2024-01-01 00:00:35"`) {
		t.Fatalf("log lacks the release:\n%s", log.text())
	}
	if m := metricLines(t, exec); strings.Contains(m, "watermark_stalled") {
		t.Fatalf("SHOW METRICS still shows a stall:\n%s", m)
	}
}
