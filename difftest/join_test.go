package difftest

import "fmt"

// join: a JOIN b ON conds [STATE TTL]. An interval join has time
// conditions between a.ts and b.ts; when they bound b.ts - a.ts on both
// sides by constants the planner bounds the state with them, otherwise
// (one-sided, or bounded by another column) the view carries STATE TTL.
// A regular join has no time condition and always carries STATE TTL.
type join struct {
	prod  string
	conds []expr
	items items
	ttl   bool
}

func (q join) name() string { return q.prod }

func (q join) render(d dialect) string {
	s := "SELECT " + q.items.render(d) + " FROM a JOIN b ON " + andAll(q.conds, d)
	if q.ttl && d == streaming {
		s += " " + ttl
	}
	return s
}

func (q join) stream() string { return q.render(streaming) }
func (q join) batch() string  { return q.render(postgres) }
func (q join) kinds() []kind  { return q.items.kinds() }

func ts(rel string) expr { return col{rel: rel, name: "ts", k: kTs} }

// shifted is rel.ts, rel.ts + n s or rel.ts - n s.
func shifted(rel string, n int) expr {
	switch {
	case n > 0:
		return binary{op: "+", l: ts(rel), r: lit{k: kInterval, st: fmt.Sprintf("INTERVAL '%d' SECOND", n)}, k: kTs}
	case n < 0:
		return binary{op: "-", l: ts(rel), r: lit{k: kInterval, st: fmt.Sprintf("INTERVAL '%d' SECOND", -n)}, k: kTs}
	}
	return ts(rel)
}

// bound is one time condition b.ts OP a.ts + off, written with b.ts on
// the left or the right (where OP turns around).
func (g *gen) bound(lower bool, off int) expr {
	op := "<"
	if lower {
		op = ">"
	}
	if g.pick(2) == 0 {
		op += "="
	}
	if g.pick(2) == 0 {
		return cmp{op: op, l: ts("b"), r: shifted("a", off)}
	}
	flip := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}
	return cmp{op: flip[op], l: shifted("a", off), r: ts("b")}
}

func (g *gen) offsets() (lo, hi int) {
	offs := []int{-10, -5, -2, -1, 0, 1, 2, 5, 10}
	lo, hi = offs[g.pick(len(offs))], offs[g.pick(len(offs))]
	if lo > hi && g.pick(4) > 0 {
		lo, hi = hi, lo
	}
	return lo, hi
}

// timeConds are the time-condition productions of an interval join; each
// returns the conditions and whether constants bound both sides.
var timeConds = []func(g *gen) ([]expr, bool){
	func(g *gen) ([]expr, bool) { // BETWEEN with constant offsets
		lo, hi := g.offsets()
		return []expr{between{x: ts("b"), lo: shifted("a", lo), hi: shifted("a", hi)}}, true
	},
	func(g *gen) ([]expr, bool) { // two one-sided bounds, strict or inclusive
		lo, hi := g.offsets()
		return []expr{g.bound(true, lo), g.bound(false, hi)}, true
	},
	func(g *gen) ([]expr, bool) { // one bound only
		lo, hi := g.offsets()
		if g.pick(2) == 0 {
			return []expr{g.bound(true, lo)}, false
		}
		return []expr{g.bound(false, hi)}, false
	},
	func(g *gen) ([]expr, bool) { // BETWEEN a.ts AND a.te (Nexmark q4/q9)
		c := between{x: ts("b"), lo: ts("a"), hi: col{rel: "a", name: "te", k: kTs}}
		if g.pick(2) == 0 {
			return []expr{c, g.bound(false, 10)}, true
		}
		return []expr{c}, false
	},
}

