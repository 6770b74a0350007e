package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// subqueryPred is a conjunct of WHERE that tests a subquery: x [NOT] IN
// (SELECT …) (expr set) or [NOT] EXISTS (SELECT …).
type subqueryPred struct {
	expr  ast.ExprNode // the IN's left operand; nil for EXISTS
	query ast.ResultSetNode
	not   bool
	text  ast.Node // the conjunct, for messages
}

// splitSubqueries takes the conjuncts of where that test a subquery out
// of it: they become semi and anti joins (semiJoins); the rest is
// returned as one expression (nil when nothing is left).
func splitSubqueries(where ast.ExprNode) (ast.ExprNode, []subqueryPred) {
	var rest ast.ExprNode
	var subs []subqueryPred
	for _, c := range conjuncts(where) {
		if sp, ok := subqueryOf(c, false); ok {
			subs = append(subs, sp)
			continue
		}
		rest = andExpr(rest, c)
	}
	return rest, subs
}

// subqueryOf reads c as a subquery test (negated when not).
func subqueryOf(c ast.ExprNode, not bool) (subqueryPred, bool) {
	switch e := c.(type) {
	case *ast.ParenthesesExpr:
		return subqueryOf(e.Expr, not)
	case *ast.UnaryOperationExpr:
		if e.Op == opcode.Not || e.Op == opcode.Not2 {
			return subqueryOf(e.V, !not)
		}
	case *ast.ExistsSubqueryExpr:
		if q, ok := e.Sel.(*ast.SubqueryExpr); ok {
			return subqueryPred{query: q.Query, not: e.Not != not, text: c}, true
		}
	case *ast.PatternInExpr:
		if q, ok := e.Sel.(*ast.SubqueryExpr); ok {
			return subqueryPred{expr: e.Expr, query: q.Query, not: e.Not != not, text: c}, true
		}
	}
	return subqueryPred{}, false
}

// semiJoins filters in (over scope) by each subquery test in turn: a
// SemiJoin for IN and EXISTS, an AntiJoin for NOT EXISTS and a
// null-aware AntiJoin for NOT IN.
func (b *builder) semiJoins(in Node, scope *relScope, subs []subqueryPred) (Node, error) {
	for _, sp := range subs {
		n, err := b.semiJoin(in, scope, sp)
		if err != nil {
			return nil, err
		}
		in = n
	}
	return in, nil
}

// semiKeys are the key pairs of a semi join: left[i] = right[i].
type semiKeys struct {
	left, right []Scalar
}

func (b *builder) semiJoin(left Node, scope *relScope, sp subqueryPred) (Node, error) {
	right, keys, residual, err := b.subqueryInput(scope, sp)
	if err != nil {
		return nil, err
	}
	kind := Semi
	if sp.not {
		kind = Anti
		if sp.expr != nil {
			kind = NullAwareAnti
			if residual != nil || len(keys.left) != 1 {
				return nil, sqlerr.New(sqlerr.FeatureNotSupport, "NOT IN over a correlated subquery is not supported: %s", exprText(sp.text)).
					WithHint("write it as NOT EXISTS (SELECT … WHERE … AND inner = outer), which has no NULL rule")
			}
		}
	}
	nl, nr := len(left.Schema()), len(right.Schema())
	sj := &SemiJoin{Kind: kind, LeftTime: -1, RightTime: -1}
	var lx, rx []Scalar
	for i := range keys.left {
		l, r, err := b.unifyKey(keys.left[i], keys.right[i], sp.text)
		if err != nil {
			return nil, err
		}
		sj.LeftKeys = append(sj.LeftKeys, keyColumn(l, nl, &lx))
		sj.RightKeys = append(sj.RightKeys, keyColumn(r, nr, &rx))
	}
	sj.Left = appendColumns(left, left.Schema(), lx, extraNames("_semi_l", len(lx)))
	sj.Right = appendColumns(right, right.Schema(), rx, extraNames("_semi_r", len(rx)))
	if residual != nil && len(lx) > 0 {
		residual = MapColRefs(residual, func(c *ColRef) Scalar {
			s := *c
			if s.Index >= nl {
				s.Index += len(lx)
			}
			return &s
		})
	}
	sj.Residual = residual
	if len(lx) == 0 {
		return sj, nil
	}
	p := &Project{Input: sj}
	for i, c := range scope.cols {
		p.Exprs = append(p.Exprs, &ColRef{Index: i, Name: c.qualified(), T: c.kind})
		p.Names = append(p.Names, c.name)
	}
	return p, nil
}

