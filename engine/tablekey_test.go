package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/types"
)

// keyProbe is one point query: the text with $n parameters, the
// parameters, and the same text with the parameters written as literals.
type keyProbe struct {
	sql  string
	args []types.Value
	lit  string
}

// checkByKeyEqualsScan runs each probe three ways — prepared by key, as
// literal text (which the engine also reads by key) and through the
// general plan over a snapshot — and fails unless the prepared path was
// taken, all three give the same rows and the probes found `found` rows in all.
func checkByKeyEqualsScan(t *testing.T, e *Engine, what string, found int, probes []keyProbe) {
	t.Helper()
	n := 0
	ctx := context.Background()
	for _, pr := range probes {
		p := e.PreparePointQuery(ctx, pr.sql)
		if p == nil {
			t.Fatalf("%s: %s is not read by key", what, pr.sql)
		}
		byKey, err := e.RunPointQuery(ctx, p, pr.args)
		if err != nil {
			t.Fatalf("%s: %s %v: %v", what, pr.sql, pr.args, err)
		}
		lit, err := e.Exec(ctx, pr.lit)
		if err != nil {
			t.Fatalf("%s: %s: %v", what, pr.lit, err)
		}
		stmts, err := parser.Parse(pr.lit)
		if err != nil {
			t.Fatal(err)
		}
		e.mu.Lock()
		scan, err := e.scanQuery(stmts[0].(*parser.QueryStmt))
		e.mu.Unlock()
		if err != nil {
			t.Fatalf("%s: scan %s: %v", what, pr.lit, err)
		}
		n += len(scan.Rows)
		want := fmtRows(scan.Rows)
		if got := fmtRows(byKey.Rows); got != want {
			t.Errorf("%s: %s %v by key = %s, scan = %s", what, pr.sql, pr.args, got, want)
		}
		if got := fmtRows(lit.Rows); got != want {
			t.Errorf("%s: %s = %s, scan = %s", what, pr.lit, got, want)
		}
		if len(byKey.Schema) != len(scan.Schema) {
			t.Errorf("%s: %s: by key %d columns, scan %d", what, pr.sql, len(byKey.Schema), len(scan.Schema))
		}
	}
	if n != found {
		t.Errorf("%s: the probes found %d rows, want %d", what, n, found)
	}
}

