package difftest

import (
	"fmt"
	"strings"
)

// nestedAgg: an aggregate over the changing rows of another,
// SELECT [key,] aggregates FROM (SELECT keys, aggregates FROM a GROUP BY
// keys) q [GROUP BY key] STATE TTL (Nexmark q4's shape). The inner
// aggregate replaces a group's row at each change, so the outer one
// takes the old row back: its final contents are the batch answer of the
// same nesting. The outer key is an inner key or an inner count (a row
// then moves between outer groups, which disappear when emptied).
type nestedAgg struct {
	inner groupAgg
	key   int // the inner column the outer groups by, -1: none
	aggs  []agg
}

func genNestedAgg(g *gen, _ *dataset) query {
	g.cols = sourceCols("")
	q := nestedAgg{inner: groupAgg{src: sourceNames[g.pick(2)]}, key: -1}
	for range 1 + g.pick(2) {
		q.inner.keys = append(q.inner.keys, g.groupKey())
	}
	q.inner.aggs = g.innerAggs(1 + g.pick(3))
	cols := q.innerCols()
	switch g.pick(3) {
	case 0:
		q.key = 0
	case 1:
		for i, c := range cols {
			if i >= len(q.inner.keys) && c.k == kInt {
				q.key = i
			}
		}
	}
	for range 1 + g.pick(4) {
		q.aggs = append(q.aggs, g.outerAgg(cols[g.pick(len(cols))]))
	}
	return q
}

// innerAggs draws the inner aggregates: the plain ones and count(*),
// which the outer key may group by.
func (g *gen) innerAggs(n int) []agg {
	out := []agg{{fn: "count", k: kInt}}
	for range n - 1 {
		out = append(out, plainAggs[g.pick(len(plainAggs))](g))
	}
	return out
}

// outerAgg draws an aggregate over inner column c that takes
// retractions back exactly: sum and avg over integers and decimals
// (never a double, whose subtraction leaves rounding behind), min and max
// over any kind but DECIMAL (which of two spellings of one value is kept
// depends on what was retracted), count and count(DISTINCT).
func (g *gen) outerAgg(c col) agg {
	switch p := g.pick(5); {
	case p == 0:
		return agg{fn: "count", k: kInt}
	case p == 1 && (c.k == kInt || c.k == kDec):
		if c.k == kInt && g.pick(2) == 0 {
			return agg{fn: "sum", arg: c, distinct: g.pick(2) == 0, k: kInt}
		}
		return agg{fn: "avg", arg: c, k: kFloat}
	case p == 2 && c.k != kDec:
		return agg{fn: g.oneOf("min", "max"), arg: c, k: c.k}
	case p == 3 && c.k == kInt:
		return agg{fn: "count", arg: c, distinct: true, k: kInt}
	}
	return agg{fn: "count", arg: c, k: kInt}
}

// innerCols are the inner query's output columns c0, c1, …: its keys,
// then its aggregates.
func (q nestedAgg) innerCols() []col {
	var cols []col
	for i, k := range q.inner.kinds() {
		cols = append(cols, col{name: fmt.Sprintf("c%d", i), k: k})
	}
	return cols
}

func (nestedAgg) name() string { return "nested_agg" }

func (q nestedAgg) render(d dialect, inner string) string {
	var parts, keys []string
	if q.key >= 0 {
		keys = []string{fmt.Sprintf("q.c%d", q.key)}
		parts = append(parts, keys[0])
	}
	for _, a := range q.aggs {
		parts = append(parts, a.sql(d))
	}
	for i := range parts {
		parts[i] = fmt.Sprintf("%s AS o%d", parts[i], i)
	}
	return "SELECT " + strings.Join(parts, ", ") + " FROM (" + inner + ") q" + groupBy(keys)
}

func (q nestedAgg) stream() string {
	keys := rendered(q.inner.keys, streaming)
	inner := "SELECT " + q.inner.selectList(streaming, keys) + " FROM " + q.inner.src + groupBy(keys)
	return q.render(streaming, inner) + " " + ttl
}

func (q nestedAgg) batch() string { return q.render(postgres, q.inner.batch()) }

func (q nestedAgg) kinds() []kind {
	var ks []kind
	if q.key >= 0 {
		ks = append(ks, q.innerCols()[q.key].k)
	}
	for _, a := range q.aggs {
		ks = append(ks, a.k)
	}
	return ks
}
