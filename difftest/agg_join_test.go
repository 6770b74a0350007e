package difftest

import "fmt"

// aggJoin: a regular [LEFT|RIGHT|FULL] JOIN of two GROUP BY aggregates,
// x over a and y over b, on their key, y optionally with a HAVING that
// makes its rows come and go. Both inputs retract (a group's row is
// replaced at each change), so the join retracts the pairs an old row
// formed and, when outer, pads a row again when its last match leaves:
// its final contents are Postgres' join of the final aggregates.
type aggJoin struct {
	typ    string // "", LEFT, RIGHT or FULL
	key    col    // the group key of both aggregates (k or s)
	having int    // y keeps groups with count(*) > having (-1: no HAVING)
	cmp    bool   // also x.n <= y.n in ON (never with FULL)
}

func genAggJoin(g *gen, _ *dataset) query {
	q := aggJoin{typ: []string{"", "LEFT", "RIGHT", "FULL"}[g.pick(4)], key: col{name: "k", k: kInt}, having: -1}
	if g.pick(2) == 0 {
		q.key = col{name: "s", k: kStr}
	}
	if g.pick(2) == 0 {
		q.having = 1 + g.pick(3)
	}
	// Postgres runs a FULL JOIN on hashable or mergeable conditions only
	q.cmp = q.typ != "FULL" && g.pick(3) == 0
	return q
}

func (aggJoin) name() string { return "agg_join" }

func (q aggJoin) render(d dialect) string {
	k := q.key.sql(d)
	x := fmt.Sprintf("SELECT %s AS c0, count(*) AS n, sum(v) AS t FROM a GROUP BY %s", k, k)
	y := fmt.Sprintf("SELECT %s AS c0, count(*) AS n, max(v) AS m FROM b GROUP BY %s", k, k)
	if q.having >= 0 {
		y += fmt.Sprintf(" HAVING count(*) > %d", q.having)
	}
	on := "x.c0 = y.c0"
	if q.cmp {
		on += " AND x.n <= y.n"
	}
	return "SELECT x.c0 AS c0, x.n AS c1, x.t AS c2, y.c0 AS c3, y.n AS c4, y.m AS c5 FROM (" + x + ") x " +
		q.typ + " JOIN (" + y + ") y ON " + on
}

func (q aggJoin) stream() string { return q.render(streaming) + " " + ttl }
func (q aggJoin) batch() string  { return q.render(postgres) }
func (q aggJoin) kinds() []kind {
	return []kind{q.key.k, kInt, kInt, q.key.k, kInt, kInt}
}