// TestTablePointQueriesReadByKey checks that point queries on a memory
// TABLE, a connector TABLE (upserts and deletes) and a dead-letter table
// answer by key exactly what a scan answers: present and absent keys,
// NULL, composite keys, and after updates, deletes, a restart and a
// crash, and on a read-only engine over the stopped state.
func TestTablePointQueriesReadByKey(t *testing.T) {
	lineMu.Lock()
	lineInput["tablekey"] = []string{"1,2024-01-01 00:00:01", "{bad", "2,2024-01-01 00:00:02", "x,oops"}
	lineMu.Unlock()
	r := func(id int64, name string) types.Row { return types.Row{types.IntValue(id), types.StringValue(name)} }
	up, del := connectors.Upsert, connectors.Delete
	reg := connectors.NewRegistry()
	reg.AddSource(lineFactory())
	reg.AddSource(connectors.SourceFactory{Name: "changes", New: func(context.Context, connectors.SourceSpec) (connectors.Source, error) {
		return &changeSource{
			rows: []types.Row{r(1, "a"), r(2, "b"), r(1, "a2"), {types.IntValue(2), types.NullValue}, r(3, "c")},
			ops:  []connectors.Op{up, up, up, del, up},
		}, nil
	}})
	dir := t.TempDir()
	open := func() *Engine {
		e, err := Open(Options{StateDir: dir, Registry: reg, Settings: map[string]string{"parallelism": "1", "strict": "off"}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	ctx := context.Background()
	exec := func(e *Engine, qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := e.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	exec(e,
		`CREATE TABLE kv (id BIGINT PRIMARY KEY, name VARCHAR, score DOUBLE)`,
		`INSERT INTO kv VALUES (1, 'one', 1.5), (2, 'two', NULL), (-3, 'minus three', 3)`,
		`CREATE TABLE ck (a VARCHAR, b BIGINT, v VARCHAR, PRIMARY KEY (a, b))`,
		`INSERT INTO ck VALUES ('x', 1, 'x1'), ('x', 2, 'x2'), ('y', 1, 'y1')`,
		`CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR) WITH (connector = 'changes')`,
		`CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', input = 'tablekey', follow = true, on_error = 'dead_letter')`,
		`CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM src`,
		`FLUSH`,
	)
	i, s, null := types.IntValue, types.StringValue, types.NullValue
	probes := []keyProbe{
		{"SELECT * FROM kv WHERE id = $1", []types.Value{i(1)}, "SELECT * FROM kv WHERE id = 1"},
		{"SELECT * FROM kv WHERE id = $1", []types.Value{i(-3)}, "SELECT * FROM kv WHERE id = -3"},
		{"SELECT * FROM kv WHERE id = $1", []types.Value{i(2)}, "SELECT * FROM kv WHERE id = 2"},
		{"SELECT * FROM kv WHERE id = $1", []types.Value{i(4)}, "SELECT * FROM kv WHERE id = 4"},
		{"SELECT * FROM kv WHERE id = $1", []types.Value{null}, "SELECT * FROM kv WHERE id = NULL"},
		{"SELECT name, score AS s FROM kv k WHERE $1 = k.id", []types.Value{s("2")}, "SELECT name, score AS s FROM kv k WHERE '2' = k.id"},
		{"SELECT * FROM ck WHERE a = $1 AND b = $2", []types.Value{s("x"), i(2)}, "SELECT * FROM ck WHERE a = 'x' AND b = 2"},
		{"SELECT v FROM ck WHERE b = $2 AND a = $1", []types.Value{s("y"), i(1)}, "SELECT v FROM ck WHERE b = 1 AND a = 'y'"},
		{"SELECT * FROM ck WHERE a = $1 AND b = $2", []types.Value{s("y"), i(2)}, "SELECT * FROM ck WHERE a = 'y' AND b = 2"},
		{"SELECT * FROM customers WHERE id = $1", []types.Value{i(1)}, "SELECT * FROM customers WHERE id = 1"},
		{"SELECT * FROM customers WHERE id = $1", []types.Value{i(2)}, "SELECT * FROM customers WHERE id = 2"},
		{"SELECT * FROM customers WHERE id = $1", []types.Value{i(3)}, "SELECT * FROM customers WHERE id = 3"},
		{`SELECT raw, error FROM src_dead_letter WHERE source = $1 AND "partition" = $2 AND "offset" = $3`, []types.Value{s("src"), i(0), i(1)},
			`SELECT raw, error FROM src_dead_letter WHERE source = 'src' AND "partition" = 0 AND "offset" = 1`},
		{`SELECT raw FROM src_dead_letter WHERE source = $1 AND "partition" = $2 AND "offset" = $3`, []types.Value{s("src"), i(0), i(3)},
			`SELECT raw FROM src_dead_letter WHERE source = 'src' AND "partition" = 0 AND "offset" = 3`},
		{`SELECT raw FROM src_dead_letter WHERE source = $1 AND "partition" = $2 AND "offset" = $3`, []types.Value{s("src"), i(0), i(2)},
			`SELECT raw FROM src_dead_letter WHERE source = 'src' AND "partition" = 0 AND "offset" = 2`},
		{`SELECT raw FROM src_dead_letter WHERE source = $1 AND "partition" = $2 AND "offset" = $3`, []types.Value{s("src"), i(0), i(5)},
			`SELECT raw FROM src_dead_letter WHERE source = 'src' AND "partition" = 0 AND "offset" = 5`},
	}
	checkByKeyEqualsScan(t, e, "fresh (dead letters in memory)", 10, probes)
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	checkByKeyEqualsScan(t, e, "after a checkpoint (dead letters in Badger)", 10, probes)

	// Updates reach a query prepared before them.
	p := e.PreparePointQuery(ctx, "SELECT name FROM kv WHERE id = $1")
	exec(e, `INSERT INTO kv VALUES (1, 'uno', 0), (4, 'four', 4)`)
	res, err := e.RunPointQuery(ctx, p, []types.Value{i(1)})
	if err != nil || fmtRows(res.Rows) != "[[uno]]" {
		t.Fatalf("prepared before an update: %v %v", res, err)
	}
	checkByKeyEqualsScan(t, e, "after updates", 11, probes)

	// More poison records and rows, then a crash: the INSERTs were durable
	// when acknowledged; the dead letters come back by replay.
	lineMu.Lock()
	lineInput["tablekey"] = append(lineInput["tablekey"], "\xff,bytes", "5,2024-01-01 00:00:05")
	lineMu.Unlock()
	exec(e, `FLUSH`, `INSERT INTO ck VALUES ('y', 2, 'y2')`)
	checkByKeyEqualsScan(t, e, "before the crash", 12, probes)
	if err := e.Crash(); err != nil {
		t.Fatal(err)
	}
	e = open()
	exec(e, `FLUSH`)
	checkByKeyEqualsScan(t, e, "after a crash", 12, probes)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// A read-only engine (streamsql query) reads the stored rows by key.
	ro, err := Open(Options{StateDir: dir, Registry: reg, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	checkByKeyEqualsScan(t, ro, "read-only", 12, probes)
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	e = open()
	defer e.Close()
	checkByKeyEqualsScan(t, e, "after a restart", 12, probes)

	// A dropped and re-created table is not read through a stale query.
	p = e.PreparePointQuery(ctx, "SELECT name FROM kv WHERE id = $1")
	exec(e, `DROP TABLE kv`, `CREATE TABLE kv (id BIGINT PRIMARY KEY, name VARCHAR)`)
	if _, err := e.RunPointQuery(ctx, p, []types.Value{i(1)}); err != ErrStalePointQuery {
		t.Fatalf("after DROP and CREATE: %v, want ErrStalePointQuery", err)
	}
	// Sources have no key: their queries take the general path.
	if p := e.PreparePointQuery(ctx, "SELECT * FROM src WHERE k = $1"); p != nil {
		t.Fatal("a source was read by key")
	}
}

func TestParameterize(t *testing.T) {
	for _, tt := range []struct {
		sql, shape string
		args       string // fmtRows of the arguments; "" when declined
	}{
		{"SELECT * FROM kv WHERE id = 42", "SELECT * FROM kv WHERE id = $1", "[[42]]"},
		{" select v FROM t1 WHERE a='it''s' AND b=7", " select v FROM t1 WHERE a=$1 AND b=$2", "[[it's 7]]"},
		{`SELECT "x1" FROM kv WHERE "offset" = 3`, `SELECT "x1" FROM kv WHERE "offset" = $1`, "[[3]]"},
		{"SELECT * FROM kv WHERE id = -3", "SELECT * FROM kv WHERE id = -$1", "[[3]]"},
		{"SELECT * FROM kv", "", ""},
		{"INSERT INTO kv VALUES (1)", "", ""},
		{"SELECT * FROM kv WHERE id = $1", "", ""},
		{"SELECT * FROM kv WHERE id = 1.5", "", ""},
		{"SELECT * FROM kv WHERE id = 1e3", "", ""},
		{"SELECT * FROM kv WHERE id = 99999999999999999999", "", ""},
		{"SELECT * FROM kv WHERE ts = TIMESTAMP '2024-01-01'", "", ""},
		{"SELECT * FROM kv WHERE s = E'a'", "", ""},
		{`SELECT * FROM kv WHERE s = 'a\'`, "", ""},
		{"SELECT * FROM kv WHERE s = 'open", "", ""},
		{"SELECT * FROM kv WHERE id = 1 -- one", "", ""},
		{"SELECT * FROM kv WHERE id = 1 /* one */", "", ""},
		{"SELECT * FROM kv LIMIT 5", "", ""},
		{"SELECT * FROM kv WHERE s = 'a' 'b'", "", ""},
		{"SELECT * FROM kv WHERE s = 'a'\n'b'", "", ""},
		{`SELECT * FROM kv WHERE "s" 'a'`, "", ""},
		{"SELECT * FROM kv WHERE id = 1 2", "", ""},
	} {
		shape, args, ok := parameterize(tt.sql)
		if !ok {
			if tt.args != "" {
				t.Errorf("%s: declined", tt.sql)
			}
			continue
		}
		if got := fmtRows([]types.Row{args}); tt.args == "" || shape != tt.shape || got != tt.args {
			t.Errorf("%s: %q %s, want %q %s", tt.sql, shape, got, tt.shape, tt.args)
		}
	}
}

// TestPointTextShapes checks that literal point queries are answered from
// the shape cache, and that a shape found not to be a point read is tried
// again once the catalog changes.
func TestPointTextShapes(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Exec(ctx, "SELECT * FROM kv WHERE id = 1"); err == nil {
		t.Fatal("a query of a missing table ran")
	}
	for _, q := range []string{
		"CREATE TABLE kv (id BIGINT PRIMARY KEY, name VARCHAR)",
		"INSERT INTO kv VALUES (1, 'one'), (2, 'two')",
	} {
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, tt := range []struct{ sql, want string }{
		{"SELECT * FROM kv WHERE id = 1", "[[1 one]]"},
		{"SELECT * FROM kv WHERE id = 2", "[[2 two]]"},
		{"SELECT * FROM kv WHERE id = 3", "[]"},
		{"SELECT name FROM kv WHERE id = '2'", "[[two]]"},
		{"SELECT name FROM kv WHERE name = 'one'", "[[one]]"},
		{"SELECT 7 FROM kv WHERE id = 1", "[[7]]"},
	} {
		res, err := e.Exec(ctx, tt.sql)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		if got := fmtRows(res.Rows); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.sql, got, tt.want)
		}
	}
	if _, err := e.Exec(ctx, "SELECT * FROM kv WHERE id = 'x'"); err == nil || !strings.Contains(err.Error(), "bigint") {
		t.Errorf("a string that is no BIGINT: %v", err)
	}
	for shape, want := range map[string]string{
		"SELECT * FROM kv WHERE id = $1":      "point read",
		"SELECT name FROM kv WHERE id = $1":   "point read",
		"SELECT name FROM kv WHERE name = $1": "not a point read",
		"SELECT 7 FROM kv WHERE id = $1":      "not cached", // a literal after a word is declined
	} {
		got := "not cached"
		if c, ok := e.pointShapes[shape]; ok && c.p != nil {
			got = "point read"
		} else if ok {
			got = "not a point read"
		}
		if got != want {
			t.Errorf("shape %q: %s, want %s", shape, got, want)
		}
	}
}
