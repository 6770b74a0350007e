package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// FunctionResolver is a Resolver that also knows SQL functions (CREATE
// FUNCTION): the binder inlines their bodies where they are called.
type FunctionResolver interface {
	Function(name string) (*catalog.Function, bool)
}

// functionsOf returns cat's SQL functions, or nil when it has none.
func functionsOf(cat Resolver) FunctionResolver {
	if f, ok := cat.(FunctionResolver); ok {
		return f
	}
	return nil
}

// PlanFunction checks CREATE FUNCTION st against the catalog fns and
// returns the function to store. The name must not be a built-in's; the
// body, bound over the parameters, must be castable to the RETURNS type
// and must not call the function itself.
func PlanFunction(st *parser.CreateFunctionStmt, fns FunctionResolver) (*catalog.Function, error) {
	if builtinName(st.Name) {
		return nil, sqlerr.New(sqlerr.DuplicateFunction, "function %s is a built-in function", st.Name).
			WithHint("choose another name; SQL functions cannot replace built-ins")
	}
	f := &catalog.Function{Name: st.Name, SQL: st.Text(), Returns: st.Returns, Body: st.BodyText}
	seen := map[string]bool{}
	for _, p := range st.Params {
		if p.Name != "" {
			if seen[strings.ToLower(p.Name)] {
				return nil, sqlerr.New(sqlerr.InvalidFunctionDef, "parameter name %q used more than once", p.Name)
			}
			seen[strings.ToLower(p.Name)] = true
		}
		f.Params = append(f.Params, types.Column{Name: p.Name, Type: p.Type.Type, Precision: p.Type.Precision, Scale: p.Type.Scale})
	}
	var used []string
	b := &binder{scope: paramScope{fn: f}, fns: fns, inlining: []string{strings.ToLower(f.Name)}, used: &used}
	body, err := b.bind(bodyExpr(st.Body))
	if err != nil {
		return nil, fmt.Errorf("in the body of function %s (line %d, column %d): %w", st.Name, st.BodyPos.Line, st.BodyPos.Col, err)
	}
	if bt := body.Type(); bt != st.Returns.Type && bt != types.Null && !CanCast(bt, st.Returns.Type) {
		return nil, sqlerr.New(sqlerr.InvalidFunctionDef, "return type mismatch in function declared to return %s (line %d, column %d)",
			kindName(st.Returns.Type), st.BodyPos.Line, st.BodyPos.Col).
			WithHint(fmt.Sprintf("the body's expression is of type %s", kindName(bt)))
	}
	seen = map[string]bool{}
	for _, u := range used {
		if k := strings.ToLower(u); !seen[k] {
			seen[k] = true
			f.Uses = append(f.Uses, u)
		}
	}
	return f, nil
}

// specialForms are calls the binder handles before the registry (and
// date_sub's family): names a SQL function could never take over.
var specialForms = map[string]bool{
	"position": true, "if": true, "date_add": true, "adddate": true, "date_sub": true, "subdate": true,
}

// builtinName reports whether name is a built-in's: a registry function,
// a special form of the binder, an aggregate, or a name the grammar
// reads as something else than a plain call (TiDB's aggregates and
// keywords: a call of the function would never reach the binder).
func builtinName(name string) bool {
	l := strings.ToLower(name)
	if _, ok := funcs.Lookup(l); ok || specialForms[l] || strings.HasPrefix(l, "__") {
		return true
	}
	for _, a := range aggregateNames {
		if a == l {
			return true
		}
	}
	q, err := parser.ParseExpr(quoteIdent(name) + "(1)")
	if err != nil {
		return true
	}
	call, ok := bodyExpr(q).(*ast.FuncCallExpr)
	return !ok || call.FnName.L != l
}

