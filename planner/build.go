package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Resolver looks up catalog objects by name.
type Resolver interface {
	Get(name string) (*catalog.Object, bool)
}

// SchemaResolver is a Resolver that owns schemas (the engine's
// streamsql_catalog): a name qualified by one of them is looked up as
// schema.name only, never as the bare name (other schemas are ignored:
// objects live in one namespace).
type SchemaResolver interface {
	Resolver
	OwnsSchema(schema string) bool
}

// builder turns a TiDB SELECT (with our window placeholders) into a
// logical plan.
type builder struct {
	cat     Resolver
	windows map[string]*parser.WindowTVFClause
	adhoc   bool   // an ad-hoc query over view snapshots (not a view body)
	zone    string // the TimeZone expressions bind in ("" is UTC)
	fns     FunctionResolver
	params  []types.Value // the $n values (ParamResolver)
	used    []string      // SQL functions inlined, in order, with repeats
	// srf collects the set-returning calls of the SELECT list being bound
	// (nil elsewhere: a call is refused); clause names the clause being
	// bound for that refusal.
	srf    *setCollector
	clause string
	// ctes are the WITH queries in scope (build_compose.go).
	ctes *cteScope
	// views are the views that are not materialized inlined, in order,
	// with repeats.
	views []string
	// over is the ranking OVER call of the derived table a window Top-N
	// is planning (build_topn.go), bound as overConst, its placeholder.
	over      *ast.WindowFuncExpr
	overConst *Const
	// overCols binds the running-aggregate OVER calls an OverAggregate
	// computes to its output columns (build_over.go).
	overCols map[*ast.WindowFuncExpr]Scalar
	// scalarCols binds the scalar subqueries planned as joins to their
	// columns (build_scalar_subquery.go).
	scalarCols map[*ast.SubqueryExpr]Scalar
	// emit is the view's EMIT mode ("on_window_close" makes running
	// aggregates final; build_over.go).
	emit string
}

// bindScalar binds e over scope in the query's time zone, inlining the
// catalog's SQL functions.
func (b *builder) bindScalar(e ast.ExprNode, scope Scope) (Scalar, error) {
	bd := &binder{scope: scope, params: b.params, zone: b.zone, fns: b.fns, used: &b.used, srf: b.srf, clause: b.clause, over: b.over, overConst: b.overConst, overCols: b.overCols, scalarCols: b.scalarCols}
	s, err := bd.bind(e)
	if err != nil {
		return nil, err
	}
	return bd.zoned(s)
}

// nodeText renders a TiDB node back to canonical SQL text; used to match
// identical expressions (aggregates, group keys).
func nodeText(n ast.Node) string {
	var b strings.Builder
	ctx := format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreKeyWordLowercase|format.RestoreNameLowercase, &b)
	if err := n.Restore(ctx); err != nil {
		return ""
	}
	return b.String()
}

// BuildQuery plans a query. With adhoc, relations are read as snapshots
// (views and tables) and ORDER BY / LIMIT are allowed.
func BuildQuery(q *parser.QueryStmt, cat Resolver, adhoc bool, zone string) (Node, error) {
	n, _, err := buildQuery(q, cat, adhoc, zone)
	return n, err
}

// queryDeps are what a query reads besides its plan's scans: the SQL
// functions and the views that are not materialized it inlined (each
// once, in the order first met).
type queryDeps struct {
	functions, views []string
}

// buildQuery is BuildQuery that also returns what the query inlined.
func buildQuery(q *parser.QueryStmt, cat Resolver, adhoc bool, zone string) (Node, queryDeps, error) {
	return buildViewQuery(q, cat, adhoc, zone, "")
}

// buildViewQuery is buildQuery for a view whose EMIT mode is emit
// (Contract.Emit; the running aggregates' form depends on it).
func buildViewQuery(q *parser.QueryStmt, cat Resolver, adhoc bool, zone, emit string) (Node, queryDeps, error) {
	b := &builder{cat: cat, windows: map[string]*parser.WindowTVFClause{}, adhoc: adhoc, zone: zone, fns: functionsOf(cat), params: paramsOf(cat), emit: emit}
	for _, w := range q.Windows {
		b.windows[strings.ToLower(w.Placeholder)] = w
	}
	n, _, err := b.resultSet(q.Select)
	return n, queryDeps{functions: distinctNames(b.used), views: distinctNames(b.views)}, err
}

