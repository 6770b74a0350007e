package difftest

import "fmt"

// outerJoin: a LEFT|RIGHT|FULL JOIN b ON keys and residuals. A regular
// one carries STATE TTL (never reached by the data) and is an updating
// view: its final contents are Postgres' outer join. An interval one
// (b.ts BETWEEN a.ts + lo s AND a.ts + hi s) is append-only and pads a
// row that matched nothing once the other input's final watermark
// passed its bound, or at once when a key or its time is NULL (it can
// never match): Postgres keeps its pairs and those padded rows. The
// batch query tells pairs from padded rows by a marker column per side.
type outerJoin struct {
	typ      string // LEFT, RIGHT or FULL
	conds    []expr
	items    items
	interval bool
	lo, hi   int
	key      string    // the interval join's key column (plain =)
	wm       [2]string // final watermarks of a and b (interval joins)
}

func (q outerJoin) name() string {
	if q.interval {
		return "interval_outer_join"
	}
	return "outer_join"
}

func (q outerJoin) on(d dialect) string {
	conds := q.conds
	if q.interval {
		conds = append(append([]expr{}, conds...), between{x: ts("b"), lo: shifted("a", q.lo), hi: shifted("a", q.hi)})
	}
	return andAll(conds, d)
}

func (q outerJoin) stream() string {
	s := "SELECT " + q.items.render(streaming) + " FROM a " + q.typ + " JOIN b ON " + q.on(streaming)
	if !q.interval {
		s += " " + ttl
	}
	return s
}

func (q outerJoin) batch() string {
	s := "SELECT " + q.items.render(postgres) + " FROM (SELECT *, 1 AS l__ FROM a) a " + q.typ +
		" JOIN (SELECT *, 1 AS r__ FROM b) b ON " + q.on(postgres)
	if !q.interval {
		return s
	}
	// A left row is padded once b's watermark passes a.ts + hi (its last
	// match), a right row once a's passes b.ts - lo.
	left := fmt.Sprintf("(b.r__ IS NULL AND (a.ts IS NULL OR a.%s IS NULL OR a.ts + INTERVAL '%d seconds' < %s))",
		q.key, q.hi, q.wm[1])
	right := fmt.Sprintf("(a.l__ IS NULL AND (b.ts IS NULL OR b.%s IS NULL OR b.ts - INTERVAL '%d seconds' < %s))",
		q.key, q.lo, q.wm[0])
	return s + " WHERE (a.l__ = 1 AND b.r__ = 1) OR " + left + " OR " + right
}

func (q outerJoin) kinds() []kind { return q.items.kinds() }

var outerTypes = []string{"LEFT", "RIGHT", "FULL"}

func genOuterJoin(g *gen, _ *dataset) query {
	q := outerJoin{typ: outerTypes[g.pick(len(outerTypes))], conds: g.keysAndResiduals("a", "b"),
		items: g.joinItems(append(sourceCols("a"), sourceCols("b")...))}
	if q.typ == "FULL" {
		// Postgres runs a FULL JOIN on hashable or mergeable keys only,
		// which IS NOT DISTINCT FROM is not.
		for i, c := range q.conds {
			if ns, ok := c.(nullSafeEq); ok {
				q.conds[i] = cmp{op: "=", l: ns.l, r: ns.r}
			}
		}
	}
	return q
}

func genIntervalOuterJoin(g *gen, ds *dataset) query {
	q := outerJoin{typ: outerTypes[g.pick(len(outerTypes))], interval: true,
		key: []string{"k", "s"}[g.pick(2)], wm: [2]string{ds.watermarkSQL("a"), ds.watermarkSQL("b")}}
	q.lo, q.hi = g.offsets()
	if q.lo > q.hi {
		q.lo, q.hi = q.hi, q.lo
	}
	k := map[string]kind{"k": kInt, "s": kStr}[q.key]
	q.conds = []expr{cmp{op: "=", l: col{rel: "a", name: q.key, k: k}, r: col{rel: "b", name: q.key, k: k}}}
	for range g.pick(3) {
		q.conds = append(q.conds, g.residual("a", "b"))
	}
	q.items = g.joinItems(append(sourceCols("a"), sourceCols("b")...))
	return q
}