// keyColumn returns the column of a side (width n) holding key k: k's
// own column when it is a column reference, otherwise an extra column
// appended to extra.
func keyColumn(k Scalar, n int, extra *[]Scalar) int {
	if c, ok := k.(*ColRef); ok && c.Index < n {
		return c.Index
	}
	*extra = append(*extra, k)
	return n + len(*extra) - 1
}

func extraNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strings.Repeat("_", i)
	}
	return out
}

// unifyKey casts the two sides of a key to the one type = compares them
// in (BIGINT and DOUBLE meet in DOUBLE), so equal keys encode alike.
func (b *builder) unifyKey(l, r Scalar, at ast.Node) (Scalar, Scalar, error) {
	if l.Type() == r.Type() {
		return l, r, nil
	}
	eq, _ := funcs.Lookup("=")
	k, ok := unifyArgs(eq.Sigs[0], []Scalar{l, r})
	if !ok {
		return nil, nil, sqlerr.New(sqlerr.DatatypeMismatch, "operator does not exist: %s = %s in %s", kindName(l.Type()), kindName(r.Type()), exprText(at))
	}
	if l.Type() != k {
		l = &Cast{Arg: l, To: k, Zone: b.zone}
	}
	if r.Type() != k {
		r = &Cast{Arg: r, To: k, Zone: b.zone}
	}
	return l, r, nil
}

// subqueryInput plans the subquery of sp as the right input of a semi
// join of the relation scope names: the key pairs (left expressions over
// scope, right ones over the subquery's output) and the residual over
// the left row followed by the right row. A subquery of one SELECT …
// FROM … [WHERE …] may refer to the outer relation in its WHERE
// (correlated): an equality of an outer and an inner column is a key,
// a condition on the inner side alone (or on neither) filters the
// input, and the rest is the residual. Any other subquery is planned on its own.
func (b *builder) subqueryInput(scope *relScope, sp subqueryPred) (Node, semiKeys, Scalar, error) {
	var keys semiKeys
	sel, simple := simpleSubquery(sp.query)
	var right Node
	var rs *relScope
	var residual Scalar
	var err error
	if simple {
		right, rs, keys, residual, err = b.correlated(scope, sel)
	} else {
		right, rs, err = b.resultSet(sp.query)
	}
	if err != nil {
		return nil, keys, nil, err
	}
	if sp.expr == nil {
		return right, keys, residual, nil
	}
	x, err := b.bindIn("WHERE", sp.expr, scope)
	if err != nil {
		return nil, keys, nil, err
	}
	y, err := b.inColumn(sel, simple, right, rs, sp)
	if err != nil {
		return nil, keys, nil, err
	}
	keys.left, keys.right = append([]Scalar{x}, keys.left...), append([]Scalar{y}, keys.right...)
	return right, keys, residual, nil
}

// inColumn binds the one column an IN's subquery yields, over its input.
func (b *builder) inColumn(sel *ast.SelectStmt, simple bool, right Node, rs *relScope, sp subqueryPred) (Scalar, error) {
	if !simple {
		s := right.Schema()
		if len(s) != 1 {
			return nil, sqlerr.New(sqlerr.SyntaxError, "subquery has too many columns: %s", exprText(sp.text))
		}
		return &ColRef{Index: 0, Name: s[0].Name, T: s[0].Type}, nil
	}
	f := sel.Fields.Fields
	if len(f) != 1 || f[0].WildCard != nil {
		return nil, sqlerr.New(sqlerr.SyntaxError, "subquery of IN must return one column: %s", exprText(sp.text))
	}
	return b.bindIn("SELECT list", f[0].Expr, rs)
}