// quoteIdent writes a name as a call would: bare when it is a plain
// word (so keywords parse as the grammar reads them), quoted otherwise.
func quoteIdent(s string) string {
	if strings.Trim(strings.ToLower(s), "abcdefghijklmnopqrstuvwxyz_0123456789") == "" && s != "" && (s[0] < '0' || s[0] > '9') {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// bodyExpr is the one field of a function body's `SELECT expr`.
func bodyExpr(q *parser.QueryStmt) ast.ExprNode {
	return q.Select.(*ast.SelectStmt).Fields.Fields[0].Expr
}

// paramScope resolves a function body's names: a parameter by name
// (optionally qualified by the function's name) or as $n; column i is
// parameter i.
type paramScope struct{ fn *catalog.Function }

// Resolve implements Scope.
func (s paramScope) Resolve(table, column string) (int, types.Kind, error) {
	if table == "" || strings.EqualFold(table, s.fn.Name) {
		if n, err := strconv.Atoi(strings.TrimPrefix(column, "$")); err == nil && strings.HasPrefix(column, "$") && table == "" {
			if n >= 1 && n <= len(s.fn.Params) {
				return n - 1, s.fn.Params[n-1].Type, nil
			}
			return 0, 0, sqlerr.New(sqlerr.UndefinedColumn, "there is no parameter $%d", n)
		}
		for i, p := range s.fn.Params {
			if p.Name != "" && strings.EqualFold(p.Name, column) {
				return i, p.Type, nil
			}
		}
	}
	name := column
	if table != "" {
		name = table + "." + column
	}
	return 0, 0, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", name).
		WithHint("a SQL function's body reads only its parameters")
}

// Aggregate implements Scope; a body has none (the parser refuses them).
func (paramScope) Aggregate(agg *ast.AggregateFuncExpr) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.FeatureNotSupport, "aggregate function %s in a SQL function body is not supported", agg.F)
}

// inline binds a call of SQL function f with the bound args: the body is
// bound over the parameters, each argument cast to its parameter's type
// is put in place of the parameter, and the result is cast to the
// RETURNS type.
func (b *binder) inline(n *ast.FuncCallExpr, f *catalog.Function, args []Scalar) (Scalar, error) {
	key := strings.ToLower(f.Name)
	for _, g := range b.inlining {
		if g == key {
			return nil, sqlerr.New(sqlerr.InvalidFunctionDef, "function %s calls itself (SQL functions are inlined, so they cannot recurse)", f.Name)
		}
	}
	if len(args) != len(f.Params) || !argsFit(f, args) {
		return nil, sqlerr.New(sqlerr.UndefinedFunction, "function %s(%s) does not exist", f.Name, argKinds(args)).
			WithHint(fmt.Sprintf("%s takes (%s); add explicit casts", f.Name, paramKinds(f)))
	}
	in := make([]Scalar, len(args))
	for i, a := range args {
		c, err := castParam(n, a, f.Params[i])
		if err != nil {
			return nil, err
		}
		in[i] = c
	}
	q, err := parser.ParseExpr(f.Body)
	if err != nil {
		return nil, fmt.Errorf("function %s: %w", f.Name, err)
	}
	sub := &binder{scope: paramScope{fn: f}, depth: b.depth, zone: b.zone, fns: b.fns,
		inlining: append(append([]string(nil), b.inlining...), key), used: b.used}
	body, err := sub.bind(bodyExpr(q))
	if err != nil {
		return nil, fmt.Errorf("function %s: %w", f.Name, err)
	}
	if b.used != nil {
		*b.used = append(*b.used, f.Name)
	}
	body = MapColRefs(body, func(c *ColRef) Scalar { return in[c.Index] })
	return castParam(n, body, f.Returns)
}

// argsFit reports whether each argument can be passed to its parameter
// implicitly: the same type, NULL, an untyped string literal, or a
// widening Postgres does implicitly (int to decimal or float, ...).
func argsFit(f *catalog.Function, args []Scalar) bool {
	for i, a := range args {
		from, to := a.Type(), f.Params[i].Type
		ok := from == to || from == types.Null || isStringLiteral(a) || implicitCast(from, to) ||
			(from == types.Int && to == types.Float)
		if !ok {
			return false
		}
	}
	return true
}

// castParam casts s to column type c (a DECIMAL(p, s) fitted).
func castParam(n ast.Node, s Scalar, c types.Column) (Scalar, error) {
	out, err := castTo(n, s, c.Type)
	if err != nil {
		return nil, err
	}
	if c.Type == types.Decimal && c.Precision > 0 {
		return fitDecimal(out, c.Precision, c.Scale)
	}
	return out, nil
}

// paramKinds lists f's parameter types for messages.
func paramKinds(f *catalog.Function) string {
	s := make([]string, len(f.Params))
	for i, p := range f.Params {
		s[i] = kindName(p.Type)
	}
	return strings.Join(s, ", ")
}
