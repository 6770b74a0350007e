package difftest

// agg is an aggregate call: count(*), count/sum/min/max/avg of an
// expression, count and sum also DISTINCT. avg is a double in streamsql
// (dialect.md) and numeric in Postgres, so Postgres' side casts it.
type agg struct {
	fn       string
	arg      expr // nil for count(*)
	distinct bool
	k        kind
}

func (a agg) kind() kind { return a.k }
func (a agg) sql(d dialect) string {
	s := a.fn + "(*)"
	if a.arg != nil {
		dist := ""
		if a.distinct {
			dist = "DISTINCT "
		}
		s = a.fn + "(" + dist + a.arg.sql(d) + ")"
	}
	if d == postgres && a.fn == "avg" {
		return "CAST(" + s + " AS float8)"
	}
	return s
}

// aggProductions are the aggregate calls the corpus draws; every
// aggregate build_agg.go accepts is here, over every kind it takes.
var aggProductions = []func(g *gen) agg{
	func(*gen) agg { return agg{fn: "count", k: kInt} },
	func(g *gen) agg {
		k := []kind{kInt, kStr, kDec, kTs, kFloat}[g.pick(5)]
		return agg{fn: "count", arg: g.expr(k, 1), k: kInt}
	},
	func(g *gen) agg { return agg{fn: "count", arg: g.expr(kInt, 1), distinct: true, k: kInt} },
	func(g *gen) agg {
		k := []kind{kInt, kFloat, kDec, kDec}[g.pick(4)]
		return agg{fn: "sum", arg: g.expr(k, 1), k: k}
	},
	func(g *gen) agg { return agg{fn: "sum", arg: g.expr(kInt, 0), distinct: true, k: kInt} },
	func(g *gen) agg {
		k := []kind{kInt, kFloat, kDec, kStr, kTs, kDec}[g.pick(6)]
		return agg{fn: g.oneOf("min", "max"), arg: g.expr(k, 1), k: k}
	},
	func(g *gen) agg {
		k := []kind{kInt, kFloat, kDec}[g.pick(3)]
		return agg{fn: "avg", arg: g.expr(k, 1), k: kFloat}
	},
}

// aggs draws n aggregate calls.
func (g *gen) aggs(n int) []agg {
	out := make([]agg, n)
	for i := range out {
		out[i] = aggProductions[g.pick(len(aggProductions))](g)
	}
	return out
}

// having draws a HAVING condition over aggregate calls.
func (g *gen) having() expr {
	a := g.aggs(1)[0]
	var c expr
	switch a.k {
	case kInt, kFloat:
		c = cmp{op: g.oneOf(">", "<=", "<>"), l: a, r: lit{k: kInt, st: g.oneOf("0", "1", "2", "5")}}
	default:
		c = isTest{x: a, test: g.oneOf("NULL", "NOT NULL")}
	}
	return c
}
