package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// distinctOver plans SELECT DISTINCT exprs over in as GROUP BY every
// output column: an Aggregate without aggregate calls (behind a
// projection computing the expressions that are not plain columns) and
// the select list over its groups. It is the shape GROUP BY plans, so a
// DISTINCT over a window TVF that lists window_start or window_end fuses
// into a WindowAggregate, and any other one is an Aggregate that strict
// mode bounds by STATE TTL. Groups compare NULLs as one value.
func distinctOver(in Node, exprs []Scalar, names []string) Node {
	inSchema := in.Schema()
	var extras []Scalar
	agg := &Aggregate{}
	groupOf := map[int]int{} // input column -> group position
	pos := make([]int, len(exprs))
	for i, e := range exprs {
		col := -1
		if r, ok := e.(*ColRef); ok {
			col = r.Index
		} else {
			extras = append(extras, e)
			col = len(inSchema) + len(extras) - 1
		}
		g, ok := groupOf[col]
		if !ok {
			g = len(agg.GroupCols)
			groupOf[col] = g
			agg.GroupCols = append(agg.GroupCols, col)
			agg.Names = append(agg.Names, names[i])
		}
		pos[i] = g
	}
	in = withExtraColumns(in, inSchema, extras)
	agg.Input = in
	gs := agg.Schema()
	out := &Project{Input: agg}
	for i, g := range pos {
		out.Exprs = append(out.Exprs, &ColRef{Index: g, Name: gs[g].Name, T: gs[g].Type})
		out.Names = append(out.Names, names[i])
	}
	return out
}

// distinctAll is DISTINCT over every column of n (UNION's distinct step).
func distinctAll(n Node) Node {
	s := n.Schema()
	exprs := make([]Scalar, len(s))
	for i, c := range s {
		exprs[i] = &ColRef{Index: i, Name: c.Name, T: c.Type}
	}
	return distinctOver(n, exprs, s.Names())
}

// distinctUnion is UNION's distinct step over the Union n. Groups
// compare values (1.0 and 1.00 are one value), and Postgres keeps the
// representation of the first row it reads, its inputs read in order:
// when a column has kinds whose equal values print differently (DECIMAL
// by its scale, DOUBLE's -0 and 0), each input gets its number as a
// hidden rank column and the Aggregate keeps each group's values from its
// first row of the lowest rank (Aggregate.Ranked), whatever order the
// inputs' rows arrive in. The rank's min is the group's one extra state.
func distinctUnion(n Node) Node {
	u, ok := n.(*Union)
	s := n.Schema()
	if !ok || !hasRepresentations(s) {
		return distinctAll(n)
	}
	ranked := &Union{Inputs: make([]Node, len(u.Inputs))}
	for i, in := range u.Inputs {
		ranked.Inputs[i] = appendColumns(in, in.Schema(), []Scalar{&Const{V: types.IntValue(int64(i))}}, []string{"_rank"})
	}
	exprs := make([]Scalar, len(s))
	for i, c := range s {
		exprs[i] = &ColRef{Index: i, Name: c.Name, T: c.Type}
	}
	out := distinctOver(ranked, exprs, s.Names()).(*Project)
	agg := *out.Input.(*Aggregate)
	agg.Aggs = append(agg.Aggs, AggCall{Fn: "min", Arg: len(s), Name: "_rank", T: types.Int})
	agg.Names = append(agg.Names, "_rank")
	agg.Ranked = true
	out.Input = &agg
	return out
}

// hasRepresentations reports whether a column of s has a kind whose
// equal values may print differently.
func hasRepresentations(s types.Schema) bool {
	for _, c := range s {
		if c.Type == types.Decimal || c.Type == types.Float {
			return true
		}
	}
	return false
}

// setOpr plans a UNION [ALL] statement: its ORDER BY and LIMIT (ad hoc
// only) apply to the whole result.
func (b *builder) setOpr(s *ast.SetOprStmt) (Node, *relScope, error) {
	if s.With != nil {
		restore, err := b.pushWith(s.With)
		if err != nil {
			return nil, nil, err
		}
		defer restore()
	}
	out, err := b.setOprList(s.SelectList)
	if err != nil {
		return nil, nil, err
	}
	if out, err = b.setOprOrderLimit(out, s.OrderBy, s.Limit); err != nil {
		return nil, nil, err
	}
	return out, newRelScope("", out.Schema()), nil
}

// setOprOrderLimit applies a set operation's ORDER BY and LIMIT, which
// name its output columns.
func (b *builder) setOprOrderLimit(out Node, ob *ast.OrderByClause, lim *ast.Limit) (Node, error) {
	if ob == nil && lim == nil {
		return out, nil
	}
	s := out.Schema()
	exprs := make([]Scalar, len(s))
	for i, c := range s {
		exprs[i] = &ColRef{Index: i, Name: c.Name, T: c.Type}
	}
	return b.orderLimit(&ast.SelectStmt{OrderBy: ob, Limit: lim}, out, nil, exprs)
}

