package difftest

import "strings"

// agg is an aggregate call: count(*), count/sum/min/max/avg of an
// expression, count and sum also DISTINCT. avg is a double in streamsql
// (dialect.md) and numeric in Postgres, so Postgres' side casts it.
type agg struct {
	fn       string
	arg      expr // nil for count(*)
	distinct bool
	k        kind
	// filter, when set, is the call's FILTER (WHERE filter) clause.
	filter expr
	// render, when set, renders the call from its argument's SQL.
	render func(d dialect, arg string) string
}

func (a agg) kind() kind { return a.k }
func (a agg) sql(d dialect) string {
	if a.render != nil {
		return a.render(d, a.arg.sql(d))
	}
	s := a.fn + "(*)"
	if a.arg != nil {
		dist := ""
		if a.distinct {
			dist = "DISTINCT "
		}
		s = a.fn + "(" + dist + a.arg.sql(d) + ")"
	}
	if a.filter != nil {
		s += " FILTER (WHERE " + a.filter.sql(d) + ")"
	}
	if d == postgres && a.fn == "avg" {
		return "CAST(" + s + " AS float8)"
	}
	return s
}

// aggProductions are the aggregate calls the corpus draws; every
// aggregate build_agg.go accepts is here, over every kind it takes.
var aggProductions = append(plainAggs[:len(plainAggs):len(plainAggs)],
	jsonbAgg, jsonbObjectAgg, arrayAgg, filteredAgg)

// plainAggs are the productions of aggregates that ignore NULL arguments
// (count, sum, min, max, avg, also DISTINCT): the ones FILTER may follow.
var plainAggs = []func(g *gen) agg{
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

// filteredAgg is one of the plain aggregates with a FILTER (WHERE c)
// clause whose condition may be NULL as well as true or false.
func filteredAgg(g *gen) agg {
	a := plainAggs[g.pick(len(plainAggs))](g)
	a.filter = g.expr(kBool, 1)
	return a
}

// arrayAgg is array_agg, read as text. streamsql orders the elements (a
// stream has no read order): NULLs first, ascending, equal values by
// their text; Postgres is asked for the same order.
func arrayAgg(g *gen) agg {
	k := []kind{kInt, kDec, kStr}[g.pick(3)]
	order := ` ORDER BY $ NULLS FIRST, CAST($ AS text) COLLATE "C"`
	if k == kStr {
		order = ` ORDER BY $ COLLATE "C" NULLS FIRST`
	}
	return agg{fn: "array_agg", arg: g.expr(k, 1), k: kStr, render: func(d dialect, arg string) string {
		if d == postgres {
			if k == kStr {
				arg = "CAST(" + arg + " AS text)" // a literal is of unknown type
			}
			return "CAST(array_agg(" + arg + strings.ReplaceAll(order, "$", arg) + ") AS text)"
		}
		return "CAST(array_agg(" + arg + ") AS VARCHAR)"
	}}
}

// jsonbAgg is jsonb_agg, read as text. streamsql orders the elements
// (a stream has no read order); Postgres is asked for the same order:
// jsonb's, where NULL (JSON null) comes first and strings compare
// bytewise.
func jsonbAgg(g *gen) agg {
	k := []kind{kInt, kDec, kStr}[g.pick(3)]
	order := " ORDER BY $ NULLS FIRST"
	if k == kStr {
		order = ` ORDER BY $ COLLATE "C" NULLS FIRST`
	}
	return agg{fn: "jsonb_agg", arg: g.expr(k, 1), k: kStr, render: func(d dialect, arg string) string {
		if d == postgres {
			if k == kStr {
				arg = "CAST(" + arg + " AS text)" // a literal is of unknown type
			}
			return "CAST(jsonb_agg(" + arg + strings.ReplaceAll(order, "$", arg) + ") AS text)"
		}
		return "CAST(jsonb_agg(" + arg + ") AS VARCHAR)"
	}}
}

// jsonbObjectAgg is jsonb_object_agg over a key that is never NULL (where
// Postgres fails the query, streamsql skips the row), read as text. A
// key given twice keeps its greatest value in streamsql, the last one in
// Postgres, ordered to be the greatest.
func jsonbObjectAgg(g *gen) agg {
	k := g.leaf(kInt)
	return agg{fn: "jsonb_object_agg", arg: g.expr(kInt, 1), k: kStr, render: func(d dialect, arg string) string {
		if d == postgres {
			key := "coalesce(CAST(" + k.sql(d) + " AS text), 'none')"
			return "CAST(jsonb_object_agg(" + key + ", " + arg + " ORDER BY " + arg + " NULLS FIRST) AS text)"
		}
		key := "coalesce(CAST(" + k.sql(d) + " AS VARCHAR), 'none')"
		return "CAST(jsonb_object_agg(" + key + ", " + arg + ") AS VARCHAR)"
	}}
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