// distinctNames is names without repeats (case-insensitive), in order.
func distinctNames(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range names {
		if k := strings.ToLower(f); !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

func (b *builder) resultSet(rs ast.ResultSetNode) (Node, *relScope, error) {
	switch s := rs.(type) {
	case *ast.SelectStmt:
		return b.selectStmt(s)
	case *ast.SetOprStmt:
		return b.setOpr(s)
	case *ast.TableSource:
		return b.tableSource(s)
	case *ast.Join:
		return b.join(s, nil)
	}
	return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "unsupported FROM item %T", rs)
}

func (b *builder) tableSource(ts *ast.TableSource) (Node, *relScope, error) {
	alias := ts.AsName.O
	if _, _, ok := parser.SetFuncOf(ts); ok {
		return b.setFrom(ts, nil, nil, false)
	}
	switch src := ts.Source.(type) {
	case *ast.TableName:
		if src.AsOf != nil {
			return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "FOR SYSTEM_TIME AS OF is supported on the right side of a JOIN only").
				WithHint("write stream [LEFT] JOIN table FOR SYSTEM_TIME AS OF stream.ts AS t ON ...")
		}
		if src.Schema.O != "" {
			if n, sc, ok, err := b.qualifiedName(src.Schema.O, src.Name.O, alias); ok {
				return n, sc, err
			}
			if o, ok := b.cat.(SchemaResolver); ok && o.OwnsSchema(src.Schema.O) {
				return nil, nil, sqlerr.New(sqlerr.UndefinedTable, "relation \"%s.%s\" does not exist", src.Schema.O, src.Name.O)
			}
		}
		n, sc, err := b.tableName(src.Name.O, alias)
		return n, sc, err
	case *ast.SelectStmt, *ast.SetOprStmt:
		n, _, err := b.resultSet(src)
		if err != nil {
			return nil, nil, err
		}
		return n, newRelScope(alias, n.Schema()), nil
	case *ast.Join:
		return b.join(src, nil)
	}
	return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "unsupported FROM item %T", ts.Source)
}

// qualifiedName plans schema.name when the resolver knows it by that
// name (the engine's streamsql_catalog system tables); ok is false
// otherwise, and the schema is ignored as before (objects live in one
// namespace).
func (b *builder) qualifiedName(schema, name, alias string) (Node, *relScope, bool, error) {
	o, ok := b.cat.Get(schema + "." + name)
	if !ok {
		return nil, nil, false, nil
	}
	if alias == "" {
		alias = name
	}
	n, err := b.scan(o)
	if err != nil {
		return nil, nil, true, err
	}
	return n, newRelScope(alias, n.Schema()), true, nil
}

// tableName plans a relation reference: a window placeholder, a source, a
// table or a view.
func (b *builder) tableName(name, alias string) (Node, *relScope, error) {
	if w, ok := b.windows[strings.ToLower(name)]; ok {
		return b.windowTVF(w, alias)
	}
	if c := b.lookupCTE(name); c != nil {
		return b.inlineCTE(c, alias)
	}
	if alias == "" {
		alias = name
	}
	o, ok := b.cat.Get(name)
	if !ok {
		return nil, nil, sqlerr.New(sqlerr.UndefinedTable, "relation %q does not exist", name)
	}
	n, err := b.relation(o)
	if err != nil {
		return nil, nil, err
	}
	return n, newRelScope(alias, n.Schema()), nil
}

func (b *builder) scan(o *catalog.Object) (Node, error) {
	sc := &Scan{Name: o.Name, Out: o.Schema, TimeCol: -1}
	for i := range o.Schema {
		sc.Cols = append(sc.Cols, i)
	}
	switch o.Kind {
	case catalog.Source:
		if b.adhoc {
			return nil, sqlerr.New(sqlerr.FeatureNotSupport, "cannot query source %q directly", o.Name).
				WithHint("create a materialized view over it and query the view")
		}
		sc.Kind = ScanSource
		sc.TimeCol, sc.Delay = o.TimeCol, o.Delay
		sc.Key = o.Key
		sc.Clock = o.Clock(o.TimeCol)
	case catalog.Table:
		sc.Kind = ScanTable
		if !b.adhoc {
			if o.DeadLetter || o.SideOf != "" {
				return nil, sqlerr.New(sqlerr.FeatureNotSupport, "views over table %q are not supported yet", o.Name).
					WithHint("a dead-letter or side table can be queried, or delivered with CREATE SINK ... FROM it")
			}
			// A view reads the table's changelog: an upsert of a key
			// retracts the row it replaces, a delete retracts the row;
			// a versioned TABLE's WATERMARK FOR column carries the
			// table's watermark (its version time).
			sc.Retracting = true
			sc.TimeCol, sc.Delay = o.TimeCol, o.Delay
		}
	case catalog.View:
		sc.Kind = ScanView
		if !b.adhoc {
			// A view reads the view's changelog: its rows (inserts, and
			// deletes when it retracts) and its output watermark.
			sc.TimeCol, sc.Retracting, sc.BoundBy = o.TimeCol, o.Retracting, o.BoundBy
		}
	default:
		return nil, sqlerr.New(sqlerr.UndefinedTable, "%s %q cannot be read", o.Kind, o.Name)
	}
	return sc, nil
}