// setOprList folds a list of selects joined by set operators left to
// right, as Postgres does for UNION and UNION ALL.
func (b *builder) setOprList(l *ast.SetOprSelectList) (Node, error) {
	if l.With != nil {
		restore, err := b.pushWith(l.With)
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	var out Node
	for i, item := range l.Selects {
		n, op, err := b.setOprItem(item)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out = n
			continue
		}
		if op == nil || (*op != ast.Union && *op != ast.UnionAll) {
			name := "set operation"
			if op != nil {
				name = strings.ToUpper(op.String())
			}
			return nil, sqlerr.New(sqlerr.FeatureNotSupport, "%s is not supported; only UNION and UNION ALL are", name)
		}
		if out, err = unionOf(out, n, b.zone); err != nil {
			return nil, err
		}
		if *op == ast.Union {
			out = distinctUnion(out)
		}
	}
	return b.setOprOrderLimit(out, l.OrderBy, l.Limit)
}

// setOprItem plans one operand of a set operation and returns the
// operator before it.
func (b *builder) setOprItem(item ast.Node) (Node, *ast.SetOprType, error) {
	switch x := item.(type) {
	case *ast.SelectStmt:
		n, _, err := b.selectStmt(x)
		return n, x.AfterSetOperator, err
	case *ast.SetOprSelectList:
		n, err := b.setOprList(x)
		return n, x.AfterSetOperator, err
	}
	return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "unsupported set operand %T", item)
}

// unionOf is UNION ALL of l and r (l may already be a Union, which grows
// by one input): the column counts must agree, and each column's kinds
// are unified as Postgres does, casting the inputs that differ.
func unionOf(l, r Node, zone string) (Node, error) {
	ls, rs := l.Schema(), r.Schema()
	if len(ls) != len(rs) {
		return nil, sqlerr.New(sqlerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	kinds := make([]types.Kind, len(ls))
	for i := range ls {
		k, ok := unionKind(ls[i].Type, rs[i].Type)
		if !ok {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "UNION types %s and %s cannot be matched",
				strings.ToLower(ls[i].Type.String()), strings.ToLower(rs[i].Type.String())).
				WithHint("cast one side: column " + itoa(i+1) + " (" + ls[i].Name + ")")
		}
		kinds[i] = k
	}
	var inputs []Node
	if u, ok := l.(*Union); ok {
		for _, in := range u.Inputs {
			inputs = append(inputs, unionCast(in, kinds, ls.Names(), zone))
		}
	} else {
		inputs = append(inputs, unionCast(l, kinds, ls.Names(), zone))
	}
	inputs = append(inputs, unionCast(r, kinds, ls.Names(), zone))
	return &Union{Inputs: inputs}, nil
}

// unionKind is the kind two UNION columns meet in: the same kind, the
// other when one is an untyped NULL, Decimal or Float between numeric
// kinds, TIMESTAMP for DATE with TIMESTAMP, TIMESTAMPTZ with either.
func unionKind(a, b types.Kind) (types.Kind, bool) {
	switch {
	case a == b:
		return a, true
	case a == types.Null:
		return b, true
	case b == types.Null:
		return a, true
	case isNumeric(a) && isNumeric(b):
		return unifyNumeric(a, b), true
	case (a == types.Date && b == types.Timestamp) || (a == types.Timestamp && b == types.Date):
		return types.Timestamp, true
	case (a == types.TimestampTZ && (b == types.Timestamp || b == types.Date)) || (b == types.TimestampTZ && (a == types.Timestamp || a == types.Date)):
		return types.TimestampTZ, true
	}
	return a, false
}

// unionCast projects n's columns to kinds under names; n itself when it
// has them already (and the names, or is not the first input). A cast
// between TIMESTAMPTZ and a zone-less kind reads the wall clock in zone
// (the session's or view's TimeZone, "" for UTC), as Postgres does.
func unionCast(n Node, kinds []types.Kind, names []string, zone string) Node {
	s := n.Schema()
	same := true
	for i, c := range s {
		same = same && c.Type == kinds[i]
	}
	if same {
		return n
	}
	p := &Project{Input: n}
	for i, c := range s {
		var e Scalar = &ColRef{Index: i, Name: c.Name, T: c.Type}
		if c.Type != kinds[i] {
			cast := &Cast{Arg: e, To: kinds[i]}
			if zoneCast(c.Type, kinds[i]) {
				cast.Zone = zone
			}
			e = cast
		}
		p.Exprs = append(p.Exprs, e)
		p.Names = append(p.Names, names[i])
	}
	return p
}
