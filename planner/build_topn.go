package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// rankFuncs are the window functions a window Top-N computes.
var rankFuncs = map[string]bool{"row_number": true, "rank": true, "dense_rank": true}

// topNFrom finds the window Top-N shape in s's FROM: a single derived
// table whose select list has a ranking OVER call. ok is false when the
// shape is absent (the OVER call, if any, is then refused where bound).
func topNFrom(s *ast.SelectStmt) (*ast.TableSource, *ast.SelectStmt, int, bool) {
	if s.From == nil || s.From.TableRefs == nil || s.From.TableRefs.Right != nil {
		return nil, nil, 0, false
	}
	ts, ok := s.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, nil, 0, false
	}
	sub, ok := ts.Source.(*ast.SelectStmt)
	if !ok || sub.Fields == nil {
		return nil, nil, 0, false
	}
	for i, f := range sub.Fields.Fields {
		if _, ok := f.Expr.(*ast.WindowFuncExpr); ok {
			return ts, sub, i, true
		}
	}
	return nil, nil, 0, false
}

// windowTopN plans `SELECT … FROM (SELECT …, ROW_NUMBER() OVER
// (PARTITION BY window_start, window_end[, k…] ORDER BY …) AS rn FROM …)
// WHERE rn <= N` as a WindowTopN over the derived table, and the same
// with a partition that is not a window as a keyed TopN; rest is what
// remains of the outer WHERE. Anything else with OVER is refused (0A000)
// naming the construct.
func (b *builder) windowTopN(ts *ast.TableSource, sub *ast.SelectStmt, field int, where ast.ExprNode) (Node, *relScope, ast.ExprNode, error) {
	f := sub.Fields.Fields[field].Expr.(*ast.WindowFuncExpr)
	if b.adhoc {
		return nil, nil, nil, notSupported(f, "window functions (OVER) in ad-hoc queries are")
	}
	if err := checkRankCall(f); err != nil {
		return nil, nil, nil, err
	}
	name := sub.Fields.Fields[field].AsName.O
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	limit, rest, err := rankLimit(where, name, ts.AsName.O)
	if err != nil {
		return nil, nil, nil, err
	}
	ph := &Const{V: types.IntValue(0)}
	prevOver, prevPH := b.over, b.overConst
	b.over, b.overConst = f, ph
	in, _, err := b.selectStmt(sub)
	b.over, b.overConst = prevOver, prevPH
	if err != nil {
		return nil, nil, nil, err
	}
	n, err := topNNode(sub, in, f, ph, name, limit)
	if err != nil {
		return nil, nil, nil, err
	}
	return n, newRelScope(ts.AsName.O, n.Schema()), rest, nil
}

// checkRankCall refuses OVER calls a window Top-N cannot compute.
func checkRankCall(f *ast.WindowFuncExpr) error {
	fn := strings.ToLower(f.Name)
	switch {
	case !rankFuncs[fn]:
		return notSupported(f, "window function "+fn+"() OVER is")
	case f.Spec.Name.O != "" || f.Spec.Ref.O != "":
		return notSupported(f, "named windows (OVER w) are")
	case f.Spec.Frame != nil:
		return notSupported(f, "window frames (ROWS/RANGE BETWEEN) are")
	case f.Spec.OrderBy == nil || len(f.Spec.OrderBy.Items) == 0:
		return notSupported(f, fn+"() OVER without ORDER BY is")
	}
	return nil
}

