package difftest

import (
	"fmt"
	"strings"
)

// Materialized views over a TABLE against Postgres over the same final
// table. The streaming side creates the TABLE, the view over it, and
// only then writes the table: source a's rows keyed by their position
// modulo a few keys (so most INSERTs upsert an existing key and retract
// its old row), then a DELETE and an UPDATE. Postgres loads each key's
// last row and runs the same DELETE and UPDATE; the view must equal its
// batch answer.

// tableView is one such case; n names its table.
type tableView struct {
	n     int
	keys  int
	rows  []row
	query int // which view shape
}

func genTableView(g *gen, ds *dataset) query {
	// The seed's cases share one engine and one schema: each table has
	// its own number. The modulus and the shape come from the seed and
	// that number, not from g, so adding this production leaves the
	// other productions' draws as they were.
	ds.tables++
	n := ds.tables
	return tableView{n: n, keys: 7 + (int(ds.seed)+n)%23, rows: ds.rows["a"], query: (int(ds.seed) + n) % 2}
}

func (q tableView) table() string { return fmt.Sprintf("tv%d", q.n) }

func (q tableView) name() string { return []string{"table_view_group", "table_view_filter"}[q.query] }

func (q tableView) render(dialect) string {
	if q.query == 0 {
		return "SELECT k, count(*) AS n, sum(v) AS sv, min(v) AS lo, max(v) AS hi, sum(d) AS sd FROM " + q.table() + " GROUP BY k"
	}
	return "SELECT id, k, v * 2 AS v2, d FROM " + q.table() + " WHERE v IS NULL OR v > 3"
}

func (q tableView) stream() string { return q.render(streaming) }
func (q tableView) batch() string  { return q.render(postgres) }
func (q tableView) kinds() []kind {
	if q.query == 0 {
		return []kind{kInt, kInt, kInt, kInt, kInt, kDec}
	}
	return []kind{kInt, kInt, kInt, kDec}
}

// keyed is row i of a as a table row: (id, k, v, d).
func (q tableView) keyed(i int) string {
	rw := q.rows[i]
	return fmt.Sprintf("(%d, %s, %s, %s)", i%q.keys, rw.lits[0], rw.lits[1], rw.lits[2])
}

// setup creates the table; Postgres also loads its final rows.
func (q tableView) setup(d dialect) []string {
	ddl := "CREATE TABLE " + q.table() + " (id BIGINT PRIMARY KEY, k BIGINT, v BIGINT, d DECIMAL(10,2))"
	if d == streaming {
		return []string{ddl}
	}
	last := map[int]int{}
	for i := range q.rows {
		last[i%q.keys] = i
	}
	var vals []string
	for i := range q.rows {
		if last[i%q.keys] == i {
			vals = append(vals, q.keyed(i))
		}
	}
	out := []string{strings.Replace(ddl, "DECIMAL", "numeric", 1)}
	if len(vals) > 0 {
		out = append(out, "INSERT INTO "+q.table()+" VALUES "+strings.Join(vals, ", "))
	}
	return append(out, q.dml()...)
}

// after writes the streaming table once its view exists: every row in
// order, a few per INSERT, then the DML.
func (q tableView) after() []string {
	var out []string
	for i := 0; i < len(q.rows); i += 5 {
		var vals []string
		for j := i; j < min(i+5, len(q.rows)); j++ {
			vals = append(vals, q.keyed(j))
		}
		out = append(out, "INSERT INTO "+q.table()+" VALUES "+strings.Join(vals, ", "))
	}
	return append(out, q.dml()...)
}

func (q tableView) dml() []string {
	return []string{
		"DELETE FROM " + q.table() + " WHERE v % 4 = 0",
		"UPDATE " + q.table() + " SET v = v + 1, d = d * 2 WHERE k = 1 OR v IS NULL",
	}
}
