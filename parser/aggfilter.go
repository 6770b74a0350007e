package parser

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
)

// AggFilterFunc is the call an aggregate's FILTER clause becomes for TiDB,
// whose grammar has no FILTER: `count(*) FILTER (WHERE c)` is handed over
// as `__agg_filter(count(*), c)`, and fixVisitor desugars it into the
// aggregate over `CASE WHEN c THEN arg END` (see aggFilter). The name is
// reserved.
const AggFilterFunc = "__agg_filter"

// filterAggs are the aggregates a FILTER clause may follow. Each ignores
// NULL arguments, so filtering rows out is the same as turning their
// arguments into NULL: `sum(x) FILTER (WHERE c)` is `sum(CASE WHEN c THEN
// x END)`, and a group none of whose rows pass gets count 0 and NULL for
// the others, as Postgres gives.
var filterAggs = map[string]bool{"COUNT": true, "SUM": true, "MIN": true, "MAX": true, "AVG": true}

// nullKeepingAggs are the aggregates that keep NULL arguments, so the
// CASE form would add a NULL for each filtered row: FILTER on them is
// refused rather than answered wrongly.
var nullKeepingAggs = map[string]bool{"ARRAY_AGG": true, "JSONB_AGG": true, "JSONB_OBJECT_AGG": true}

// aggFilter rewrites the FILTER (WHERE at i, which follows the closing
// parenthesis of a call, into an AggFilterFunc call around the call, and
// returns the index of the WHERE. It leaves i alone when the tokens are
// not that clause (FILTER is not reserved: it may be a column alias).
func (q *queryRewrite) aggFilter(i int) int {
	if i < 3 || i+2 >= len(q.toks) || !q.toks[i-1].isOp(")") || !q.toks[i+1].isOp("(") || !q.toks[i+2].is("WHERE") {
		return i
	}
	open := q.match[i-1]
	if open < 1 || q.toks[open-1].kind != tIdent || q.match[i+1] < 0 {
		return i
	}
	fn := q.toks[open-1]
	name := strings.ToUpper(fn.text)
	switch {
	case nullKeepingAggs[name]:
		q.errs.add(q.p.src.unsupported(q.toks[i].off, "FILTER on "+strings.ToLower(name)))
		return i + 2
	case !filterAggs[name]:
		p := q.p.src.pos(fn.off)
		q.errs.add(&sqlerr.Error{
			Code: sqlerr.WrongObjectType,
			Msg: fmt.Sprintf("FILTER specified, but %s is not an aggregate function (line %d, column %d)",
				strings.ToLower(fn.text), p.Line, p.Col),
			Pos: p,
		})
		return i + 2
	}
	q.rw.insert(fn.off, AggFilterFunc+"(")
	q.rw.replace(q.toks[i].off, q.toks[i+2].end, ",")
	return i + 2
}

// desugarAggFilter turns an AggFilterFunc call back into its aggregate,
// each argument of which becomes CASE WHEN condition THEN argument END
// (count(*)'s constant argument included). It returns nil for any other
// node.
func desugarAggFilter(f *ast.FuncCallExpr) *ast.AggregateFuncExpr {
	if f.FnName.L != AggFilterFunc || len(f.Args) != 2 {
		return nil
	}
	agg, ok := f.Args[0].(*ast.AggregateFuncExpr)
	if !ok {
		return nil
	}
	for k, arg := range agg.Args {
		agg.Args[k] = &ast.CaseExpr{WhenClauses: []*ast.WhenClause{{Expr: f.Args[1], Result: arg}}}
	}
	return agg
}