// rankLimit finds the outer WHERE's bound on the rank column rn (rn <= N,
// rn < N, rn = 1, or the same with the constant first) and returns the
// smallest N and the other conjuncts.
func rankLimit(where ast.ExprNode, rn, alias string) (int64, ast.ExprNode, error) {
	limit := int64(-1)
	var rest ast.ExprNode
	for _, c := range conjuncts(where) {
		n, ok := rankBound(c, rn, alias)
		if !ok {
			rest = andExpr(rest, c)
			continue
		}
		if limit < 0 || n < limit {
			limit = n
		}
	}
	if limit < 0 {
		return 0, nil, sqlerr.New(sqlerr.FeatureNotSupport, "a ranking OVER needs a filter on %s in the outer WHERE (%s <= N, %s < N or %s = 1): without it nothing bounds the rows kept", rn, rn, rn, rn).
			WithHint("SELECT * FROM (SELECT …, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY …) AS " + rn + " FROM …) WHERE " + rn + " <= 3")
	}
	if limit < 1 {
		limit = 0
	}
	return limit, rest, nil
}

// rankBound reads one conjunct as a bound on rn.
func rankBound(c ast.ExprNode, rn, alias string) (int64, bool) {
	bo, ok := c.(*ast.BinaryOperationExpr)
	if !ok {
		return 0, false
	}
	op := bo.Op
	col, lit := bo.L, bo.R
	if !isRankCol(col, rn, alias) {
		col, lit = bo.R, bo.L
		switch op {
		case opcode.GE:
			op = opcode.LE
		case opcode.GT:
			op = opcode.LT
		case opcode.EQ:
		default:
			return 0, false
		}
	}
	if !isRankCol(col, rn, alias) {
		return 0, false
	}
	n, err := intLiteral(lit)
	if err != nil {
		return 0, false
	}
	switch op {
	case opcode.LE:
		return n, true
	case opcode.LT:
		return n - 1, true
	case opcode.EQ:
		return n, n == 1
	}
	return 0, false
}

// isRankCol reports whether e names the rank column.
func isRankCol(e ast.ExprNode, rn, alias string) bool {
	c, ok := e.(*ast.ColumnNameExpr)
	if !ok || !strings.EqualFold(c.Name.Name.O, rn) {
		return false
	}
	t := c.Name.Table.O
	return t == "" || strings.EqualFold(t, alias)
}

// andExpr is a AND b (b alone when a is nil).
func andExpr(a, b ast.ExprNode) ast.ExprNode {
	if a == nil {
		return b
	}
	return &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: a, R: b}
}

// topNNode builds the WindowTopN over in, the derived table planned with
// the OVER call as the placeholder ph, or a keyed TopN when the partition
// does not list both window_start and window_end.
func topNNode(sub *ast.SelectStmt, in Node, f *ast.WindowFuncExpr, ph *Const, name string, limit int64) (Node, error) {
	p, ok := in.(*Project)
	if !ok {
		return nil, notSupported(f, "this form of "+strings.ToLower(f.Name)+"() OVER is")
	}
	n := &WindowTopN{Input: in, Fn: strings.ToLower(f.Name), Limit: limit, RankName: name, RankCol: -1, StartCol: -1, EndCol: -1}
	for i, e := range p.Exprs {
		if e == ph {
			n.RankCol = i
		}
	}
	if n.RankCol < 0 {
		return nil, notSupported(f, "this form of "+n.Fn+"() OVER is")
	}
	var parts []*ast.ByItem
	if f.Spec.PartitionBy != nil {
		parts = f.Spec.PartitionBy.Items
	}
	for _, it := range parts {
		c, err := topNColumn(sub, in, it.Expr)
		if err != nil {
			return nil, err
		}
		n.Partition = append(n.Partition, c)
		switch windowBoundOf(in, c) {
		case "start":
			n.StartCol = c
		case "end":
			n.EndCol = c
		}
	}
	for _, it := range f.Spec.OrderBy.Items {
		c, err := topNColumn(sub, in, it.Expr)
		if err != nil {
			return nil, err
		}
		n.Order = append(n.Order, SortKey{Col: c, Desc: it.Desc})
	}
	if n.StartCol < 0 || n.EndCol < 0 {
		return &TopN{Input: in, Fn: n.Fn, Partition: n.Partition, Order: n.Order, Limit: limit, RankCol: n.RankCol, RankName: name}, nil
	}
	return n, nil
}

