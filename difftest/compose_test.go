package difftest

import (
	"fmt"
	"strings"
)

// Composition productions (and views over views, below): the interval and regular joins of
// join_test.go and the window aggregates of query_test.go written in the
// composed forms (a comma join with the conditions in WHERE, derived
// tables, a CTE, JOIN … USING, a window over a subquery or a CTE), whose
// answers must not differ from the plain forms'. Postgres runs the same
// text, except a window over a subquery, which it has no TVF for: there
// the batch side is the plain window aggregate's.

// Forms of composedJoin.
const (
	formComma   = iota // FROM a, b WHERE conds
	formDerived        // FROM (SELECT * FROM a [WHERE p]) AS a JOIN (SELECT * FROM b) AS b ON conds
	formCTE            // WITH x AS (SELECT * FROM a [WHERE p]) … FROM x AS a JOIN b ON conds
	formUsing          // FROM a JOIN b USING (k) WHERE conds, the merged k listed first
	joinForms
)

// composedJoin is an interval or regular join in one of the forms.
type composedJoin struct {
	form  int
	conds []expr
	pred  expr // a filter on a inside its subquery or CTE (nil: none)
	items items
	ttl   bool
}

func genComposedJoin(g *gen, _ *dataset) query {
	q := composedJoin{form: g.pick(joinForms)}
	q.conds = g.keysAndResiduals("a", "b")
	if g.pick(3) > 0 {
		tc, bounded := timeConds[g.pick(len(timeConds))](g)
		q.conds, q.ttl = append(q.conds, tc...), !bounded
	} else {
		q.ttl = true
	}
	g.r.Shuffle(len(q.conds), func(i, j int) { q.conds[i], q.conds[j] = q.conds[j], q.conds[i] })
	if (q.form == formDerived || q.form == formCTE) && g.pick(2) == 0 {
		g.cols = sourceCols("a")
		q.pred = g.expr(kBool, 1)
	}
	q.items = g.joinItems(append(sourceCols("a"), sourceCols("b")...))
	if q.form == formUsing {
		q.items = append(items{col{name: "k", k: kInt}}, q.items...)
	}
	return q
}

func (q composedJoin) name() string {
	return "composed_join_" + []string{"comma", "derived", "cte", "using"}[q.form]
}

func (q composedJoin) render(d dialect) string {
	sel := "SELECT " + q.items.render(d)
	var s string
	switch q.form {
	case formComma:
		s = sel + " FROM a, b WHERE " + andAll(q.conds, d)
	case formDerived:
		s = sel + " FROM (SELECT * FROM a" + optWhere(q.pred, d) + ") AS a JOIN (SELECT * FROM b) AS b ON " + andAll(q.conds, d)
	case formCTE:
		s = "WITH x AS (SELECT * FROM a" + optWhere(q.pred, d) + ") " + sel + " FROM x AS a JOIN b ON " + andAll(q.conds, d)
	case formUsing:
		s = sel + " FROM a JOIN b USING (k) WHERE " + andAll(q.conds, d)
	}
	if q.ttl && d == streaming {
		s += " " + ttl
	}
	return s
}

func (q composedJoin) stream() string { return q.render(streaming) }
func (q composedJoin) batch() string  { return q.render(postgres) }
func (q composedJoin) kinds() []kind  { return q.items.kinds() }

// windowOverSubquery is a window aggregate whose WHERE moved into the
// windowed relation: TUMBLE((SELECT * FROM src WHERE p), ts, …), or the
// same subquery as a CTE. The source's watermark reaches the window
// through it, so the rows are the plain window aggregate's.
type windowOverSubquery struct {
	windowAgg
	cte bool
}

func genWindowOverSubquery(g *gen, ds *dataset) query {
	return windowOverSubquery{windowAgg: genWindowAgg(g, ds).(windowAgg), cte: g.pick(2) == 0}
}

func (q windowOverSubquery) name() string {
	return strings.Replace(q.windowAgg.name(), "window_agg_", "window_over_subquery_", 1)
}

func (q windowOverSubquery) stream() string {
	sub := "SELECT * FROM " + q.src + optWhere(q.where, streaming)
	plain := q.windowAgg
	plain.where = nil
	if q.cte {
		plain.src = "sq"
		return "WITH sq AS (" + sub + ") " + plain.stream()
	}
	plain.src = "(" + sub + ")"
	return plain.stream()
}

// viewOverView is a materialized view over a materialized view: the
// inner view is an unwindowed GROUP BY (its changelog retracts) or a
// window aggregate (EMIT ON WINDOW CLOSE, append-only, or ON UPDATE),
// created first; the outer query groups the inner view's rows again or
// passes them through. Postgres answers the same outer text over a plain
// view of the inner batch query, so the streamed contents must equal the
// composed query's.
type viewOverView struct {
	inner   query
	view    string
	regroup bool // SELECT c0, count(*) … GROUP BY c0, else SELECT *
}

func genViewOverView(g *gen, ds *dataset) query {
	q := viewOverView{view: fmt.Sprintf("inner_%d", g.r.Uint32())}
	keyed := false
	if g.pick(2) == 0 {
		ga := genGroupAgg(g, ds).(groupAgg)
		q.inner, keyed = ga, len(ga.keys) > 0
	} else {
		q.inner, keyed = genWindowAgg(g, ds), true // c0: a key or window_start
	}
	q.regroup = keyed && g.pick(3) > 0
	return q
}

func (q viewOverView) name() string {
	outer := "project"
	if q.regroup {
		outer = "regroup"
	}
	return "view_over_view_" + outer
}

func (q viewOverView) render(d dialect) string {
	if !q.regroup {
		return "SELECT * FROM " + q.view
	}
	s := "SELECT c0 AS c0, count(*) AS c1 FROM " + q.view + " GROUP BY c0"
	if d == streaming {
		s += " " + ttl
	}
	return s
}

func (q viewOverView) stream() string { return q.render(streaming) }
func (q viewOverView) batch() string  { return q.render(postgres) }

func (q viewOverView) kinds() []kind {
	if !q.regroup {
		return q.inner.kinds()
	}
	return []kind{q.inner.kinds()[0], kInt}
}

func (q viewOverView) setup(d dialect) []string {
	if d == streaming {
		return []string{"CREATE MATERIALIZED VIEW " + q.view + " AS " + q.inner.stream()}
	}
	return []string{"CREATE VIEW " + q.view + " AS " + q.inner.batch()}
}
