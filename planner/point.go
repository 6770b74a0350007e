package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/parser"
)

// PointShape is the shape of a point read, `SELECT cols FROM rel WHERE
// k1 = $1 AND k2 = 'x' ...`: one relation, a select list of its columns,
// and conditions that each pin one column to a parameter or a constant,
// joined by AND. It is plain data: the engine matches it against the
// relation's key (engine/lookup.go); MatchPointShape knows nothing of
// the catalog.
type PointShape struct {
	Table string      // the relation, as written
	Items []PointItem // the select list, in order
	Conds []PointCond // the conditions, in order
}

// PointItem is one entry of a point read's select list: every column of
// the relation (Star), or Column, named As when As is not "".
type PointItem struct {
	Star   bool
	Column string
	As     string
}

// PointCond pins Column to the parameter $Param, or, when Param is 0, to
// the constant expression Const (a literal, a cast of one, a negated
// number), bound and ready to evaluate.
type PointCond struct {
	Column string
	Param  int
	Const  Scalar
}

// MatchPointShape returns the point read shape q has, or false when q is
// anything else: a join, a window, grouping, ordering, a limit, a WITH,
// a qualifier naming another relation, or a condition that is not
// column = parameter or column = constant.
func MatchPointShape(q *parser.QueryStmt) (PointShape, bool) {
	if len(q.Windows) > 0 {
		return PointShape{}, false
	}
	sel, ok := q.Select.(*ast.SelectStmt)
	if !ok || sel.From == nil || sel.Where == nil || sel.GroupBy != nil || sel.Having != nil || sel.OrderBy != nil ||
		sel.Limit != nil || sel.Distinct || sel.WindowSpecs != nil || sel.With != nil || sel.Fields == nil {
		return PointShape{}, false
	}
	tn, alias, ok := pointTable(sel.From.TableRefs)
	if !ok {
		return PointShape{}, false
	}
	qualOK := func(t ast.CIStr) bool {
		return t.L == "" || (alias != "" && t.L == alias) || (alias == "" && t.L == tn.Name.L)
	}
	p := PointShape{Table: tn.Name.O}
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			if f.WildCard.Schema.L != "" || (f.WildCard.Table.L != "" && !qualOK(f.WildCard.Table)) {
				return PointShape{}, false
			}
			p.Items = append(p.Items, PointItem{Star: true})
			continue
		}
		c, ok := f.Expr.(*ast.ColumnNameExpr)
		if !ok || c.Name.Schema.L != "" || !qualOK(c.Name.Table) {
			return PointShape{}, false
		}
		p.Items = append(p.Items, PointItem{Column: c.Name.Name.O, As: f.AsName.O})
	}
	for _, c := range conjuncts(sel.Where) {
		cond, ok := pointCond(c, qualOK)
		if !ok {
			return PointShape{}, false
		}
		p.Conds = append(p.Conds, cond)
	}
	return p, true
}

// pointTable returns the one table a point read's FROM names, and its
// alias in lower case.
func pointTable(j *ast.Join) (*ast.TableName, string, bool) {
	if j == nil || j.Right != nil {
		return nil, "", false
	}
	ts, ok := j.Left.(*ast.TableSource)
	if !ok {
		return nil, "", false
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok || tn.AsOf != nil || tn.Schema.L != "" {
		return nil, "", false
	}
	return tn, ts.AsName.L, true
}

// pointCond reads c as column = parameter or column = constant, either
// way round.
func pointCond(c ast.ExprNode, qualOK func(ast.CIStr) bool) (PointCond, bool) {
	b, ok := c.(*ast.BinaryOperationExpr)
	if !ok || b.Op != opcode.EQ {
		return PointCond{}, false
	}
	l, r := b.L, b.R
	if _, ok := l.(*ast.ColumnNameExpr); !ok || paramNumber(l) > 0 {
		l, r = r, l
	}
	col, ok := l.(*ast.ColumnNameExpr)
	if !ok || paramNumber(l) > 0 || col.Name.Schema.L != "" || !qualOK(col.Name.Table) {
		return PointCond{}, false
	}
	if n := paramNumber(r); n > 0 {
		return PointCond{Column: col.Name.Name.O, Param: n}, true
	}
	switch r.(type) {
	case ast.ValueExpr, *ast.FuncCastExpr, *ast.UnaryOperationExpr, *ast.ParenthesesExpr:
	default:
		return PointCond{}, false
	}
	s, err := BindScalar(r, noColumns{})
	if err != nil {
		return PointCond{}, false
	}
	return PointCond{Column: col.Name.Name.O, Const: s}, true
}