// topNColumn resolves a PARTITION BY or ORDER BY item of the OVER call to
// a column of the derived table: a column it outputs by that name, or a
// select-list expression written the same way.
func topNColumn(sub *ast.SelectStmt, in Node, e ast.ExprNode) (int, error) {
	if c, ok := e.(*ast.ColumnNameExpr); ok {
		s := in.Schema()
		found := -1
		for i, col := range s {
			if strings.EqualFold(col.Name, c.Name.Name.O) {
				if found >= 0 {
					return 0, sqlerr.New(sqlerr.AmbiguousColumn, "column reference %q in OVER is ambiguous", c.Name.Name.O)
				}
				found = i
			}
		}
		if found >= 0 {
			return found, nil
		}
	}
	text := nodeText(e)
	wild := false
	for i, f := range sub.Fields.Fields {
		wild = wild || f.WildCard != nil
		if !wild && f.Expr != nil && nodeText(f.Expr) == text {
			return i, nil
		}
	}
	return 0, sqlerr.New(sqlerr.FeatureNotSupport, "OVER (PARTITION BY / ORDER BY %s) is not supported: a Top-N ranks by columns of its select list", text).
		WithHint("add it to the derived table's select list")
}

// windowBoundOf says whether column c of n is a window's "start" or
// "end" over a watermark, following projections and filters down to the
// window TVF or window aggregate that made it ("" otherwise).
func windowBoundOf(n Node, c int) string {
	switch x := n.(type) {
	case *Project:
		if r, ok := x.Exprs[c].(*ColRef); ok {
			return windowBoundOf(x.Input, r.Index)
		}
	case *Filter:
		return windowBoundOf(x.Input, c)
	case *TemporalFilter:
		return windowBoundOf(x.Input, c)
	case *WindowAssign:
		w := len(x.Input.Schema())
		if x.Window.Kind == "session" || !TimeColumnOf(x.Input, x.Window.TimeCol) {
			return ""
		}
		return boundName(c-w, 0)
	case *Aggregate:
		// Before FuseWindowIntoAggregate: a window aggregate is an
		// Aggregate grouping by its WindowAssign's bounds.
		if c < len(x.GroupCols) {
			return windowBoundOf(x.Input, x.GroupCols[c])
		}
	case *WindowAggregate:
		if x.Window.Kind == "session" {
			return ""
		}
		return boundName(c, len(x.GroupCols))
	}
	return ""
}

// topNReadsTVF reports whether n ranks the rows of a window TVF (rather
// than a window aggregate's final rows): it then judges lateness itself.
func topNReadsTVF(n *WindowTopN) bool {
	var in Node = n.Input
	c := n.EndCol
	for {
		switch x := in.(type) {
		case *Project:
			r, ok := x.Exprs[c].(*ColRef)
			if !ok {
				return false
			}
			in, c = x.Input, r.Index
		case *Filter:
			in = x.Input
		case *TemporalFilter:
			in = x.Input
		case *WindowAssign:
			return true
		default:
			return false
		}
	}
}

// checkTopNLateData refuses a late-data policy a window Top-N over a
// window TVF cannot follow: its rows are final when the window closes,
// so a late row can only be dropped (and counted).
func checkTopNLateData(n Node, c Contract) error {
	var err error
	Transform(n, func(x Node) (Node, bool) {
		if t, ok := x.(*WindowTopN); ok && err == nil && topNReadsTVF(t) && c.Policy != lateness.Drop {
			err = sqlerr.New(sqlerr.FeatureNotSupport, "LATE DATA %s is not supported for a window Top-N over a window TVF: its rows are final at window close", c.Policy).
				WithHint("use LATE DATA DROP, or rank the rows of a window aggregate")
		}
		return x, false
	})
	return err
}

// boundName names column c given window_start's position at.
func boundName(c, at int) string {
	switch c {
	case at:
		return "start"
	case at + 1:
		return "end"
	}
	return ""
}
