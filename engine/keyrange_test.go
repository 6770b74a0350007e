package engine

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
)

// TestKeyRangeEqualsScan runs random key ranges, key-prefix queries and
// ORDER BY key LIMIT queries over random TABLEs (a composite and a single
// key, rows replaced by later INSERTs) both ways — in key order through
// the TABLE's index and through the general plan over a copy of the
// table — and fails unless the answers are identical, row for row, and
// most queries took the key path. It checks again after a restart, whose
// restore rebuilds the index, and on a read-only engine over the stopped
// state, which reads stored rows by key prefix.
func TestKeyRangeEqualsScan(t *testing.T) {
	dir := t.TempDir()
	open := func() *Engine {
		e, err := Open(Options{StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	ctx := context.Background()
	rng := rand.New(rand.NewSource(13))
	run := func(e *Engine, q string) {
		t.Helper()
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	run(e, `CREATE TABLE ck (a BIGINT, b VARCHAR, v BIGINT, w VARCHAR, PRIMARY KEY (a, b))`)
	run(e, `CREATE TABLE one (id BIGINT PRIMARY KEY, v BIGINT)`)
	letters := []string{"", "a", "b", "ba", "c", "cc", "d"}
	for range 20 {
		var ck, one []string
		for range 20 {
			ck = append(ck, fmt.Sprintf("(%d, '%s', %d, 'w%d')", rng.Intn(12)-3, letters[rng.Intn(len(letters))], rng.Intn(50), rng.Intn(5)))
			one = append(one, fmt.Sprintf("(%d, %d)", rng.Intn(200)-100, rng.Intn(10)))
		}
		run(e, "INSERT INTO ck VALUES "+strings.Join(ck, ", "))
		run(e, "INSERT INTO one VALUES "+strings.Join(one, ", "))
	}
	queries := keyRangeQueries(rng, letters, 400)
	check := func(e *Engine, minKeyed int) {
		t.Helper()
		keyed := 0
		for _, q := range queries {
			got, want, used := bothWays(t, e, q)
			if used {
				keyed++
			}
			if got != want {
				t.Errorf("%s: key path %s, general path %s", q, got, want)
			}
		}
		if keyed < minKeyed {
			t.Errorf("only %d of %d queries read by key", keyed, len(queries))
		}
	}
	check(e, len(queries)*3/4)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = open()
	check(e, len(queries)*3/4)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Read-only, the stored rows are read by key prefix (a = ...).
	ro, err := Open(Options{StateDir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	check(ro, len(queries)/20)
	res, err := ro.Exec(ctx, "EXPLAIN SELECT * FROM ck WHERE v > 1 LIMIT 2")
	if err != nil {
		t.Fatal(err)
	}
	if last := res.Rows[len(res.Rows)-1][0].S; last != "access: stream of ck, first 2 rows" {
		t.Errorf("read-only EXPLAIN ends with %q, want the stream access path", last)
	}
}

// keyRangeQueries draws n queries over the tables of TestKeyRangeEqualsScan.
func keyRangeQueries(rng *rand.Rand, letters []string, n int) []string {
	ops := []string{"=", "<", "<=", ">", ">="}
	var out []string
	for range n {
		var conds []string
		var q string
		if rng.Intn(2) == 0 {
			if rng.Intn(3) > 0 {
				conds = append(conds, fmt.Sprintf("a %s %d", ops[rng.Intn(len(ops))], rng.Intn(14)-4))
			}
			switch rng.Intn(4) {
			case 0:
				conds = append(conds, fmt.Sprintf("b %s '%s'", ops[rng.Intn(len(ops))], letters[rng.Intn(len(letters))]))
			case 1:
				conds = append(conds, fmt.Sprintf("a BETWEEN %d AND %d", rng.Intn(10)-4, rng.Intn(10)-2))
			case 2:
				conds = append(conds, fmt.Sprintf("v > %d", rng.Intn(50)))
			}
			ordered := rng.Intn(2) == 0
			cols := []string{"*", "b, v", "w, a, b", "v"}[rng.Intn(4)]
			if ordered {
				cols = []string{"*", "a, b, v", "w, b, a"}[rng.Intn(3)]
			}
			q = "SELECT " + cols + " FROM ck"
			if len(conds) > 0 {
				q += " WHERE " + strings.Join(conds, " AND ")
			}
			if !ordered && rng.Intn(5) == 0 {
				q += fmt.Sprintf(" LIMIT %d", rng.Intn(5))
			} else if !ordered && len(conds) > 0 && rng.Intn(4) == 0 {
				q = "SELECT b, count(*), max(v) FROM ck WHERE " + strings.Join(conds, " AND ") + " GROUP BY b"
			}
			if ordered {
				dir := []string{"", " DESC"}[rng.Intn(2)]
				order := []string{"a" + dir + ", b" + dir, "b" + dir, "a" + dir}[rng.Intn(3)]
				q += " ORDER BY " + order + fmt.Sprintf(" LIMIT %d", rng.Intn(6))
				if rng.Intn(3) == 0 {
					q += fmt.Sprintf(" OFFSET %d", rng.Intn(4))
				}
			}
		} else {
			switch rng.Intn(3) {
			case 0:
				conds = append(conds, fmt.Sprintf("id %s %d", ops[rng.Intn(len(ops))], rng.Intn(220)-110))
			case 1:
				lo := rng.Intn(220) - 110
				conds = append(conds, fmt.Sprintf("id >= %d AND id < %d", lo, lo+rng.Intn(40)))
			case 2:
				conds = append(conds, fmt.Sprintf("%d < id", rng.Intn(220)-110), fmt.Sprintf("v <> %d", rng.Intn(10)))
			}
			q = "SELECT * FROM one WHERE " + strings.Join(conds, " AND ")
			switch rng.Intn(4) {
			case 0:
				q = "SELECT count(*), sum(v) FROM one WHERE " + strings.Join(conds, " AND ")
			case 1, 2:
				q = fmt.Sprintf("SELECT id, v FROM one ORDER BY id%s LIMIT %d", []string{"", " DESC"}[rng.Intn(2)], rng.Intn(8))
			case 3:
				q += fmt.Sprintf(" LIMIT %d OFFSET %d", rng.Intn(8), rng.Intn(3))
			}
		}
		out = append(out, q)
	}
	return out
}

// bothWays runs q as the engine does and through the general plan over a
// snapshot, and reports whether the plan has a key access path.
func bothWays(t *testing.T, e *Engine, q string) (got, want string, keyed bool) {
	t.Helper()
	res, err := e.Exec(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	stmts, err := parser.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	n, err := planner.BuildQuery(stmts[0].(*parser.QueryStmt), e.queryResolver(), true, "")
	if err != nil {
		t.Fatal(err)
	}
	n, _ = planner.Optimize(n)
	e.mu.Lock()
	defer e.mu.Unlock()
	rows, err := exec.RunQuery(n, e.snapshot)
	if err != nil {
		t.Fatalf("%s: general path: %v", q, err)
	}
	keyed = exec.PlanKeyScan(n, keyedTables{e}.Access) != nil
	return fmtRows(res.Rows), fmtRows(rows), keyed
}

// TestExplainShowsKeyAccess checks that EXPLAIN of a SELECT names the key
// access path when there is one, and none otherwise.
func TestExplainShowsKeyAccess(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Exec(ctx, `CREATE TABLE ck (a BIGINT, b VARCHAR, v BIGINT, PRIMARY KEY (a, b))`); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"SELECT * FROM ck WHERE a = 3 AND b >= 'x' AND b < 'y'":        "access: key range of ck where a = 3 and b >= 'x' and b < 'y'",
		"SELECT a, b FROM ck ORDER BY a DESC, b DESC LIMIT 3 OFFSET 1": "access: key range of ck, descending, first 4 rows",
		"SELECT v FROM ck WHERE a BETWEEN 1 AND 5":                     "access: key range of ck where a >= 1 and a <= 5",
		"SELECT a, v FROM ck WHERE v = 1 ORDER BY a LIMIT 1":           "",
		"SELECT v FROM ck WHERE b = 'x'":                               "",
	} {
		res, err := e.Exec(ctx, "EXPLAIN "+q)
		if err != nil {
			t.Fatal(err)
		}
		var access string
		for _, r := range res.Rows {
			if strings.HasPrefix(r[0].S, "access: ") {
				access = r[0].S
			}
		}
		if access != want {
			t.Errorf("EXPLAIN %s: access line %q, want %q", q, access, want)
		}
	}
}

// TestViewKeyPrefixEqualsScan runs random key-prefix queries over a view
// keyed (k, name) both ways — by key prefix (exec.Materialize.GetPrefix)
// and through the general plan over the view's snapshot — with every row
// in memory and with a state budget of 10 rows (most rows spilled to
// Badger, some of them checkpointed, some changed since), and fails
// unless the answers are identical and the queries took the key path.
func TestViewKeyPrefixEqualsScan(t *testing.T) {
	for _, budget := range []string{"0", "10"} {
		t.Run("state_cache_size="+budget, func(t *testing.T) {
			settings := map[string]string{"strict": "off", "parallelism": "2"}
			if budget != "0" {
				settings["state_cache_size"] = budget
			}
			e, err := Open(Options{StateDir: t.TempDir(), Settings: settings})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx := context.Background()
			run := func(q string) {
				t.Helper()
				if _, err := e.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			run(`CREATE SOURCE s (k BIGINT, name VARCHAR, v BIGINT)`)
			run(`CREATE MATERIALIZED VIEW g AS SELECT k, name, count(*) AS n, sum(v) AS total FROM s GROUP BY k, name`)
			rng := rand.New(rand.NewSource(7))
			names := []string{"", "a", "b", "bb", "c"}
			for round := range 6 {
				var vals []string
				for range 30 {
					vals = append(vals, fmt.Sprintf("(%d, '%s', %d)", rng.Intn(8)-2, names[rng.Intn(len(names))], rng.Intn(100)))
				}
				run("INSERT INTO s VALUES " + strings.Join(vals, ", "))
				run("FLUSH")
				if round == 2 {
					if err := e.Checkpoint(); err != nil {
						t.Fatal(err)
					}
				}
			}
			ops := []string{"=", "<", "<=", ">", ">="}
			keyed := 0
			for range 150 {
				q := fmt.Sprintf("SELECT * FROM g WHERE k = %d", rng.Intn(10)-3)
				switch rng.Intn(4) {
				case 0:
					q += fmt.Sprintf(" AND name %s '%s'", ops[rng.Intn(len(ops))], names[rng.Intn(len(names))])
				case 1:
					q = fmt.Sprintf("SELECT count(*), sum(total) FROM g WHERE %d = k AND n > 1", rng.Intn(8)-2)
				case 2:
					q += fmt.Sprintf(" AND name = '%s'", names[rng.Intn(len(names))])
				}
				got, want, used := bothWays(t, e, q)
				if used {
					keyed++
				}
				if got != want {
					t.Errorf("%s: key path %s, general path %s", q, got, want)
				}
			}
			if keyed < 100 {
				t.Errorf("only %d of 150 queries read by key", keyed)
			}
		})
	}
}
