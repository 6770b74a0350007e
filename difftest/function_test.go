package difftest

import (
	"fmt"
	"strings"
)

// definer is a query that needs an object created before it: setup
// returns the statements of dialect d, which run before the view is
// created (streaming) or the query runs (Postgres).
type definer interface {
	setup(d dialect) []string
}

// sqlFunction is a SQL function (CREATE FUNCTION ... RETURN-less
// `AS $$ SELECT expr $$`, the form both engines take) whose body is a
// drawn expression over one to three parameters, called with drawn
// arguments in the select list of a filterProject: streamsql inlines it
// at bind time, Postgres calls (or inlines) it.
type sqlFunction struct {
	fn     string
	params []kind
	body   expr
	proj   filterProject
}

// paramKinds are the kinds a SQL function's parameters and result take.
var paramKinds = []kind{kInt, kInt, kFloat, kDec, kStr, kStr, kTs, kBool, kInterval, kDate}

// pgTypeNames are the Postgres spellings of the parameter kinds.
var pgTypeNames = map[kind]string{kInt: "bigint", kFloat: "float8", kDec: "numeric", kStr: "text", kTs: "timestamp",
	kBool: "boolean", kInterval: "interval", kDate: "date"}

func genSQLFunction(g *gen, _ *dataset) query {
	g.funcs++
	q := sqlFunction{fn: fmt.Sprintf("fn_%d", g.funcs)}
	saved := g.cols
	g.cols = nil
	for i := range 1 + g.pick(3) {
		k := paramKinds[g.pick(len(paramKinds))]
		q.params = append(q.params, k)
		g.cols = append(g.cols, col{name: fmt.Sprintf("p%d", i), k: k})
	}
	q.body = g.expr(paramKinds[g.pick(len(paramKinds))], 2)
	g.cols = sourceCols("")
	q.proj = filterProject{src: sourceNames[g.pick(2)]}
	for range 1 + g.pick(2) {
		args := make([]expr, len(q.params))
		for i, k := range q.params {
			args[i] = g.expr(k, 1)
		}
		q.proj.items = append(q.proj.items, udfCall{fn: q.fn, args: args, k: q.body.kind()})
	}
	if g.pick(2) == 0 {
		q.proj.where = g.expr(kBool, 1)
	}
	g.cols = saved
	return q
}

func (q sqlFunction) name() string   { return "sql_function" }
func (q sqlFunction) stream() string { return q.proj.stream() }
func (q sqlFunction) batch() string  { return q.proj.batch() }
func (q sqlFunction) kinds() []kind  { return q.proj.kinds() }

func (q sqlFunction) setup(d dialect) []string {
	params := make([]string, len(q.params))
	for i, k := range q.params {
		t := k.String()
		if d == postgres {
			t = pgTypeNames[k]
		}
		params[i] = fmt.Sprintf("p%d %s", i, t)
	}
	ret := q.body.kind().String()
	if d == postgres {
		ret = pgTypeNames[q.body.kind()]
	}
	return []string{fmt.Sprintf("CREATE FUNCTION %s(%s) RETURNS %s LANGUAGE SQL IMMUTABLE AS $$ SELECT %s $$",
		q.fn, strings.Join(params, ", "), ret, q.body.sql(d))}
}

// udfCall is a call of a SQL function; k is its result kind.
type udfCall struct {
	fn   string
	args []expr
	k    kind
}

func (c udfCall) kind() kind { return c.k }
func (c udfCall) sql(d dialect) string {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = a.sql(d)
	}
	return c.fn + "(" + strings.Join(args, ", ") + ")"
}
