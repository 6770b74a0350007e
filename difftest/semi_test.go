package difftest

// semiJoin: SELECT items FROM a WHERE [pred AND] test, where test is one
// of a.c IN (SELECT b.c FROM b [WHERE f]), its NOT IN (SQL's NULL rule:
// a NULL in the subquery empties the answer, a NULL a.c survives only an
// empty subquery), and the correlated [NOT] EXISTS (SELECT 1 FROM b
// WHERE b.c = a.c [AND f] [AND residual]). The view is a semi or anti
// join under STATE TTL (no state expires: see ttl); Postgres evaluates
// the subquery directly.
type semiJoin struct {
	form  int // 0 IN, 1 NOT IN, 2 EXISTS, 3 NOT EXISTS
	key   string
	inner expr // on b alone, or nil
	resid expr // correlated, [NOT] EXISTS only, or nil
	outer expr // on a alone, or nil
	items items
}

var semiForms = []string{"semi_in", "anti_not_in", "semi_exists", "anti_not_exists"}

func genSemiJoin(g *gen, _ *dataset) query {
	q := semiJoin{form: g.pick(4), key: g.oneOf("k", "k", "v", "s")}
	if g.pick(2) == 0 {
		g.cols = sourceCols("b")
		q.inner = g.expr(kBool, 1)
	}
	if q.form >= 2 && g.pick(2) == 0 {
		q.resid = g.residual("a", "b")
	}
	if g.pick(3) == 0 {
		g.cols = sourceCols("a")
		q.outer = g.expr(kBool, 1)
	}
	q.items = g.joinItems(sourceCols("a"))
	return q
}

func (q semiJoin) name() string { return semiForms[q.form] }

func (q semiJoin) render(d dialect) string {
	var test string
	switch q.form {
	case 0, 1:
		not := ""
		if q.form == 1 {
			not = "NOT "
		}
		test = "a." + q.key + " " + not + "IN (SELECT b." + q.key + " FROM b" + optWhere(q.inner, d) + ")"
	default:
		conds := "b." + q.key + " = a." + q.key
		for _, e := range []expr{q.inner, q.resid} {
			if e != nil {
				conds += " AND " + e.sql(d)
			}
		}
		test = "EXISTS (SELECT 1 FROM b WHERE " + conds + ")"
		if q.form == 3 {
			test = "NOT " + test
		}
	}
	where := test
	if q.outer != nil {
		where = q.outer.sql(d) + " AND " + test
	}
	s := "SELECT " + q.items.render(d) + " FROM a WHERE " + where
	if d == streaming {
		s += " " + ttl
	}
	return s
}

func (q semiJoin) stream() string { return q.render(streaming) }
func (q semiJoin) batch() string  { return q.render(postgres) }
func (q semiJoin) kinds() []kind  { return q.items.kinds() }
