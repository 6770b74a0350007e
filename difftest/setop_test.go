package difftest

// setopKind draws the kind of a DISTINCT or UNION column. DOUBLE is left
// out: a distinct group of 0 and -0 shows whichever value came first,
// which need not be the one Postgres shows (docs/sql.md, Joins).
func (g *gen) setopKind() kind {
	return []kind{kInt, kInt, kDec, kStr, kStr, kTs, kBool, kInterval, kDate}[g.pick(9)]
}

// setop: SELECT [DISTINCT] exprs FROM a [WHERE] { UNION ALL | UNION }
// SELECT exprs FROM b [WHERE], or one SELECT DISTINCT alone; the
// distinct forms keep their state under STATE TTL.
type setop struct {
	op          string // "UNION ALL", "UNION" or "" (SELECT DISTINCT alone)
	left, right filterProject
}

func genSetop(g *gen, _ *dataset) query {
	g.cols = sourceCols("")
	kinds := make([]kind, 1+g.pick(3))
	for i := range kinds {
		kinds[i] = g.setopKind()
	}
	side := func(src string) filterProject {
		q := filterProject{src: src}
		for _, k := range kinds {
			q.items = append(q.items, g.expr(k, 1))
		}
		if g.pick(2) == 0 {
			q.where = g.expr(kBool, 1)
		}
		return q
	}
	q := setop{op: []string{"UNION ALL", "UNION", ""}[g.pick(3)], left: side(sourceNames[g.pick(2)])}
	if q.op != "" {
		q.right = side(sourceNames[g.pick(2)])
	}
	return q
}

func (q setop) name() string {
	switch q.op {
	case "UNION ALL":
		return "union_all"
	case "UNION":
		return "union"
	}
	return "select_distinct"
}

func (q setop) render(d dialect) string {
	if q.op == "" {
		return "SELECT DISTINCT " + q.left.items.render(d) + " FROM " + q.left.src + optWhere(q.left.where, d)
	}
	return "SELECT " + q.left.items.render(d) + " FROM " + q.left.src + optWhere(q.left.where, d) +
		" " + q.op + " SELECT " + q.right.items.render(d) + " FROM " + q.right.src + optWhere(q.right.where, d)
}

func (q setop) stream() string {
	if q.op == "UNION ALL" {
		return q.render(streaming)
	}
	return q.render(streaming) + " " + ttl
}

func (q setop) batch() string { return q.render(postgres) }
func (q setop) kinds() []kind { return q.left.items.kinds() }
