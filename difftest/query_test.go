package difftest

import (
	"fmt"
	"strings"
)

// query is a top-level production: a view body in streamsql and the
// Postgres query that gives the same rows once every input has arrived.
type query interface {
	// name is the production's name, for reports and tallies.
	name() string
	// stream is the SELECT (with its streaming clauses) after
	// CREATE MATERIALIZED VIEW q AS.
	stream() string
	// batch is the Postgres SELECT.
	batch() string
	// kinds are the output columns' kinds, in order.
	kinds() []kind
}

// ttl is the STATE TTL of unwindowed aggregates and joins: longer than
// the closing rows are after the data, so no state expires.
const ttl = "STATE TTL INTERVAL '1' DAY"

// items is a select list; entry i is named c<i> in the output.
type items []expr

func (it items) render(d dialect) string {
	parts := make([]string, len(it))
	for i, e := range it {
		parts[i] = fmt.Sprintf("%s AS c%d", e.sql(d), i)
	}
	return strings.Join(parts, ", ")
}

func (it items) kinds() []kind {
	ks := make([]kind, len(it))
	for i, e := range it {
		ks[i] = e.kind()
	}
	return ks
}

func optWhere(e expr, d dialect) string {
	if e == nil {
		return ""
	}
	return " WHERE " + e.sql(d)
}

func andAll(es []expr, d dialect) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.sql(d)
	}
	return strings.Join(parts, " AND ")
}

// sourceCols are the columns of src, qualified by rel.
func sourceCols(rel string) []col {
	out := make([]col, len(columns))
	for i, c := range columns {
		out[i] = col{rel: rel, name: c.name, k: c.k}
	}
	return out
}

// anyKind draws a projection kind, weighted to the common ones.
func (g *gen) anyKind() kind {
	return []kind{kInt, kInt, kFloat, kDec, kStr, kStr, kTs, kBool, kInterval, kDate}[g.pick(10)]
}

// filterProject: SELECT exprs FROM a [WHERE pred]. Stateless.
type filterProject struct {
	src   string
	items items
	where expr
	sweep bool
}

func genFilterProject(g *gen, _ *dataset) query {
	src := sourceNames[g.pick(2)]
	g.cols = sourceCols("")
	q := filterProject{src: src}
	for range 1 + g.pick(4) {
		q.items = append(q.items, g.expr(g.anyKind(), 2))
	}
	if g.pick(4) > 0 {
		q.where = g.expr(kBool, 2)
	}
	return q
}

// genFuncSweep is a filterProject whose items call the next functions of
// scalarFuncs in turn (from a point that depends on the seed), and whose
// filter is the next IS test: random draws alone would leave a rarely
// drawn function out of a short run, the sweep calls every one within a
// few seeds (TestCorpusCoversEveryFunction checks the default run).
// sweepItems is the number of functions one sweep case calls.
const sweepItems = 6

func genFuncSweep(g *gen, _ *dataset) query {
	g.cols = sourceCols("")
	q := filterProject{src: sourceNames[g.pick(2)], sweep: true}
	for range sweepItems {
		f := scalarFuncs[g.sweep%len(scalarFuncs)]
		g.sweep++
		q.items = append(q.items, call{fn: f, args: f.args(g, 1)})
	}
	tests := []string{"TRUE", "FALSE", "NOT TRUE", "NOT FALSE"}
	q.where = isTest{x: g.expr(kBool, 1), test: tests[g.sweep%len(tests)]}
	return q
}

func (q filterProject) name() string {
	if q.sweep {
		return "function_sweep"
	}
	return "filter_project"
}
func (q filterProject) stream() string {
	return "SELECT " + q.items.render(streaming) + " FROM " + q.src + optWhere(q.where, streaming)
}

func (q filterProject) batch() string {
	return "SELECT " + q.items.render(postgres) + " FROM " + q.src + optWhere(q.where, postgres)
}
func (q filterProject) kinds() []kind { return q.items.kinds() }

// windowProject: SELECT exprs FROM TUMBLE|HOP(a, ...) [WHERE pred]: every
// row once per window it lands in, without aggregation.
type windowProject struct {
	src   string
	win   window
	items items
	where expr
}

func windowCols(rel string) []col {
	return append(sourceCols(rel), col{rel: rel, name: "window_start", k: kTs}, col{rel: rel, name: "window_end", k: kTs})
}

func genWindowProject(g *gen, _ *dataset) query {
	q := windowProject{src: sourceNames[g.pick(2)], win: windowProductions[g.pick(2)](g)}
	g.cols = windowCols("")
	q.items = items{col{name: "window_start", k: kTs}}
	for range 1 + g.pick(3) {
		q.items = append(q.items, g.expr(g.anyKind(), 1))
	}
	if g.pick(2) == 0 {
		q.where = g.expr(kBool, 1)
	}
	return q
}

func (windowProject) name() string { return "window_project" }
func (q windowProject) stream() string {
	return "SELECT " + q.items.render(streaming) + " FROM " + q.win.tvf(q.src) + optWhere(q.where, streaming) + " LATE DATA DROP"
}

func (q windowProject) batch() string {
	return "SELECT " + q.items.render(postgres) + " FROM (" + q.win.rows(q.src, "", nil) + ") " + q.src + optWhere(q.where, postgres)
}
func (q windowProject) kinds() []kind { return q.items.kinds() }

// groupAgg: SELECT keys, aggregates FROM a [WHERE] GROUP BY keys [HAVING]
// STATE TTL: an updating aggregate whose final contents are the batch
// GROUP BY.
type groupAgg struct {
	src    string
	keys   []expr
	aggs   []agg
	where  expr
	having expr
}