// windowTVF plans TUMBLE/HOP/SESSION(src, col, ...) as a WindowAssign
// over a scan of src.
func (b *builder) windowTVF(w *parser.WindowTVFClause, alias string) (Node, *relScope, error) {
	in, err := b.windowInput(w)
	if err != nil {
		return nil, nil, err
	}
	tc := in.Schema().Index(w.TimeColumn)
	if tc < 0 {
		return nil, nil, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist in %s", w.TimeColumn, windowSourceName(w))
	}
	if in.Schema()[tc].Type != types.Timestamp {
		return nil, nil, sqlerr.New(sqlerr.DatatypeMismatch, "window time column %q must be a TIMESTAMP", w.TimeColumn)
	}
	spec := WindowSpec{TimeCol: tc, Size: w.Size, Slide: w.Slide, Gap: w.Gap}
	switch w.Kind {
	case parser.Tumble:
		spec.Kind = "tumble"
		spec.Slide = w.Size
	case parser.Hop:
		spec.Kind = "hop"
		if w.Slide <= 0 || w.Size <= 0 || w.Size%w.Slide != 0 {
			return nil, nil, sqlerr.New(sqlerr.InvalidParameter, "HOP size must be a positive multiple of the slide")
		}
	case parser.Session:
		spec.Kind = "session"
		if w.Gap <= 0 {
			return nil, nil, sqlerr.New(sqlerr.InvalidParameter, "SESSION gap must be positive")
		}
	}
	if spec.Kind != "session" && spec.Size <= 0 {
		return nil, nil, sqlerr.New(sqlerr.InvalidParameter, "window size must be positive")
	}
	n := &WindowAssign{Input: in, Window: spec}
	if alias == "" && w.Query == nil {
		alias = w.Source
	}
	return n, newRelScope(alias, n.Schema()), nil
}

// conjuncts splits an AND tree.
func conjuncts(e ast.ExprNode) []ast.ExprNode {
	if e == nil {
		return nil
	}
	if p, ok := e.(*ast.ParenthesesExpr); ok {
		return conjuncts(p.Expr)
	}
	if bo, ok := e.(*ast.BinaryOperationExpr); ok && bo.Op == opcode.LogicAnd {
		return append(conjuncts(bo.L), conjuncts(bo.R)...)
	}
	return []ast.ExprNode{e}
}

// andAll joins scalars with AND (nil for none).
func andAll(s []Scalar) Scalar {
	var out Scalar
	for _, x := range s {
		if out == nil {
			out = x
		} else {
			out = &Call{Fn: "and", Args: []Scalar{out, x}, T: types.Bool}
		}
	}
	return out
}

// noFrom is the relation a SELECT without FROM reads: one row without
// columns (Postgres's `SELECT 1`), a ProjectSet with neither input nor
// calls that keeps its empty input row (Outer). Only ad-hoc queries run
// it; a view over it is refused when its pipeline is built.
func noFrom() Node { return &ProjectSet{Outer: true} }

// selectStmt plans FROM, WHERE, GROUP BY/aggregates, HAVING, the select
// list, and (ad hoc) ORDER BY and LIMIT.
func (b *builder) selectStmt(s *ast.SelectStmt) (Node, *relScope, error) {
	if s.With != nil {
		restore, err := b.pushWith(s.With)
		if err != nil {
			return nil, nil, err
		}
		defer restore()
	}
	var (
		in    Node
		scope *relScope
		err   error
	)
	where, subs := splitSubqueries(s.Where)
	if s.From != nil {
		if j, ok := s.From.TableRefs.Left.(*ast.Join); ok && s.From.TableRefs.Right == nil {
			s.From.TableRefs = j
		}
	}
	if s.From == nil {
		in, scope = noFrom(), &relScope{}
	} else if ts, sub, field, ok := topNFrom(s); ok {
		in, scope, where, err = b.windowTopN(ts, sub, field, where)
	} else if s.From.TableRefs.Right != nil && s.From.TableRefs.Tp != ast.CrossJoin {
		// An outer join's WHERE filters its output, NULL-padded rows
		// included: it is not pushed into the ON condition.
		in, scope, err = b.join(s.From.TableRefs, nil)
	} else if s.From.TableRefs.Right != nil {
		// A comma join takes WHERE as its conditions, but for the
		// conjuncts that read a scalar subquery (joined after it).
		rest, scalar := splitScalarConjuncts(where)
		in, scope, err = b.join(s.From.TableRefs, rest)
		where = scalar
	} else {
		in, scope, err = b.resultSet(s.From.TableRefs.Left)
	}
	if err != nil {
		return nil, nil, err
	}
	if in, scope, err = b.scalarSubqueries(s, where, in, scope); err != nil {
		return nil, nil, err
	}
	if where != nil {
		pred, err := b.bindIn("WHERE", where, scope)
		if err != nil {
			return nil, nil, err
		}
		if in, err = b.temporalFilter(in, pred); err != nil {
			return nil, nil, err
		}
	}
	if in, err = b.semiJoins(in, scope, subs); err != nil {
		return nil, nil, err
	}
	if overs := b.collectOvers(s); len(overs) > 0 {
		if in, err = b.overAggregate(s, in, scope, overs); err != nil {
			return nil, nil, err
		}
	}
	aggs := collectAggs(s)
	if len(aggs) > 0 || s.GroupBy != nil {
		return b.aggregateSelect(s, in, scope, aggs)
	}
	if s.Having != nil {
		return nil, nil, sqlerr.New(sqlerr.GroupingError, "HAVING requires GROUP BY or an aggregate")
	}
	in, exprs, names, err := b.selectListSet(s.Fields, in, scope)
	if err != nil {
		return nil, nil, err
	}
	var out Node = &Project{Input: in, Exprs: exprs, Names: names}
	if s.Distinct {
		out = distinctOver(in, exprs, names)
	}
	out, err = b.orderLimit(s, out, scope, exprs)
	if err != nil {
		return nil, nil, err
	}
	return out, newRelScope("", out.Schema()), nil
}

