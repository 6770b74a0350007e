package planner

import (
	"math"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// aggregateSelect plans GROUP BY with aggregates: an optional
// pre-projection computing group keys and arguments, the Aggregate, HAVING
// and the select list over the aggregate's output.
func (b *builder) aggregateSelect(s *ast.SelectStmt, in Node, scope *relScope, aggs []*ast.AggregateFuncExpr) (Node, *relScope, error) {
	inSchema := in.Schema()
	var extras []Scalar
	extraCol := func(e Scalar) int {
		if r, ok := e.(*ColRef); ok {
			return r.Index
		}
		extras = append(extras, e)
		return len(inSchema) + len(extras) - 1
	}
	agg := &Aggregate{}
	groupText := map[string]int{}
	as := &aggScope{input: scope}
	if s.GroupBy != nil {
		for i, item := range s.GroupBy.Items {
			e, err := b.groupExpr(item.Expr, scope, s.Fields)
			if err != nil {
				return nil, nil, err
			}
			agg.GroupCols = append(agg.GroupCols, extraCol(e))
			name := e.String()
			sc := scopeCol{name: name, kind: e.Type()}
			if r, ok := e.(*ColRef); ok {
				sc.table, sc.name = scope.cols[r.Index].table, scope.cols[r.Index].name
			}
			as.groups = append(as.groups, sc)
			groupText[nodeText(item.Expr)] = i
			agg.Names = append(agg.Names, sc.name)
		}
	}
	for _, a := range aggs {
		call, err := b.aggCall(a, scope, extraCol)
		if err != nil {
			return nil, nil, err
		}
		agg.Aggs = append(agg.Aggs, call)
		as.aggTexts = append(as.aggTexts, nodeText(a))
		as.aggKinds = append(as.aggKinds, call.T)
		agg.Names = append(agg.Names, call.Name)
	}
	as.aggBase = len(as.groups)
	in = withExtraColumns(in, inSchema, extras)
	agg.Input = in
	var out Node = agg
	if s.Having != nil {
		pred, err := b.bindIn("HAVING", s.Having.Expr, as)
		if err != nil {
			return nil, nil, err
		}
		out = &Filter{Input: out, Pred: pred}
	}
	saved := b.clause
	b.clause = "GROUP BY select list"
	exprs, names, err := b.selectList(s.Fields, as, groupText)
	b.clause = saved
	if err != nil {
		return nil, nil, err
	}
	out = &Project{Input: out, Exprs: exprs, Names: names}
	if s.Distinct {
		out = distinctAll(out)
	}
	out, err = b.orderLimit(s, out, nil, exprs)
	if err != nil {
		return nil, nil, err
	}
	return out, newRelScope("", out.Schema()), nil
}

// groupExpr binds a GROUP BY item; a bare name that is a select alias (or
// an ordinal) refers to that select expression, as Postgres allows.
func (b *builder) groupExpr(e ast.ExprNode, scope *relScope, fields *ast.FieldList) (Scalar, error) {
	if c, ok := e.(*ast.ColumnNameExpr); ok && c.Name.Table.O == "" {
		if _, _, err := scope.Resolve("", c.Name.Name.O); err != nil {
			for _, f := range fields.Fields {
				if f.Expr != nil && strings.EqualFold(f.AsName.O, c.Name.Name.O) {
					return b.bindScalar(f.Expr, scope)
				}
			}
		}
	}
	if p, ok := e.(*ast.PositionExpr); ok {
		if p.N < 1 || p.N > len(fields.Fields) || fields.Fields[p.N-1].Expr == nil {
			return nil, sqlerr.New(sqlerr.InvalidParameter, "GROUP BY position %d is not in select list", p.N)
		}
		return b.bindScalar(fields.Fields[p.N-1].Expr, scope)
	}
	return b.bindScalar(e, scope)
}

// aggCall binds one aggregate call.
func (b *builder) aggCall(a *ast.AggregateFuncExpr, scope *relScope, extraCol func(Scalar) int) (AggCall, error) {
	fn := strings.ToLower(a.F)
	if pg, ok := jsonAggs[fn]; ok {
		return b.jsonAggCall(a, pg, scope, extraCol)
	}
	call := AggCall{Fn: fn, Arg: -1, Distinct: a.Distinct, Name: fn}
	switch fn {
	case "count", "sum", "min", "max", "avg", "array_agg":
	default:
		return call, sqlerr.New(sqlerr.UndefinedFunction, "aggregate function %s is not supported", fn)
	}
	star := len(a.Args) == 0 || isStarCall(a.Args)
	if len(a.Args) == 1 {
		// count(1) is count(*); count(DISTINCT 1) counts the distinct
		// values of the constant (1 in a group with rows).
		if v, ok := a.Args[0].(ast.ValueExpr); ok && fn == "count" && !a.Distinct && v.GetValue() != nil {
			star = true
		}
	}
	if star {
		if fn != "count" {
			return call, sqlerr.New(sqlerr.UndefinedFunction, "function %s(*) does not exist", fn)
		}
		call.T = types.Int
		return call, nil
	}
	if len(a.Args) != 1 {
		return call, sqlerr.New(sqlerr.UndefinedFunction, "%s takes one argument", fn)
	}
	arg, err := b.bindIn("aggregate", a.Args[0], scope)
	if err != nil {
		return call, err
	}
	call.Arg = extraCol(arg)
	k := arg.Type()
	switch fn {
	case "count":
		call.T = types.Int
	case "sum":
		if !types.IsNumeric(k) {
			return call, sqlerr.New(sqlerr.UndefinedFunction, "function sum(%s) does not exist", strings.ToLower(k.String()))
		}
		call.T = k
	case "avg":
		if !types.IsNumeric(k) {
			return call, sqlerr.New(sqlerr.UndefinedFunction, "function avg(%s) does not exist", strings.ToLower(k.String()))
		}
		call.T = types.Float
	case "array_agg":
		switch {
		case k.IsArray():
			return call, sqlerr.New(sqlerr.FeatureNotSupport, "array_agg of arrays is not supported (arrays of arrays)")
		case k == types.Null:
			return call, sqlerr.New("42P18", "could not determine polymorphic type because input has type unknown")
		case !types.ArrayElemOK(k):
			return call, sqlerr.New(sqlerr.FeatureNotSupport, "array_agg of %s is not supported", k)
		}
		call.T = types.ArrayOf(k)
	default:
		call.T = k
	}
	return call, nil
}

// jsonAggs maps TiDB's names of the JSONB aggregates (the parser writes
// jsonb_agg as JSON_ARRAYAGG) to Postgres's.
var jsonAggs = map[string]string{"json_arrayagg": "jsonb_agg", "json_objectagg": "jsonb_object_agg"}

// jsonAggCall binds jsonb_agg(x) and jsonb_object_agg(k, v). The latter's
// two arguments become one: the one-key object jsonb_build_object(k, v),
// which the accumulator merges (a NULL key fails that row's object, so the
// row is skipped and the failure counted, as any runtime error).
func (b *builder) jsonAggCall(a *ast.AggregateFuncExpr, fn string, scope *relScope, extraCol func(Scalar) int) (AggCall, error) {
	call := AggCall{Fn: fn, Arg: -1, Distinct: a.Distinct, Name: fn, T: types.JSONB}
	want := 1
	if fn == "jsonb_object_agg" {
		want = 2
	}
	if len(a.Args) != want || isStarCall(a.Args) {
		return call, sqlerr.New(sqlerr.UndefinedFunction, "%s takes %d argument(s)", fn, want)
	}
	args := make([]Scalar, len(a.Args))
	for i, e := range a.Args {
		s, err := b.bindIn("aggregate", e, scope)
		if err != nil {
			return call, err
		}
		args[i] = s
	}
	arg := args[0]
	if want == 2 {
		arg = &Call{Fn: "jsonb_build_object", Args: args, T: types.JSONB}
	}
	call.Arg = extraCol(arg)
	return call, nil
}

// orderLimit adds ORDER BY and LIMIT for ad-hoc queries; in a view they
// are refused (a view's contents are a set).
func (b *builder) orderLimit(s *ast.SelectStmt, out Node, _ *relScope, exprs []Scalar) (Node, error) {
	if s.OrderBy == nil && s.Limit == nil {
		return out, nil
	}
	if !b.adhoc {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "ORDER BY and LIMIT are not allowed in a materialized view; use them when querying it")
	}
	schema := out.Schema()
	if s.OrderBy != nil {
		srt := &Sort{Input: out}
		for _, it := range s.OrderBy.Items {
			col, err := orderCol(it.Expr, schema, exprs)
			if err != nil {
				return nil, err
			}
			srt.Keys = append(srt.Keys, SortKey{Col: col, Desc: it.Desc})
		}
		out = srt
	}
	if s.Limit != nil {
		l := &Limit{Input: out, Count: -1}
		if s.Limit.Count != nil {
			v, err := b.limitValue(s.Limit.Count, -1)
			if err != nil {
				return nil, err
			}
			if v == math.MaxInt64 { // LIMIT ALL and LIMIT NULL (parser/params.go)
				v = -1
			}
			l.Count = v
		}
		if s.Limit.Offset != nil {
			v, err := b.limitValue(s.Limit.Offset, 0)
			if err != nil {
				return nil, err
			}
			l.Offset = v
		}
		out = l
	}
	return out, nil
}

// orderCol resolves an ORDER BY item to an output column: by name, by
// ordinal, or by being the same expression as a select item.
func orderCol(e ast.ExprNode, schema types.Schema, exprs []Scalar) (int, error) {
	switch x := e.(type) {
	case *ast.ColumnNameExpr:
		if i := schema.Index(x.Name.Name.O); i >= 0 {
			return i, nil
		}
	case *ast.PositionExpr:
		if x.N >= 1 && x.N <= len(schema) {
			return x.N - 1, nil
		}
		return 0, sqlerr.New(sqlerr.InvalidParameter, "ORDER BY position %d is not in select list", x.N)
	}
	t := fieldName(e)
	for i, c := range schema {
		if c.Name == t && t != "?column?" {
			return i, nil
		}
	}
	return 0, sqlerr.New(sqlerr.FeatureNotSupport, "ORDER BY %s: order by an output column name or position", nodeText(e))
}

func intLiteral(e ast.ExprNode) (int64, error) {
	v, ok := e.(ast.ValueExpr)
	if !ok {
		return 0, sqlerr.New(sqlerr.InvalidParameter, "LIMIT takes an integer constant")
	}
	switch n := v.GetValue().(type) {
	case int64:
		return n, nil
	case uint64:
		return int64(n), nil
	}
	return 0, sqlerr.New(sqlerr.InvalidParameter, "LIMIT takes an integer constant")
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// withExtraColumns returns in with the expressions extras appended as
// columns _expr0, _expr1, … after its own (inSchema), or in itself when
// there are none: the group keys and aggregate arguments that are not
// plain columns.
func withExtraColumns(in Node, inSchema types.Schema, extras []Scalar) Node {
	names := make([]string, len(extras))
	for i := range extras {
		names[i] = "_expr" + itoa(i)
	}
	return appendColumns(in, inSchema, extras, names)
}

// appendColumns returns in (whose columns are inSchema) with exprs
// appended as columns named names, or in itself when there are none.
func appendColumns(in Node, inSchema types.Schema, exprs []Scalar, names []string) Node {
	if len(exprs) == 0 {
		return in
	}
	p := &Project{Input: in}
	for i, c := range inSchema {
		p.Exprs = append(p.Exprs, &ColRef{Index: i, Name: c.Name, T: c.Type})
		p.Names = append(p.Names, c.Name)
	}
	p.Exprs = append(p.Exprs, exprs...)
	p.Names = append(p.Names, names...)
	return p
}
