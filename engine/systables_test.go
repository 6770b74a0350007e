package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
)

// rowLines renders a result's rows, one line each.
func rowLines(r *Result) string {
	var b strings.Builder
	for _, row := range r.Rows {
		b.WriteString(row.String() + "\n")
	}
	return b.String()
}

// TestSystemTablesAfterKnownInput feeds a windowed view five rows (one
// filtered out, one late) and checks what streamsql_catalog's tables,
// SHOW PIPELINES and EXPLAIN ANALYZE report: the same figures at
// parallelism 1 and 4, counted per operator.
func TestSystemTablesAfterKnownInput(t *testing.T) {
	for _, par := range []string{"1", "4"} {
		t.Run("parallelism="+par, func(t *testing.T) { testSystemTables(t, par) })
	}
}

func testSystemTables(t *testing.T, par string) {
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(connectors.SinkSpec) (connectors.Sink, error) { return &recordSink{}, nil }})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg, Settings: map[string]string{"parallelism": par}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	run := mustExec(t, e)
	run(`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)`)
	run(`CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
		WHERE k > 0 GROUP BY k, window_start LATE DATA DROP EMIT ON WINDOW CLOSE`)
	run(`CREATE SINK out FROM m WITH (connector = 'record')`)
	// (0, ...) is filtered out; the last row is late: 00:00:12 closed its window.
	run(`INSERT INTO s VALUES (1, '2024-01-01 00:00:01'), (2, '2024-01-01 00:00:02'), (0, '2024-01-01 00:00:03'),
		(1, '2024-01-01 00:00:12'), (1, '2024-01-01 00:00:02')`)
	run(`FLUSH`)
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	check := func(q, want string) {
		t.Helper()
		if got := rowLines(run(q)); got != want {
			t.Errorf("%s =\n%swant\n%s", q, got, want)
		}
	}
	// The window [0s, 10s) fired with two groups; [10s, 20s) holds one.
	check(`SELECT id, operator, rows_in, rows_out, state_keys, watermark FROM streamsql_catalog.operators WHERE view = 'm' ORDER BY id`,
		"0 Materialize 2 2 2 2024-01-01 00:00:12\n"+
			"1 Project 2 2 NULL 2024-01-01 00:00:12\n"+
			"2 WindowAggregate 4 2 1 2024-01-01 00:00:12\n"+
			"3 Filter 5 4 NULL 2024-01-01 00:00:12\n"+
			"4 Scan 5 5 NULL 2024-01-01 00:00:12\n")
	check(`SELECT pipeline, source, "partition", records_read, on_error, decode_errors, watermark, idle, watermark_lag IS NOT NULL
		FROM streamsql_catalog.sources`, "m s 0 5 fail 0 2024-01-01 00:00:12 f t\n")
	check(`SELECT * FROM streamsql_catalog.late_rows`, "m drop expired 1\n")
	check(`SELECT sink, connector, rows_written, commits, last_committed_checkpoint FROM streamsql_catalog.sinks`, "out record 2 1 1\n")
	check(`SELECT id, changes > 0, duration IS NOT NULL, bytes > changes FROM streamsql_catalog.checkpoints`, "1 t t t\n")
	res := run(`SHOW PIPELINES`)
	if got, want := strings.Join(res.Schema.Names(), " "), "name sources sinks parallelism watermark watermark_lag stalled rows_in rows_out state_keys"; got != want {
		t.Fatalf("SHOW PIPELINES columns %s, want %s", got, want)
	}
	row := res.Rows[0]
	if got := row[:5].String() + " " + row[6:].String(); got != "m s out "+par+" 2024-01-01 00:00:12 f 5 2 3" {
		t.Errorf("SHOW PIPELINES = %s", row)
	}
	plan := rowLines(run(`EXPLAIN ANALYZE m`))
	for _, want := range []string{"view m (running, parallelism " + par + ")",
		"(id=2 rows in=4 out=2 state keys=1 watermark=2024-01-01 00:00:12)",
		"Filter (k > 0) [append-only, watermark ts] (id=3 rows in=5 out=4 watermark=2024-01-01 00:00:12)"} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN ANALYZE m lacks %q:\n%s", want, plan)
		}
	}
	if plan2 := rowLines(run(`EXPLAIN ANALYZE SELECT n FROM m WHERE k = 1`)); !strings.Contains(plan2, "Scan view m") || !strings.Contains(plan2, "(id=2 rows in=4 out=2") {
		t.Errorf("EXPLAIN ANALYZE of a query lacks the plan or the view's figures:\n%s", plan2)
	}
	// The figures are Metrics' figures: one set of bookkeeping.
	ops := e.Metrics().Views[0].Operators
	if ops[2].Label() != "WindowAggregate#2" || ops[2].RowsIn != 4 || ops[2].StateKeys != 1 {
		t.Errorf("Metrics operators[2] = %+v", ops[2])
	}
}

// TestSystemTablesReadOnly: `streamsql query` opens the state read-only
// with nothing running; the system tables answer, late_rows with the
// totals the last checkpoint stored, the running figures empty, and
// EXPLAIN ANALYZE says the view is not running.
func TestSystemTablesReadOnly(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)`,
		`CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
		 GROUP BY k, window_start LATE DATA DROP EMIT ON WINDOW CLOSE`,
		`INSERT INTO s VALUES (1, '2024-01-01 00:00:01'), (1, '2024-01-01 00:00:12'), (1, '2024-01-01 00:00:02')`, `FLUSH`} {
		if _, err := e.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(Options{StateDir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	r, err := ro.Exec(context.Background(), `SELECT view, operator FROM streamsql_catalog.operators`)
	if err != nil || len(r.Rows) != 0 || strings.Join(r.Schema.Names(), ",") != "view,operator" {
		t.Fatalf("read-only operators = %v, %v", r, err)
	}
	if r, err := ro.Exec(context.Background(), `SELECT * FROM streamsql_catalog.late_rows`); err != nil || rowLines(r) != "m drop expired 1\n" {
		t.Fatalf("read-only late_rows = %v, %v", r, err)
	}
	if r, err := ro.Exec(context.Background(), `SHOW PIPELINES`); err != nil || len(r.Rows) != 0 {
		t.Fatalf("read-only SHOW PIPELINES = %v, %v", r, err)
	}
	if _, err := ro.Exec(context.Background(), `EXPLAIN ANALYZE m`); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Fatalf("read-only EXPLAIN ANALYZE: %v", err)
	}
}
