package engine

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
)

// readOnlyState builds a stopped pipeline's state in a new directory: a
// keyed view over a memory source, a view with a LATE DATA side table, a
// memory TABLE and a dead-letter table, closed with a checkpoint. It
// returns the directory and the registry the pipeline used.
func readOnlyState(t *testing.T) (string, *connectors.Registry) {
	t.Helper()
	reg := connectors.NewRegistry()
	reg.AddSource(lineFactory())
	lineMu.Lock()
	lineInput["ro"] = []string{"1,2024-01-01 00:00:01", "oops", "2,2024-01-01 00:00:02", "also bad"}
	lineMu.Unlock()
	dir := t.TempDir()
	e, err := Open(Options{StateDir: dir, Registry: reg, Settings: map[string]string{"parallelism": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`SET strict = off`,
		`CREATE SOURCE s (k BIGINT, name VARCHAR, ts TIMESTAMP, WATERMARK FOR ts AS ts)`,
		`CREATE MATERIALIZED VIEW byk AS SELECT k, name, count(*) AS n FROM s GROUP BY k, name`,
		`CREATE MATERIALIZED VIEW win AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
			GROUP BY k, window_start LATE DATA SIDE OUTPUT late_rows EMIT ON WINDOW CLOSE`,
		`CREATE TABLE dim (id BIGINT PRIMARY KEY, tier VARCHAR)`,
		`INSERT INTO dim VALUES (1, 'gold'), (2, 'silver'), (1, 'platinum')`,
		`CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', input = 'ro', on_error = 'dead_letter')`,
		`CREATE MATERIALIZED VIEW fromsrc AS SELECT k FROM src`,
		`INSERT INTO s VALUES (1, 'a', '2024-01-01 00:00:01'), (2, 'b', '2024-01-01 00:00:12'), (3, 'c', '2024-01-01 00:00:05'), (1, 'a', '2024-01-01 00:00:25')`,
		`FLUSH`,
	} {
		if _, err := e.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, reg
}

// readOnlyQueries are the statements whose answers must not depend on how
// the state is opened.
var readOnlyQueries = []string{
	`SELECT * FROM byk`,
	`SELECT * FROM byk WHERE k = 1 AND name = 'a'`,
	`SELECT name, n FROM byk WHERE k = 2 AND name = 'b'`,
	`SELECT * FROM byk WHERE k = 9 AND name = 'a'`,
	`SELECT k, sum(n) FROM byk GROUP BY k ORDER BY k`,
	`SELECT * FROM win`,
	`SELECT * FROM win WHERE k = 1 AND window_start = TIMESTAMP '2024-01-01 00:00:00'`,
	`SELECT * FROM late_rows`,
	`SELECT * FROM dim`,
	`SELECT tier FROM dim WHERE id = 1`,
	`SELECT * FROM byk WHERE k = 1`,
	`SELECT n FROM byk WHERE k = 1 AND name >= 'a' AND n > 1`,
	`SELECT count(*) FROM byk WHERE k = 2`,
	`SELECT name, sum(n) FROM byk WHERE k = 1 GROUP BY name`,
	`SELECT * FROM dim WHERE id >= 1 AND id < 2`,
	`SELECT raw FROM src_dead_letter WHERE source = 'src'`,
	`SELECT * FROM byk LIMIT 2`,
	`SELECT name FROM byk WHERE k = 1 LIMIT 1`,
	`SELECT k FROM fromsrc WHERE k > 1 LIMIT 1`,
	`SELECT * FROM late_rows LIMIT 1`,
	`SELECT "offset" FROM src_dead_letter LIMIT 1 OFFSET 1`,
	`SELECT * FROM dim LIMIT 1`,
	`SELECT "offset" FROM src_dead_letter WHERE source = 'src' AND "partition" = 0 AND "offset" > 1`,
	`SELECT source, "partition", "offset", raw FROM src_dead_letter`,
	`SELECT * FROM fromsrc`,
	`SHOW MATERIALIZED VIEWS`,
	`DESCRIBE byk`,
}

func answers(t *testing.T, e *Engine) []string {
	t.Helper()
	var out []string
	for _, q := range readOnlyQueries {
		r, err := e.Exec(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, fmt.Sprintf("%s: %v", q, r.Rows))
	}
	return out
}

// listing is every file under dir with its size and modification time.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s %d %v", p, info.Size(), info.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestReadOnlyAnswersAsRecovery: a read-only engine gives the answers a
// full recovery gives, for views (whole and point reads), a side table, a
// TABLE and a dead-letter table, and writes nothing to the state.
func TestReadOnlyAnswersAsRecovery(t *testing.T) {
	dir, reg := readOnlyState(t)
	before := listing(t, dir)
	ro, err := Open(Options{StateDir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	got := answers(t, ro)
	if ro.Repaired() {
		t.Error("a cleanly closed state needed repair")
	}
	if n, err := ro.Notices(); err != nil || len(n) != 0 {
		t.Errorf("notices %q, %v; want none: everything was checkpointed", n, err)
	}
	if _, err := ro.Exec(context.Background(), `INSERT INTO s VALUES (4, 'd', '2024-01-01 00:00:30')`); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("INSERT on a read-only engine: %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := listing(t, dir); after != before {
		t.Fatalf("a read-only engine changed the state directory:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	full, err := Open(Options{StateDir: dir, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = full.Crash() }()
	want := answers(t, full)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("read-only %s\nfull recovery %s", got[i], want[i])
		}
	}
	for _, w := range []string{"a': [1 a 2]", "id = 1: [platinum]", "[src 0 1 oops src 0 3 also bad]", "late_rows: [3 c 2024-01-01 00:00:05"} {
		if !strings.Contains(strings.Join(got, "\n"), w) {
			t.Errorf("answers lack %s:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// TestReadOnlyReadsTheLastCheckpoint: rows INSERTed after the last
// checkpoint are not in a read-only engine's answers (a restart would
// replay them), and Notices counts them per view.
func TestReadOnlyReadsTheLastCheckpoint(t *testing.T) {
	dir, reg := readOnlyState(t)
	e, err := Open(Options{StateDir: dir, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Exec(context.Background(), `INSERT INTO s VALUES (4, 'd', '2024-01-01 00:00:30'), (5, 'e', '2024-01-01 00:00:31')`); err != nil {
		t.Fatal(err)
	}
	if err := e.Crash(); err != nil { // no checkpoint: the INSERT is only in the log
		t.Fatal(err)
	}
	ro, err := Open(Options{StateDir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ro.Close() }()
	r, err := ro.Exec(context.Background(), `SELECT count(*) FROM byk`)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Rows) != "[3]" {
		t.Errorf("count(*) of byk read-only = %v, want [3] (the last checkpoint's)", r.Rows)
	}
	n, err := ro.Notices()
	if err != nil {
		t.Fatal(err)
	}
	if len(n) != 2 || !strings.Contains(n[0], "view byk: 2 rows INSERTed after the last checkpoint") || !strings.Contains(n[1], "view win: 2 rows") {
		t.Errorf("notices %q, want byk's and win's 2 rows", n)
	}
}

// TestReadOnlyRefusesARunningPipeline: while an engine has the state open
// for writing, a read-only open fails (Badger's directory lock) instead
// of reading a store being written.
func TestReadOnlyRefusesARunningPipeline(t *testing.T) {
	dir, reg := readOnlyState(t)
	e, err := Open(Options{StateDir: dir, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	if ro, err := Open(Options{StateDir: dir, ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "lock") {
		if ro != nil {
			_ = ro.Close()
		}
		t.Fatalf("read-only open of a state in use: %v, want a lock error", err)
	}
}