// groupKey draws a GROUP BY key: mostly the nullable columns, sometimes
// an expression (a date, a remainder, a lower-cased string).
func (g *gen) groupKey() expr {
	switch g.pick(7) {
	case 0:
		return cast{x: col{name: "ts", k: kTs}, to: kDate, st: "DATE", pg: "date"}
	case 1:
		return binary{op: "%", l: col{name: "v", k: kInt}, r: lit{k: kInt, st: "3"}, k: kInt}
	case 2:
		return col{name: "s", k: kStr}
	case 3:
		return col{name: "d", k: kDec}
	}
	return col{name: "k", k: kInt}
}

func genGroupAgg(g *gen, _ *dataset) query {
	g.cols = sourceCols("")
	q := groupAgg{src: sourceNames[g.pick(2)]}
	nk := g.pick(3)
	for range nk {
		q.keys = append(q.keys, g.groupKey())
	}
	q.aggs = g.aggs(1 + g.pick(4))
	if nk > 0 && g.pick(3) == 0 {
		q.where = g.expr(kBool, 1)
	}
	if g.pick(3) == 0 {
		q.having = g.having()
	}
	return q
}

func (groupAgg) name() string { return "group_agg" }

func (q groupAgg) selectList(d dialect, keys []string, extra ...string) string {
	parts := append([]string(nil), keys...)
	parts = append(parts, extra...)
	for _, a := range q.aggs {
		parts = append(parts, a.sql(d))
	}
	for i := range parts {
		parts[i] = fmt.Sprintf("%s AS c%d", parts[i], i)
	}
	return strings.Join(parts, ", ")
}

func rendered(es []expr, d dialect) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.sql(d)
	}
	return out
}

func gNames(n int, extra ...string) []string {
	out := make([]string, n, n+len(extra))
	for i := range out {
		out[i] = fmt.Sprintf("g%d", i)
	}
	return append(out, extra...)
}

func groupBy(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return " GROUP BY " + strings.Join(keys, ", ")
}

func optHaving(e expr, d dialect) string {
	if e == nil {
		return ""
	}
	return " HAVING " + e.sql(d)
}

func (q groupAgg) stream() string {
	keys := rendered(q.keys, streaming)
	return "SELECT " + q.selectList(streaming, keys) + " FROM " + q.src + optWhere(q.where, streaming) +
		groupBy(keys) + optHaving(q.having, streaming) + " " + ttl
}

func (q groupAgg) batch() string {
	where := ""
	if q.where != nil {
		where = q.where.sql(postgres)
	}
	g := gNames(len(q.keys))
	return "SELECT " + q.selectList(postgres, g) + " FROM (SELECT " + q.src + ".*" + keyCols(rendered(q.keys, postgres)) +
		" FROM " + q.src + whereClause(where) + ") r" + groupBy(g) + optHaving(q.having, postgres)
}

func (q groupAgg) kinds() []kind {
	var ks []kind
	for _, k := range q.keys {
		ks = append(ks, k.kind())
	}
	for _, a := range q.aggs {
		ks = append(ks, a.k)
	}
	return ks
}

// windowAgg: SELECT keys, window_start, window_end, aggregates FROM
// TUMBLE|HOP|SESSION(a, ...) [WHERE] GROUP BY keys, window_start,
// window_end [HAVING] LATE DATA DROP EMIT ON WINDOW CLOSE|ON UPDATE. Under
// ON WINDOW CLOSE the closing rows' windows never fire, so Postgres keeps
// only the windows that end by the final watermark; ON UPDATE shows them.
type windowAgg struct {
	groupAgg
	win  window
	eowc bool
	wm   string // Postgres' final watermark of src
}

func genWindowAgg(g *gen, ds *dataset) query {
	g.cols = sourceCols("")
	q := windowAgg{win: windowProductions[g.pick(3)](g), eowc: g.pick(3) > 0}
	q.src = sourceNames[g.pick(2)]
	q.wm = ds.watermarkSQL(q.src)
	for range g.pick(3) {
		q.keys = append(q.keys, g.groupKey())
	}
	q.aggs = g.aggs(1 + g.pick(3))
	if g.pick(3) == 0 {
		q.where = g.expr(kBool, 1)
	}
	if g.pick(4) == 0 {
		q.having = g.having()
	}
	return q
}

func (q windowAgg) name() string {
	return "window_agg_" + strings.ToLower(strings.SplitN(q.win.tvf("a"), "(", 2)[0])
}

func (q windowAgg) emit() string {
	if q.eowc {
		return " EMIT ON WINDOW CLOSE"
	}
	return " EMIT ON UPDATE"
}

func (q windowAgg) stream() string {
	keys := rendered(q.keys, streaming)
	return "SELECT " + q.selectList(streaming, keys, "window_start", "window_end") + " FROM " + q.win.tvf(q.src) +
		optWhere(q.where, streaming) + groupBy(append(keys, "window_start", "window_end")) + optHaving(q.having, streaming) +
		" LATE DATA DROP" + q.emit()
}

func (q windowAgg) batch() string {
	where := ""
	if q.where != nil {
		where = q.where.sql(postgres)
	}
	closed := ""
	if q.eowc {
		closed = " WHERE w.window_end <= " + q.wm
	}
	g := gNames(len(q.keys))
	return "SELECT " + q.selectList(postgres, g, "window_start", "window_end") + " FROM (" +
		q.win.rows(q.src, where, rendered(q.keys, postgres)) + ") w" + closed +
		groupBy(gNames(len(q.keys), "window_start", "window_end")) + optHaving(q.having, postgres)
}

func (q windowAgg) kinds() []kind {
	ks := q.groupAgg.kinds()
	out := append([]kind(nil), ks[:len(q.keys)]...)
	out = append(out, kTs, kTs)
	return append(out, ks[len(q.keys):]...)
}