// joinKey is an equality between the sides on nullable columns, or the
// NULL-safe <=>.
func (g *gen) joinKey(lrel, rrel string) expr {
	c := []string{"k", "k", "k", "s", "v"}[g.pick(5)]
	k := map[string]kind{"k": kInt, "s": kStr, "v": kInt}[c]
	l, r := col{rel: lrel, name: c, k: k}, col{rel: rrel, name: c, k: k}
	if g.pick(5) == 0 {
		return nullSafeEq{l: l, r: r}
	}
	return cmp{op: "=", l: l, r: r}
}

// residual is a non-key condition: across the sides, or on one side.
func (g *gen) residual(lrel, rrel string) expr {
	switch g.pick(3) {
	case 0:
		g.cols = sourceCols([]string{lrel, rrel}[g.pick(2)])
		return g.expr(kBool, 1)
	case 1:
		k := []kind{kInt, kStr, kDec, kFloat}[g.pick(4)]
		g.cols = sourceCols(lrel)
		l := g.expr(k, 1)
		g.cols = sourceCols(rrel)
		return cmp{op: g.oneOf("<", "<=", "<>", ">"), l: l, r: g.expr(k, 1)}
	}
	g.cols = append(sourceCols(lrel), sourceCols(rrel)...)
	return g.expr(kBool, 1)
}

func (g *gen) joinItems(cols []col) items {
	g.cols = cols
	var it items
	for range 2 + g.pick(3) {
		if g.pick(3) == 0 {
			it = append(it, g.expr(g.anyKind(), 1))
		} else {
			it = append(it, cols[g.pick(len(cols))])
		}
	}
	return it
}

func (g *gen) keysAndResiduals(lrel, rrel string) []expr {
	var conds []expr
	for range 1 + g.pick(2) {
		conds = append(conds, g.joinKey(lrel, rrel))
	}
	for range g.pick(3) {
		conds = append(conds, g.residual(lrel, rrel))
	}
	return conds
}

func genIntervalJoin(g *gen, _ *dataset) query {
	tc, bounded := timeConds[g.pick(len(timeConds))](g)
	conds := append(g.keysAndResiduals("a", "b"), tc...)
	g.r.Shuffle(len(conds), func(i, j int) { conds[i], conds[j] = conds[j], conds[i] })
	return join{prod: "interval_join", conds: conds, ttl: !bounded,
		items: g.joinItems(append(sourceCols("a"), sourceCols("b")...))}
}

func genRegularJoin(g *gen, _ *dataset) query {
	return join{prod: "ttl_join", conds: g.keysAndResiduals("a", "b"), ttl: true,
		items: g.joinItems(append(sourceCols("a"), sourceCols("b")...))}
}

// windowJoin: TUMBLE|HOP(a) x JOIN TUMBLE|HOP(b) y ON equal windows, a
// key and residuals (Flink's window join). It emits a window's pairs
// once both watermarks pass its end, so Postgres keeps the windows that
// end by both final watermarks.
type windowJoin struct {
	win   window
	conds []expr
	items items
	wm    [2]string
}

func genWindowJoin(g *gen, ds *dataset) query {
	q := windowJoin{win: windowProductions[g.pick(2)](g), wm: [2]string{ds.watermarkSQL("a"), ds.watermarkSQL("b")}}
	ws := func(rel string) expr { return col{rel: rel, name: "window_start", k: kTs} }
	we := func(rel string) expr { return col{rel: rel, name: "window_end", k: kTs} }
	q.conds = []expr{cmp{op: "=", l: ws("x"), r: ws("y")}}
	if g.pick(3) > 0 {
		q.conds = append(q.conds, cmp{op: "=", l: we("x"), r: we("y")})
	}
	q.conds = append(q.conds, g.keysAndResiduals("x", "y")...)
	q.items = g.joinItems(append(windowCols("x"), windowCols("y")...))
	return q
}

func (windowJoin) name() string { return "window_join" }
func (q windowJoin) stream() string {
	return "SELECT " + q.items.render(streaming) + " FROM " + q.win.tvf("a") + " x JOIN " + q.win.tvf("b") +
		" y ON " + andAll(q.conds, streaming) + " LATE DATA DROP"
}

