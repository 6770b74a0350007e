package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connectors"
)

// recordSink keeps every change written to it.
type recordSink struct {
	mu      sync.Mutex
	changes []string
}

func (s *recordSink) Write(_ context.Context, cs []connectors.Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range cs {
		s.changes = append(s.changes, c.Op.String()+" "+c.Row.String())
	}
	return nil
}
func (s *recordSink) PreCommit(context.Context, uint64) ([]byte, error) { return nil, nil }
func (s *recordSink) Commit(context.Context, uint64) error              { return nil }
func (s *recordSink) Close() error                                      { return nil }

// TestParallelLateUpdateChangelog: at parallelism 4 (local and global
// window aggregates), a late row reaching the global aggregate before the
// window has fired there waits for the firing instead of firing the
// window with the late rows alone, so every row the sink sees is a
// result the window really had.
func TestParallelLateUpdateChangelog(t *testing.T) {
	rec := &recordSink{}
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(connectors.SinkSpec) (connectors.Sink, error) { return rec, nil }})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg, Settings: map[string]string{"parallelism": "4"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, q := range []string{
		`CREATE SOURCE s (k BIGINT, name VARCHAR, v BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)`,
		`CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n, max(name) AS mx, sum(v) AS sv
			FROM TUMBLE(s, ts, INTERVAL '10' SECOND) GROUP BY k, window_start
			ALLOWED LATENESS INTERVAL '20' SECOND LATE DATA UPDATE EMIT ON WINDOW CLOSE`,
		`CREATE SINK out FROM m WITH (connector = 'record')`,
		// (1, 'c') is late: (2, 'b') moved the watermark past 00:00:10 first.
		`INSERT INTO s VALUES (1, 'a', 1, '2024-01-01 00:00:01'), (2, 'b', 2, '2024-01-01 00:00:12'), (1, 'c', 10, '2024-01-01 00:00:05')`,
		`FLUSH`,
	} {
		if _, err := e.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	valid := map[string]bool{
		`upsert 1 2024-01-01 00:00:00 1 a 1`:  true, // the on-time firing
		`upsert 1 2024-01-01 00:00:00 2 c 11`: true, // after the late row
	}
	saw := false
	for _, c := range rec.changes {
		if len(c) > 8 && c[:8] == "upsert 1" {
			if !valid[c] {
				t.Errorf("the sink got %q, which window (1, 00:00:00) never held (all: %q)", c, rec.changes)
			}
			saw = saw || c == `upsert 1 2024-01-01 00:00:00 2 c 11`
		}
	}
	if !saw {
		t.Fatalf("the final row never reached the sink: %q", rec.changes)
	}
}

// TestSinkFromSideTable: a sink FROM a view's LATE DATA side table gets
// the late rows (with their reason), a sink FROM the view only the view's
// changes; the view cannot be dropped while the side sink reads it, and
// the sink is attached again after a restart.
func TestSinkFromSideTable(t *testing.T) {
	sinks := map[string]*recordSink{}
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
		if !spec.AppendOnly && spec.Name == "late_out" {
			t.Errorf("the side table's sink is not told it only gets inserts")
		}
		if sinks[spec.Name] == nil {
			sinks[spec.Name] = &recordSink{}
		}
		return sinks[spec.Name], nil
	}})
	dir := t.TempDir()
	open := func() (*Engine, func(string) error) {
		e, err := Open(Options{StateDir: dir, Registry: reg, Settings: map[string]string{"parallelism": "2"}})
		if err != nil {
			t.Fatal(err)
		}
		return e, func(q string) error { _, err := e.Exec(context.Background(), q); return err }
	}
	e, exec := open()
	for _, q := range []string{
		`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)`,
		`CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
			GROUP BY k, window_start LATE DATA SIDE OUTPUT late_rows EMIT ON WINDOW CLOSE`,
		`CREATE SINK late_out FROM late_rows WITH (connector = 'record')`,
		`CREATE SINK view_out FROM m WITH (connector = 'record')`,
		`INSERT INTO s VALUES (1, '2024-01-01 00:00:01'), (2, '2024-01-01 00:00:12'), (3, '2024-01-01 00:00:05')`,
		`FLUSH`,
	} {
		if err := exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	check := func(name string, want ...string) {
		t.Helper()
		s := sinks[name]
		s.mu.Lock()
		defer s.mu.Unlock()
		if fmt.Sprint(s.changes) != fmt.Sprint(want) {
			t.Fatalf("sink %s got %q, want %q", name, s.changes, want)
		}
	}
	check("late_out", "upsert 3 2024-01-01 00:00:05 expired 2024-01-01 00:00:12")
	check("view_out", "upsert 1 2024-01-01 00:00:00 1")
	if err := exec(`DROP MATERIALIZED VIEW m`); err == nil || !strings.Contains(err.Error(), "late_out") {
		t.Fatalf("dropping the view under its side table's sink: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, exec = open()
	defer e.Close()
	if err := exec(`INSERT INTO s VALUES (4, '2024-01-01 00:00:06'); FLUSH`); err != nil {
		t.Fatal(err)
	}
	check("late_out", "upsert 3 2024-01-01 00:00:05 expired 2024-01-01 00:00:12", "upsert 4 2024-01-01 00:00:06 expired 2024-01-01 00:00:12")
}

// TestSinkFromTable: a sink FROM a TABLE gets its upserts and deletes by
// key as they are applied, checkpoints with the engine, comes back after
// a restart, and holds the table against DROP.
func TestSinkFromTable(t *testing.T) {
	rec := &recordSink{}
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
		if len(spec.Key) != 1 || spec.Key[0] != 0 || spec.AppendOnly {
			t.Errorf("the table's sink spec: key %v, append-only %v; want key [0], updates", spec.Key, spec.AppendOnly)
		}
		return rec, nil
	}})
	dir := t.TempDir()
	open := func() (*Engine, func(string) error) {
		e, err := Open(Options{StateDir: dir, Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		return e, func(q string) error { _, err := e.Exec(context.Background(), q); return err }
	}
	e, exec := open()
	for _, q := range []string{
		`CREATE TABLE dim (id BIGINT PRIMARY KEY, label VARCHAR)`,
		`CREATE SINK dim_out FROM dim WITH (connector = 'record')`,
		`INSERT INTO dim VALUES (1, 'a'), (2, 'b')`,
		`INSERT INTO dim VALUES (1, 'c')`,
	} {
		if err := exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if text, _ := e.Explain(); !strings.Contains(text, "table dim\ncontract:\n  sink dim_out: record, at-least-once, key [id]") {
		t.Errorf("the contract does not show the table's sink:\n%s", text)
	}
	if err := exec(`DROP TABLE dim`); err == nil || !strings.Contains(err.Error(), "dim_out") {
		t.Fatalf("dropping a table a sink reads: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, exec = open()
	defer e.Close()
	if err := exec(`INSERT INTO dim VALUES (3, 'd')`); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	got := fmt.Sprint(rec.changes)
	rec.mu.Unlock()
	if want := fmt.Sprint([]string{"upsert 1 a", "upsert 2 b", "upsert 1 c", "upsert 3 d"}); got != want {
		t.Fatalf("the table's sink got %s, want %s", got, want)
	}
	if err := exec(`DROP SINK dim_out`); err != nil {
		t.Fatal(err)
	}
	if err := exec(`DROP TABLE dim`); err != nil {
		t.Fatalf("dropping the table once its sink is gone: %v", err)
	}
}

// TestNewSinkGetsASnapshot: a sink created on a view or TABLE that
// already holds rows gets them first (as upserts), unless snapshot =
// false; then the changes that follow.
func TestNewSinkGetsASnapshot(t *testing.T) {
	sinks := map[string]*recordSink{}
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
		sinks[spec.Name] = &recordSink{}
		return sinks[spec.Name], nil
	}})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg, Settings: map[string]string{"strict": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, q := range []string{
		`CREATE SOURCE s (k BIGINT)`,
		`CREATE MATERIALIZED VIEW m AS SELECT k, count(*) AS n FROM s GROUP BY k`,
		`CREATE TABLE dim (id BIGINT PRIMARY KEY, label VARCHAR)`,
		`INSERT INTO s VALUES (1), (1), (2)`,
		`INSERT INTO dim VALUES (7, 'x')`,
		`FLUSH`,
		`CREATE SINK with_snapshot FROM m WITH (connector = 'record')`,
		`CREATE SINK changes_only FROM m WITH (connector = 'record', snapshot = 'false')`,
		`CREATE SINK dim_snapshot FROM dim WITH (connector = 'record')`,
		`INSERT INTO s VALUES (3)`,
		`FLUSH`,
	} {
		if _, err := e.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for name, want := range map[string][]string{
		"with_snapshot": {"upsert 1 2", "upsert 2 1", "upsert 3 1"},
		"changes_only":  {"upsert 3 1"},
		"dim_snapshot":  {"upsert 7 x"},
	} {
		s := sinks[name]
		s.mu.Lock()
		got := append([]string(nil), s.changes...)
		s.mu.Unlock()
		slices.Sort(got)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("sink %s got %q, want %q", name, got, want)
		}
	}
}