// selectList binds the fields; groupText maps group-by expression text to
// an output column for expressions repeated from the GROUP BY.
func (b *builder) selectList(fields *ast.FieldList, scope Scope, groupText map[string]int) ([]Scalar, []string, error) {
	var exprs []Scalar
	var names []string
	for _, f := range fields.Fields {
		if f.WildCard != nil {
			rs, ok := scope.(*relScope)
			if !ok {
				return nil, nil, sqlerr.New(sqlerr.GroupingError, "SELECT * is not allowed with GROUP BY")
			}
			for i, c := range rs.cols {
				if f.WildCard.Table.O != "" && !strings.EqualFold(f.WildCard.Table.O, c.table) || f.WildCard.Table.O == "" && c.hidden {
					continue
				}
				exprs = append(exprs, &ColRef{Index: i, Name: c.name, T: c.kind})
				names = append(names, c.name)
			}
			continue
		}
		var e Scalar
		if idx, ok := groupText[nodeText(f.Expr)]; ok && groupText != nil {
			_, k, _ := scopeKind(scope, idx)
			e = &ColRef{Index: idx, Name: nodeText(f.Expr), T: k}
		} else {
			var err error
			e, err = b.bindScalar(f.Expr, scope)
			if err != nil {
				return nil, nil, err
			}
		}
		name := f.AsName.O
		if name == "" {
			name = fieldName(f.Expr)
		}
		exprs = append(exprs, e)
		names = append(names, name)
	}
	return exprs, names, nil
}

func scopeKind(s Scope, idx int) (int, types.Kind, error) {
	if a, ok := s.(*aggScope); ok && idx < len(a.groups) {
		return idx, a.groups[idx].kind, nil
	}
	return idx, types.Null, nil
}

// fieldName is the output name of an unaliased select expression, as
// Postgres names it: the column name, the function name, or ?column?.
func fieldName(e ast.ExprNode) string {
	switch x := e.(type) {
	case *ast.ColumnNameExpr:
		return x.Name.Name.O
	case *ast.AggregateFuncExpr:
		return strings.ToLower(x.F)
	case *ast.WindowFuncExpr:
		return strings.ToLower(x.Name)
	case *ast.FuncCallExpr:
		return x.FnName.L
	case *ast.FuncCastExpr:
		return fieldName(x.Expr)
	case *ast.ParenthesesExpr:
		return fieldName(x.Expr)
	}
	return "?column?"
}

// collectAggs returns the distinct aggregate calls of the select list,
// HAVING and ORDER BY, in order of appearance.
func collectAggs(s *ast.SelectStmt) []*ast.AggregateFuncExpr {
	c := &aggCollector{seen: map[string]bool{}}
	s.Fields.Accept(c)
	if s.Having != nil {
		s.Having.Expr.Accept(c)
	}
	if s.OrderBy != nil {
		s.OrderBy.Accept(c)
	}
	return c.aggs
}

type aggCollector struct {
	aggs []*ast.AggregateFuncExpr
	seen map[string]bool
}

func (c *aggCollector) Enter(n ast.Node) (ast.Node, bool) {
	if a, ok := n.(*ast.AggregateFuncExpr); ok {
		t := nodeText(a)
		if !c.seen[t] {
			c.seen[t] = true
			c.aggs = append(c.aggs, a)
		}
		return n, true
	}
	if _, ok := n.(*ast.SelectStmt); ok {
		return n, true // subqueries have their own aggregates
	}
	return n, false
}

func (c *aggCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }
