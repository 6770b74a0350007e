package pgwire

import (
	"os"
	"strings"
	"testing"
)

// TestPsqlSetReturning runs set-returning functions through psql: a view
// that unnests a source's arrays (LEFT JOIN LATERAL keeps the row whose
// array is empty), ad-hoc series and JSON elements with Postgres's column
// names, \df's SETOF, and Postgres's SQLSTATE for a call in WHERE.
func TestPsqlSetReturning(t *testing.T) {
	if _, err := os.Stat(psqlBin); err != nil {
		t.Fatalf("psql binary: %v", err)
	}
	addr, _ := startServer(t)
	out, stderr, err := wirePsql(t, addr,
		"-c", "CREATE SOURCE s (k BIGINT, arr BIGINT[]) WITH (connector = 'memory')",
		"-c", "CREATE MATERIALIZED VIEW v AS SELECT k, x, n FROM s LEFT JOIN LATERAL unnest(s.arr) WITH ORDINALITY AS u(x, n) ON true",
		"-c", "INSERT INTO s VALUES (1, ARRAY[10, 20]), (2, '{}'); FLUSH",
		"-c", "SELECT * FROM v ORDER BY k, n",
		"-c", "SELECT * FROM generate_series(1, 3) WITH ORDINALITY",
		"-c", `SELECT value FROM jsonb_array_elements('[1, "a", null]')`,
		"-c", `\df unnest`)
	if err != nil {
		t.Fatalf("psql: %v\n%s\n%s", err, out, stderr)
	}
	for _, want := range []string{
		" k | x  | n \n---+----+---\n 1 | 10 | 1\n 1 | 20 | 2\n 2 |    |  \n(3 rows)",
		" generate_series | ordinality \n-----------------+------------\n               1 |          1\n               2 |          2\n               3 |          3\n(3 rows)",
		" value \n-------\n 1\n \"a\"\n null\n(3 rows)",
		"unnest | SETOF anyelement | anyarray",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("psql output lacks %q:\n%s", want, out)
		}
	}
	_, stderr, err = wirePsql(t, addr, "-c", `\set VERBOSITY verbose`, "-c", "SELECT k FROM v WHERE unnest(ARRAY[k]) > 1")
	if err == nil || !strings.Contains(stderr, "ERROR:  0A000: set-returning functions are not allowed in WHERE") {
		t.Fatalf("want Postgres's 0A000, got %v:\n%s", err, stderr)
	}
}
