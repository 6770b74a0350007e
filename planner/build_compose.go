package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// cteScope is one common table expression of a WITH clause in scope: its
// definition and the scope it was defined in (the CTEs before it and the
// enclosing queries' ones), which its body is built in. The chain runs
// from the innermost, latest definition outwards.
type cteScope struct {
	name  string
	def   *ast.CommonTableExpression
	env   *cteScope // the scope the body sees
	outer *cteScope // the next definition to search
}

// pushWith brings the CTEs of w into scope for the statement that owns
// it; the returned function restores the scope before it. Each CTE sees
// the ones listed before it, as in Postgres; a name used twice in one
// WITH is an error.
func (b *builder) pushWith(w *ast.WithClause) (func(), error) {
	saved := b.ctes
	if w.IsRecursive {
		return nil, sqlerr.New(sqlerr.FeatureNotSupport, "WITH RECURSIVE is not supported")
	}
	seen := map[string]bool{}
	for _, c := range w.CTEs {
		name := strings.ToLower(c.Name.O)
		if seen[name] {
			b.ctes = saved
			return nil, sqlerr.New(sqlerr.DuplicateAlias, "WITH query name %q specified more than once", c.Name.O)
		}
		seen[name] = true
		b.ctes = &cteScope{name: name, def: c, env: b.ctes, outer: b.ctes}
	}
	return func() { b.ctes = saved }, nil
}

// lookupCTE finds the CTE that name refers to, innermost first.
func (b *builder) lookupCTE(name string) *cteScope {
	name = strings.ToLower(name)
	for c := b.ctes; c != nil; c = c.outer {
		if c.name == name {
			return c
		}
	}
	return nil
}

// inlineCTE plans a reference to a CTE: its body is built afresh at each
// use, in the scope it was defined in, so a CTE used twice is two
// identical subtrees, which ShareIdenticalSubplans then computes once.
// A column list renames the body's first columns, as in Postgres.
func (b *builder) inlineCTE(c *cteScope, alias string) (Node, *relScope, error) {
	saved := b.ctes
	b.ctes = c.env
	n, _, err := b.resultSet(c.def.Query.Query)
	b.ctes = saved
	if err != nil {
		return nil, nil, err
	}
	if n, err = renameColumns(n, c.def.ColNameList, "WITH query", c.def.Name.O); err != nil {
		return nil, nil, err
	}
	if alias == "" {
		alias = c.def.Name.O
	}
	return n, newRelScope(alias, n.Schema()), nil
}

// renameColumns gives the first len(names) columns of n the names (n
// when there are none); more names than columns is an error naming the
// relation (what, name).
func renameColumns(n Node, names []ast.CIStr, what, name string) (Node, error) {
	if len(names) == 0 {
		return n, nil
	}
	s := n.Schema()
	if len(names) > len(s) {
		return nil, sqlerr.New(sqlerr.InvalidColumnReference, "%s %q has %d columns available but %d columns specified", what, name, len(s), len(names))
	}
	p := &Project{Input: n}
	for i, c := range s {
		out := c.Name
		if i < len(names) {
			out = names[i].O
		}
		p.Exprs = append(p.Exprs, &ColRef{Index: i, Name: c.Name, T: c.Type})
		p.Names = append(p.Names, out)
	}
	return p, nil
}

// windowInput plans the relation a window TVF reads: a subquery
// (`TUMBLE((SELECT …), ts, …)`), a CTE or a catalog relation. A
// subquery or CTE is inlined, so the source's watermark column reaches
// the window through its projections and filters.
func (b *builder) windowInput(w *parser.WindowTVFClause) (Node, error) {
	if w.Query != nil {
		for _, inner := range w.Query.Windows {
			b.windows[strings.ToLower(inner.Placeholder)] = inner
		}
		n, _, err := b.resultSet(w.Query.Select)
		return n, err
	}
	if c := b.lookupCTE(w.Source); c != nil {
		n, _, err := b.inlineCTE(c, "")
		return n, err
	}
	o, ok := b.cat.Get(w.Source)
	if !ok {
		return nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", w.Source)
	}
	return b.relation(o)
}

// relation plans a read of catalog object o: a view that is not
// materialized is inlined, anything else scanned.
func (b *builder) relation(o *catalog.Object) (Node, error) {
	if o.Kind == catalog.PlainView {
		return b.inlineView(o)
	}
	return b.scan(o)
}

// inlineView plans view o (CREATE VIEW) where it is read: its stored
// query is parsed and built as a subquery would be, with its own window
// placeholders and without the reader's CTEs in scope, in the reader's
// time zone. The source's watermark therefore reaches a window over the
// view, and strict mode judges the state the view's query needs in the
// plan that reads it.
func (b *builder) inlineView(o *catalog.Object) (Node, error) {
	q, err := PlainViewQuery(o)
	if err != nil {
		return nil, err
	}
	sub := &builder{cat: b.cat, windows: map[string]*parser.WindowTVFClause{}, adhoc: b.adhoc, zone: b.zone, fns: b.fns, emit: b.emit}
	for _, w := range q.Windows {
		sub.windows[strings.ToLower(w.Placeholder)] = w
	}
	n, _, err := sub.resultSet(q.Select)
	b.used = append(b.used, sub.used...)
	b.views = append(append(b.views, o.Name), sub.views...)
	return n, err
}