func (q windowJoin) batch() string {
	return "SELECT " + q.items.render(postgres) + " FROM (" + q.win.rows("a", "", nil) + ") x JOIN (" +
		q.win.rows("b", "", nil) + ") y ON " + andAll(q.conds, postgres) +
		" WHERE x.window_end <= " + q.wm[0] + " AND x.window_end <= " + q.wm[1]
}
func (q windowJoin) kinds() []kind { return q.items.kinds() }

// groupedWindowJoin is Nexmark q8's shape: two grouped TUMBLE subqueries
// joined on a key and window_start. A third of them join source a with
// itself: the two subqueries are then the same text, the planner shares
// them (ShareIdenticalSubplans) and one window aggregate feeds both sides.
type groupedWindowJoin struct {
	size  int
	right string // the right subquery's source: b, or a for a self-join
	conds []expr
	items items
	wm    [2]string
}

// The grouped subqueries' columns.
var groupedCols = []col{{name: "k", k: kInt}, {name: "window_start", k: kTs}, {name: "window_end", k: kTs},
	{name: "n", k: kInt}, {name: "mv", k: kInt}, {name: "sd", k: kDec}, {name: "ms", k: kStr}}

func genGroupedWindowJoin(g *gen, ds *dataset) query {
	q := groupedWindowJoin{size: []int{2, 5, 10}[g.pick(3)], right: "b", wm: [2]string{ds.watermarkSQL("a"), ds.watermarkSQL("b")}}
	if g.pick(3) == 0 {
		q.right, q.wm[1] = "a", q.wm[0]
	}
	qual := func(rel string) []col {
		out := make([]col, len(groupedCols))
		for i, c := range groupedCols {
			out[i] = col{rel: rel, name: c.name, k: c.k}
		}
		return out
	}
	x, y := qual("x"), qual("y")
	q.conds = []expr{cmp{op: "=", l: x[0], r: y[0]}, cmp{op: "=", l: x[1], r: y[1]}}
	if g.pick(2) == 0 {
		q.conds = append(q.conds, cmp{op: "=", l: x[2], r: y[2]})
	}
	if g.pick(2) == 0 {
		i := 3 + g.pick(4)
		q.conds = append(q.conds, cmp{op: g.oneOf("<", ">=", "<>"), l: x[i], r: y[i]})
	}
	q.items = g.joinItems(append(x, y...))
	return q
}

func (groupedWindowJoin) name() string { return "window_join_grouped" }

func (q groupedWindowJoin) sub(src string, d dialect) string {
	aggs := "count(*) AS n, max(v) AS mv, sum(d) AS sd, min(s) AS ms"
	if d == streaming {
		return fmt.Sprintf("SELECT k, window_start, window_end, %s FROM %s GROUP BY k, window_start, window_end",
			aggs, tumble{size: q.size}.tvf(src))
	}
	return fmt.Sprintf("SELECT g0 AS k, window_start, window_end, %s FROM (%s) w GROUP BY g0, window_start, window_end",
		aggs, tumble{size: q.size}.rows(src, "", []string{"k"}))
}

func (q groupedWindowJoin) stream() string {
	return "SELECT " + q.items.render(streaming) + " FROM (" + q.sub("a", streaming) + ") x JOIN (" +
		q.sub(q.right, streaming) + ") y ON " + andAll(q.conds, streaming) + " LATE DATA DROP"
}

func (q groupedWindowJoin) batch() string {
	return "SELECT " + q.items.render(postgres) + " FROM (" + q.sub("a", postgres) + ") x JOIN (" +
		q.sub(q.right, postgres) + ") y ON " + andAll(q.conds, postgres) +
		" WHERE x.window_end <= " + q.wm[0] + " AND x.window_end <= " + q.wm[1]
}
func (q groupedWindowJoin) kinds() []kind { return q.items.kinds() }