// simpleSubquery reports whether q is one SELECT … FROM … [WHERE …]
// without grouping, aggregates, DISTINCT, ORDER BY, LIMIT or WITH: the
// shape whose WHERE may refer to the outer query.
func simpleSubquery(q ast.ResultSetNode) (*ast.SelectStmt, bool) {
	s, ok := q.(*ast.SelectStmt)
	if !ok || s.From == nil || s.GroupBy != nil || s.Having != nil || s.Distinct || s.OrderBy != nil ||
		s.Limit != nil || s.With != nil || len(collectAggs(s)) > 0 || s.WindowSpecs != nil {
		return s, false
	}
	return s, true
}

// correlated plans the FROM of a simple subquery and sorts the
// conjuncts of its WHERE, bound with the subquery's columns after the
// outer ones (an inner name hides an outer one).
func (b *builder) correlated(outer *relScope, sel *ast.SelectStmt) (Node, *relScope, semiKeys, Scalar, error) {
	var keys semiKeys
	refs := sel.From.TableRefs
	var right Node
	var rs *relScope
	var err error
	if refs.Right == nil {
		right, rs, err = b.resultSet(refs.Left)
	} else {
		right, rs, err = b.join(refs, nil)
	}
	if err != nil {
		return nil, nil, keys, nil, err
	}
	nl := len(outer.cols)
	cs := &corrScope{outer: outer, inner: rs}
	var rf, rest []Scalar
	for _, c := range conjuncts(sel.Where) {
		s, err := b.bindIn("WHERE", c, cs)
		if err != nil {
			return nil, nil, keys, nil, err
		}
		for _, part := range splitAnd(s) {
			switch sideOf(part, nl) {
			case sideRight, sideNone: // a constant filters the subquery too
				rf = append(rf, shiftCols(part, -nl))
			case sideBoth:
				if l, r, ok := keyOf(part, nl); ok {
					keys.left, keys.right = append(keys.left, l), append(keys.right, shiftCols(r, -nl))
					continue
				}
				rest = append(rest, part)
			default:
				rest = append(rest, part)
			}
		}
	}
	if len(rf) > 0 {
		right = &Filter{Input: right, Pred: andAll(rf)}
	}
	if len(rest) == 0 {
		return right, rs, keys, nil, nil
	}
	return right, rs, keys, andAll(rest), nil
}

// keyOf reads outer.col = inner.col as a key pair.
func keyOf(s Scalar, nl int) (Scalar, Scalar, bool) {
	c, ok := s.(*Call)
	if !ok || c.Fn != "=" {
		return nil, nil, false
	}
	a, aok := c.Args[0].(*ColRef)
	r, rok := c.Args[1].(*ColRef)
	if !aok || !rok {
		return nil, nil, false
	}
	if a.Index >= nl {
		a, r = r, a
	}
	if a.Index >= nl || r.Index < nl {
		return nil, nil, false
	}
	return a, r, true
}

// shiftCols moves every column reference of s by d.
func shiftCols(s Scalar, d int) Scalar {
	return MapColRefs(s, func(c *ColRef) Scalar {
		x := *c
		x.Index += d
		return &x
	})
}

// corrScope resolves the names of a correlated subquery's WHERE: the
// subquery's own columns first (at len(outer) and on), then the outer
// query's.
type corrScope struct {
	outer, inner *relScope
}

// Resolve implements Scope.
func (s *corrScope) Resolve(table, column string) (int, types.Kind, error) {
	if s.inner.has(table, column) {
		i, k, err := s.inner.Resolve(table, column)
		return len(s.outer.cols) + i, k, err
	}
	return s.outer.Resolve(table, column)
}

// Aggregate implements Scope: no aggregates in a WHERE.
func (s *corrScope) Aggregate(*ast.AggregateFuncExpr) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in WHERE")
}

// has reports whether a column of s answers to table.column.
func (s *relScope) has(table, column string) bool {
	for _, c := range s.cols {
		if strings.EqualFold(c.name, column) && (table == "" && !c.hidden || strings.EqualFold(c.table, table)) {
			return true
		}
	}
	return false
}
