package planner

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
)

// scalarSubqueriesOf returns the scalar subqueries `(SELECT …)` used as
// values in e, outermost first, leaving out those of IN, EXISTS and
// ANY/ALL tests (semi joins, or refused) and those inside another
// subquery (its own planning finds them).
func scalarSubqueriesOf(e ast.Node) []*ast.SubqueryExpr {
	if e == nil {
		return nil
	}
	c := &subqueryCollector{}
	e.Accept(c)
	return c.found
}

type subqueryCollector struct{ found []*ast.SubqueryExpr }

// Enter implements ast.Visitor.
func (c *subqueryCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		c.found = append(c.found, x)
		return n, true
	case *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		return n, true
	case *ast.PatternInExpr:
		if x.Sel != nil {
			x.Expr.Accept(c)
			return n, true
		}
	}
	return n, false
}

// Leave implements ast.Visitor.
func (c *subqueryCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// splitScalarConjuncts separates the conjuncts of where that use a scalar
// subquery (bound after the FROM's join is built, over its output) from
// the rest (which a comma join may take as its conditions).
func splitScalarConjuncts(where ast.ExprNode) (rest, scalar ast.ExprNode) {
	for _, c := range conjuncts(where) {
		if len(scalarSubqueriesOf(c)) > 0 {
			scalar = andExpr(scalar, c)
		} else {
			rest = andExpr(rest, c)
		}
	}
	return rest, scalar
}

// scalarSubqueries plans the uncorrelated scalar subqueries that where
// and the select list of s use as values. Each is planned on its own and
// joined to in with no key: an INNER join when it is an aggregate without
// GROUP BY (which always has exactly one row), a LEFT join when a HAVING
// may leave it without one (the value is then NULL, as in Postgres). Its
// one column is appended to the scope, hidden from `*`, and the binder
// reads the subquery as that column (scalarCols). When the subquery's
// value changes, the join retracts every row it formed with the old value
// and forms them again with the new one, so the view stays the batch
// answer; the join keeps every input row to do so (its state bound is the
// input's: STATE TTL, or the TABLEs' keys). A subquery that may yield
// more than one row is refused (Postgres fails at run time; we cannot know
// in advance), and so is a correlated one.
func (b *builder) scalarSubqueries(s *ast.SelectStmt, where ast.ExprNode, in Node, scope *relScope) (Node, *relScope, error) {
	subs := scalarSubqueriesOf(where)
	inList := scalarSubqueriesOf(s.Fields)
	if len(inList) > 0 && (len(collectAggs(s)) > 0 || s.GroupBy != nil) {
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "a scalar subquery in the select list of an aggregate query is not supported: %s", exprText(inList[0])).
			WithHint("aggregate in a derived table and compare with the subquery in the outer query")
	}
	if s.Having != nil {
		if h := scalarSubqueriesOf(s.Having); len(h) > 0 {
			return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "a scalar subquery in HAVING is not supported: %s", exprText(h[0])).
				WithHint("aggregate in a derived table and filter the outer query's WHERE with the subquery")
		}
	}
	subs = append(subs, inList...)
	for _, sq := range subs {
		right, _, err := b.resultSet(sq.Query)
		if err != nil {
			if sqlerr.Code(err) == sqlerr.UndefinedColumn {
				return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "correlated scalar subqueries are not supported: %s (%v)", exprText(sq), err).
					WithHint("join with the subquery grouped by the correlated columns in FROM")
			}
			return nil, nil, err
		}
		cols := right.Schema()
		if len(cols) != 1 {
			return nil, nil, sqlerr.New(sqlerr.SyntaxError, "subquery must return only one column: %s", exprText(sq))
		}
		if b.scalarCols == nil {
			b.scalarCols = map[*ast.SubqueryExpr]Scalar{}
		}
		if p, ok := right.(*Project); ok && isNoFrom(p.Input) {
			// (SELECT expr) without FROM is expr itself: no join.
			b.scalarCols[sq] = p.Exprs[0]
			continue
		}
		one, exactly := singleRow(right)
		if !one {
			return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "a scalar subquery that may return more than one row is not supported: %s", exprText(sq)).
				WithHint("aggregate it without GROUP BY (max, min, sum, count, avg), which yields exactly one row")
		}
		typ := InnerJoin
		if !exactly {
			typ = LeftOuterJoin
		}
		in = &Join{Left: in, Right: right, Type: typ, Kind: Unbounded, LeftTime: -1, RightTime: -1}
		idx := len(scope.cols)
		scope = scope.join(&relScope{cols: []scopeCol{{name: cols[0].Name, kind: cols[0].Type, hidden: true}}})
		b.scalarCols[sq] = &ColRef{Index: idx, Name: fmt.Sprintf("(subquery %d)", len(b.scalarCols)+1), T: cols[0].Type}
	}
	return in, scope, nil
}

// singleRow reports whether n yields at most one row (one), and whether
// exactly one (exactly): an aggregate without GROUP BY under projections
// has exactly one; a filter over it (HAVING) at most one.
func singleRow(n Node) (one, exactly bool) {
	exactly = true
	for {
		switch x := n.(type) {
		case *Project:
			n = x.Input
		case *Filter:
			n, exactly = x.Input, false
		case *Aggregate:
			return len(x.GroupCols) == 0, exactly && len(x.GroupCols) == 0
		case *ProjectSet:
			return isNoFrom(x), exactly && isNoFrom(x)
		default:
			return false, false
		}
	}
}

// isNoFrom reports whether n is the one empty row of a SELECT without
// FROM (noFrom).
func isNoFrom(n Node) bool {
	p, ok := n.(*ProjectSet)
	return ok && p.Input == nil && len(p.Calls) == 0 && p.Outer
}
