package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// This file binds set-returning functions (funcs.Func.ReturnsSet) into
// ProjectSet nodes: in FROM (`t, unnest(t.a) AS u(x)`, `CROSS JOIN
// LATERAL`, `LEFT JOIN LATERAL ... ON true`, WITH ORDINALITY) and in a
// SELECT list without aggregates (`SELECT unnest(a) FROM t`, Postgres 10
// semantics). Everywhere else a call is refused as Postgres refuses it.

// setCollector gathers the set-returning calls of one SELECT list; each
// becomes a column of a ProjectSet appended after base input columns.
type setCollector struct {
	base  int
	calls []SetCall
	names []string
}

// srfHint is Postgres's hint for a set-returning call where none may be.
const srfHint = "You might be able to move the set-returning function into a LATERAL FROM item."

// setCallNotAllowed is the error for a set-returning call in clause
// (WHERE, JOIN conditions, ...) or, for "", in an expression that is not
// a SELECT list or FROM item.
func setCallNotAllowed(clause string) error {
	switch clause {
	case "":
		return sqlerr.New(sqlerr.FeatureNotSupport, "set-returning functions are not allowed here").WithHint(srfHint)
	case "aggregate":
		return sqlerr.New(sqlerr.GroupingError, "aggregate function calls cannot contain set-returning function calls").WithHint(srfHint)
	case "GROUP BY select list":
		return sqlerr.New(sqlerr.FeatureNotSupport, "set-returning functions in a SELECT list with GROUP BY or aggregates are not supported").WithHint(srfHint)
	case "nested":
		return sqlerr.New(sqlerr.FeatureNotSupport, "set-returning functions in the arguments of a set-returning function are not supported").WithHint(srfHint)
	}
	e := sqlerr.New(sqlerr.FeatureNotSupport, "set-returning functions are not allowed in %s", clause)
	if clause == "CASE" {
		e = e.WithHint(srfHint)
	}
	return e
}

// bindSetCall binds a call of the set-returning function f: in a SELECT
// list it becomes a column of the ProjectSet below the projection;
// anywhere else it is refused.
func (b *binder) bindSetCall(n *ast.FuncCallExpr, f *funcs.Func) (Scalar, error) {
	c := b.srf
	if c == nil {
		return nil, setCallNotAllowed(b.clause)
	}
	clause := b.clause
	b.srf, b.clause = nil, "nested"
	defer func() { b.srf, b.clause = c, clause }()
	args, err := b.bindAll(n.Args)
	if err != nil {
		return nil, err
	}
	s, err := b.call(n, f.Name, args...)
	if err == nil {
		s, err = b.zoned(s)
	}
	if err != nil {
		return nil, err
	}
	call := s.(*Call)
	if call.T == types.Null {
		return nil, errUnknownSetType
	}
	c.calls = append(c.calls, SetCall{Fn: call.Fn, Args: call.Args, T: call.T})
	c.names = append(c.names, f.Name)
	return &ColRef{Index: c.base + len(c.calls) - 1, Name: f.Name, T: call.T}, nil
}

// bindIn is bindScalar for an expression of clause (WHERE, HAVING, ...),
// which names the clause in the error for a set-returning call.
func (b *builder) bindIn(clause string, e ast.ExprNode, scope Scope) (Scalar, error) {
	saved := b.clause
	b.clause = clause
	defer func() { b.clause = saved }()
	return b.bindScalar(e, scope)
}

// selectListSet binds a SELECT list (no aggregates) over in; when it
// calls set-returning functions, a ProjectSet of those calls goes below
// the projection.
func (b *builder) selectListSet(fields *ast.FieldList, in Node, scope *relScope) (Node, []Scalar, []string, error) {
	c := &setCollector{base: len(scope.cols)}
	b.srf = c
	exprs, names, err := b.selectList(fields, scope, nil)
	b.srf = nil
	if err != nil || len(c.calls) == 0 {
		return in, exprs, names, err
	}
	return &ProjectSet{Input: in, Calls: c.calls, Names: c.names}, exprs, names, nil
}

// setFrom plans the FROM item ts, a set-returning call the parser marked
// (parser.SetFuncOf), over in (nil when it is the only FROM item): a
// ProjectSet whose arguments see in's columns (LATERAL). outer keeps a
// row whose set is empty (LEFT JOIN LATERAL ... ON true).
func (b *builder) setFrom(ts *ast.TableSource, in Node, scope *relScope, outer bool) (Node, *relScope, error) {
	call, ord, _ := parser.SetFuncOf(ts)
	f, ok := funcs.Lookup(call.FnName.L)
	if !ok || !f.ReturnsSet() {
		return nil, nil, undefinedFunction(call.FnName.L)
	}
	if scope == nil {
		scope = &relScope{}
	}
	var calls []SetCall
	// unnest(a, b, ...) in FROM zips its arrays: one call per array.
	groups := [][]ast.ExprNode{call.Args}
	if f.Name == "unnest" && len(call.Args) > 1 {
		groups = nil
		for _, a := range call.Args {
			groups = append(groups, []ast.ExprNode{a})
		}
	}
	for _, g := range groups {
		sc, err := b.bindSetArgs(call, f, g, scope)
		if err != nil {
			return nil, nil, err
		}
		calls = append(calls, sc)
	}
	names, err := setNames(f, ts, len(calls), ord)
	if err != nil {
		return nil, nil, err
	}
	n := &ProjectSet{Input: in, Calls: calls, Names: names, Ordinality: ord, Outer: outer}
	out := &relScope{cols: append([]scopeCol{}, scope.cols...)}
	for i, nm := range names {
		k := types.Int
		if i < len(calls) {
			k = calls[i].T
		}
		out.cols = append(out.cols, scopeCol{table: ts.AsName.O, name: nm, kind: k, aliasRef: len(names) == 1})
	}
	return n, out, nil
}

// bindSetArgs binds the arguments of one set-returning call in FROM over
// scope, the columns to its left.
func (b *builder) bindSetArgs(n *ast.FuncCallExpr, f *funcs.Func, args []ast.ExprNode, scope *relScope) (SetCall, error) {
	bd := &binder{scope: scope, params: b.params, zone: b.zone, fns: b.fns, used: &b.used, clause: "nested"}
	bound, err := bd.bindAll(args)
	if err != nil {
		return SetCall{}, err
	}
	s, err := bd.call(n, f.Name, bound...)
	if err != nil {
		return SetCall{}, err
	}
	if s, err = bd.zoned(s); err != nil {
		return SetCall{}, err
	}
	c := s.(*Call)
	if c.T == types.Null {
		return SetCall{}, errUnknownSetType
	}
	return SetCall{Fn: c.Fn, Args: c.Args, T: c.T}, nil
}

// errUnknownSetType is Postgres's error for unnest(NULL): the element
// type cannot be known.
var errUnknownSetType = sqlerr.New("42P18", "could not determine polymorphic type because input has type unknown")

// setNames names a set-returning FROM item's columns: the column aliases
// written, then Postgres's defaults (the table alias for a function of a
// scalar result, value for the JSON element functions, ordinality).
func setNames(f *funcs.Func, ts *ast.TableSource, calls int, ord bool) ([]string, error) {
	n := calls
	if ord {
		n++
	}
	if len(ts.ColumnNames) > n {
		return nil, sqlerr.New("42P10", "table %q has %d columns available but %d columns specified", ts.AsName.O, n, len(ts.ColumnNames))
	}
	names := make([]string, n)
	for i := range names {
		switch {
		case i < len(ts.ColumnNames):
			names[i] = ts.ColumnNames[i].O
		case i == calls:
			names[i] = "ordinality"
		case calls == 1:
			names[i] = funcs.SetColumn(f, ts.AsName.O)
		default:
			names[i] = f.Name
		}
	}
	return names, nil
}

// lateralSetJoin plans a join whose right side is a set-returning FROM
// item: a ProjectSet over the left side (LATERAL: its arguments see the
// left's columns). An inner join keeps its ON and the WHERE as a filter
// over the result; LEFT JOIN needs ON true. ok is false for other joins.
func (b *builder) lateralSetJoin(j *ast.Join, where ast.ExprNode) (Node, *relScope, bool, error) {
	ts, isTS := j.Right.(*ast.TableSource)
	if !isTS {
		return nil, nil, false, nil
	}
	if _, _, ok := parser.SetFuncOf(ts); !ok {
		return nil, nil, false, nil
	}
	outer := j.Tp == ast.LeftJoin
	if (j.Tp != ast.CrossJoin && !outer) || j.NaturalJoin || len(j.Using) > 0 {
		return nil, nil, true, sqlerr.New(sqlerr.FeatureNotSupport, "a set-returning function in FROM joins with JOIN, CROSS JOIN, a comma or LEFT JOIN ... ON true")
	}
	if outer && (j.On == nil || !isTrueLiteral(j.On.Expr)) {
		return nil, nil, true, sqlerr.New(sqlerr.FeatureNotSupport, "LEFT JOIN LATERAL over a set-returning function needs ON true").
			WithHint("filter the function's rows in WHERE, or use an inner join")
	}
	lj := j.Left
	if x, ok := lj.(*ast.Join); ok && x.Right == nil {
		lj = x.Left // the comma's one-item join
	}
	left, ls, err := b.resultSet(lj)
	if err != nil {
		return nil, nil, true, err
	}
	n, scope, err := b.setFrom(ts, left, ls, outer)
	if err != nil {
		return nil, nil, true, err
	}
	var preds []Scalar
	if j.On != nil && !outer {
		p, err := b.bindIn("JOIN conditions", j.On.Expr, scope)
		if err != nil {
			return nil, nil, true, err
		}
		preds = append(preds, p)
	}
	if where != nil {
		p, err := b.bindIn("WHERE", where, scope)
		if err != nil {
			return nil, nil, true, err
		}
		preds = append(preds, p)
	}
	if len(preds) > 0 {
		n = &Filter{Input: n, Pred: andAll(preds)}
	}
	return n, scope, true, nil
}

// setFuncFirst refuses a join whose left side is a set-returning FROM
// item (`FROM generate_series(1, 3) g, t`): the call would read nothing
// to its left, and the planner expands calls over the relation before
// them only.
func setFuncFirst(j *ast.Join) error {
	l := j.Left
	if x, ok := l.(*ast.Join); ok && x.Right == nil {
		l = x.Left
	}
	if ts, ok := l.(*ast.TableSource); ok {
		if _, _, ok := parser.SetFuncOf(ts); ok && j.Right != nil {
			return sqlerr.New(sqlerr.FeatureNotSupport, "a set-returning function in FROM must follow the relation it is joined with").
				WithHint("write the relation first: FROM t, generate_series(1, 3) AS g")
		}
	}
	return nil
}

// isTrueLiteral reports whether e is the constant TRUE (or 1).
func isTrueLiteral(e ast.ExprNode) bool {
	if p, ok := e.(*ast.ParenthesesExpr); ok {
		return isTrueLiteral(p.Expr)
	}
	v, ok := e.(ast.ValueExpr)
	if !ok {
		return false
	}
	switch x := v.GetValue().(type) {
	case int64:
		return x == 1
	case uint64:
		return x == 1
	}
	return strings.EqualFold(restore(e, 0), "true")
}