// PlainViewQuery parses the query of view o (a PlainView) from its DDL.
func PlainViewQuery(o *catalog.Object) (*parser.QueryStmt, error) {
	stmts, err := parser.Parse(o.SQL)
	if err != nil {
		return nil, fmt.Errorf("view %s: %w", o.Name, err)
	}
	if len(stmts) == 1 {
		if s, ok := stmts[0].(*parser.CreatePlainViewStmt); ok {
			return s.Query, nil
		}
	}
	return nil, sqlerr.New(sqlerr.InternalError, "view %s: stored DDL is not CREATE VIEW", o.Name)
}

// PlanPlainView checks CREATE VIEW: its query must plan, as the body of
// a materialized view (over sources) or else as an ad-hoc query (over
// materialized views and tables); strict mode's bounds are judged where
// it is read. It returns the view's columns and every relation the
// query reads, at any depth (views that are not materialized included).
func PlanPlainView(s *parser.CreatePlainViewStmt, cat Resolver, zone string) (types.Schema, []string, error) {
	n, deps, err := buildQuery(s.Query, cat, false, zone)
	if err != nil {
		var adhocErr error
		if n, deps, adhocErr = buildQuery(s.Query, cat, true, zone); adhocErr != nil {
			return nil, nil, err
		}
	}
	schema := n.Schema()
	for i, c := range schema {
		if schema.Index(c.Name) != i {
			return nil, nil, sqlerr.New(sqlerr.DuplicateColumn, "column %q specified more than once", c.Name)
		}
	}
	reads := deps.views
	Transform(n, func(x Node) (Node, bool) {
		if sc, ok := x.(*Scan); ok {
			reads = append(reads, sc.Name)
		}
		return x, false
	})
	return schema, distinctNames(reads), nil
}

// windowSourceName names a window's input in errors.
func windowSourceName(w *parser.WindowTVFClause) string {
	if w.Query != nil {
		return "the windowed subquery"
	}
	return w.Source
}

// usingJoin plans `l JOIN r USING (k, …)` as Postgres defines it: the
// join on l.k = r.k for each listed column, whose output lists each
// merged column k once, first, then the other columns of l and of r.
// An unqualified k names the merged column; l.k and r.k (and l.*, r.*)
// still reach the sides' own columns.
func (b *builder) usingJoin(j *ast.Join, where ast.ExprNode) (Node, *relScope, error) {
	_, ls, err := b.resultSet(j.Left)
	if err != nil {
		return nil, nil, err
	}
	_, rs, err := b.resultSet(j.Right)
	if err != nil {
		return nil, nil, err
	}
	var on []ast.ExprNode
	var li, ri []int
	seen := map[string]bool{}
	for _, u := range j.Using {
		k := u.Name.O
		if seen[strings.ToLower(k)] {
			return nil, nil, sqlerr.New(sqlerr.DuplicateColumn, "column name %q appears more than once in USING clause", k)
		}
		seen[strings.ToLower(k)] = true
		l, err := usingSide(ls, k, "left")
		if err != nil {
			return nil, nil, err
		}
		r, err := usingSide(rs, k, "right")
		if err != nil {
			return nil, nil, err
		}
		li, ri = append(li, l), append(ri, r)
		on = append(on, &ast.BinaryOperationExpr{Op: opcode.EQ,
			L: qualifiedColumn(ls.cols[l]), R: qualifiedColumn(rs.cols[r])})
	}
	cond := on[0]
	for _, c := range on[1:] {
		cond = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: cond, R: c}
	}
	inner := *j
	inner.Using = nil
	inner.On = &ast.OnCondition{Expr: cond}
	n, scope, err := b.join(&inner, where)
	if err != nil {
		return nil, nil, err
	}
	return usingProject(n, scope, li, ri, len(ls.cols))
}

// usingSide finds the USING column k on one side: it must be there once.
func usingSide(s *relScope, k, side string) (int, error) {
	found := -1
	for i, c := range s.cols {
		if c.hidden || !strings.EqualFold(c.name, k) {
			continue
		}
		if found >= 0 {
			return 0, sqlerr.New(sqlerr.AmbiguousColumn, "common column name %q appears more than once in %s table", k, side)
		}
		found = i
	}
	if found < 0 {
		return 0, sqlerr.New(sqlerr.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", k, side)
	}
	return found, nil
}

// qualifiedColumn is a reference to c by its qualified name.
func qualifiedColumn(c scopeCol) *ast.ColumnNameExpr {
	return &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(c.table), Name: ast.NewCIStr(c.name)}}
}

// usingProject puts the merged USING columns (the left side's values:
// the inner join's keys are equal) before the join's columns, which it
// hides from unqualified names where a merged column stands for them.
func usingProject(n Node, scope *relScope, li, ri []int, nl int) (Node, *relScope, error) {
	p := &Project{Input: n}
	out := &relScope{}
	hide := map[int]bool{}
	for k, l := range li {
		c := scope.cols[l]
		p.Exprs = append(p.Exprs, &ColRef{Index: l, Name: c.qualified(), T: c.kind})
		p.Names = append(p.Names, c.name)
		out.cols = append(out.cols, scopeCol{name: c.name, kind: c.kind})
		hide[l], hide[nl+ri[k]] = true, true
	}
	for i, c := range scope.cols {
		p.Exprs = append(p.Exprs, &ColRef{Index: i, Name: c.qualified(), T: c.kind})
		p.Names = append(p.Names, c.name)
		c.hidden = c.hidden || hide[i]
		out.cols = append(out.cols, c)
	}
	return p, out, nil
}
