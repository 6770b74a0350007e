package planner

import (
	"errors"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

func TestClosest(t *testing.T) {
	for _, c := range []struct {
		name  string
		cands []string
		want  string
	}{
		{"kk", []string{"v", "k"}, "k"},
		{"nme", []string{"k", "name", "ts"}, "name"},
		{"PRICE", []string{"price"}, ""}, // the same name: nothing to suggest
		{"prise", []string{"price", "prize"}, "price"},
		{"x", []string{"k"}, ""},                  // one letter of one: too far
		{"zz", []string{"k", "window_start"}, ""}, // nothing near
		{"cnt", functionNames(), "count"},         // functions and aggregates
		{"lenght", functionNames(), "length"},     // a transposition is two edits
		{"großß", []string{"groß"}, "groß"},       // runes, not bytes
		{"", []string{"a"}, ""},
	} {
		if got := closest(c.name, c.cands); got != c.want {
			t.Errorf("closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// bindStmtExpr binds the first select item of sql, parsed by our parser
// (so f(*) arrives as the pass rewrites it), over scope.
func bindStmtExpr(t *testing.T, sql string, scope Scope) (Scalar, error) {
	t.Helper()
	st, err := parser.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	sel := st[0].(*parser.QueryStmt).Select.(*ast.SelectStmt)
	return BindScalar(sel.Fields.Fields[0].Expr, scope)
}

// TestUnknownNames: an unknown function, with * or arguments, is 42883
// "function f does not exist" with a near name as the hint; a known one
// called with * says it does not take it; an unknown column is 42703 with
// the closest column in scope.
func TestUnknownNames(t *testing.T) {
	rel := newRelScope("t", types.Schema{{Name: "k", Type: types.Int}, {Name: "name", Type: types.String}})
	for _, c := range []struct {
		sql, code, msg, hint string
	}{
		{"SELECT cnt(*) FROM t", sqlerr.UndefinedFunction, "function cnt does not exist", "did you mean count?"},
		{"SELECT cnt(k) FROM t", sqlerr.UndefinedFunction, "function cnt does not exist", "did you mean count?"},
		{"SELECT cnt ( * ) FROM t", sqlerr.UndefinedFunction, "function cnt does not exist", "did you mean count?"},
		{"SELECT qqqqq(k) FROM t", sqlerr.UndefinedFunction, "function qqqqq does not exist", ""},
		{"SELECT abs(*) FROM t", sqlerr.UndefinedFunction, "function abs(*) does not exist", ""},
		{"SELECT now(*) FROM t", sqlerr.UndefinedFunction, "function now(*) does not exist", ""},
		{"SELECT kk FROM t", sqlerr.UndefinedColumn, `column "kk" does not exist; did you mean "k"?`, ""},
		{"SELECT t.nam FROM t", sqlerr.UndefinedColumn, `column "t.nam" does not exist; did you mean "t.name"?`, ""},
		{"SELECT zz FROM t", sqlerr.UndefinedColumn, `column "zz" does not exist`, ""},
	} {
		_, err := bindStmtExpr(t, c.sql, rel)
		var se *sqlerr.Error
		if !errors.As(err, &se) || se.Code != c.code || se.Msg != c.msg || se.Hint != c.hint {
			t.Errorf("%s: %v, want %s %q (hint %q)", c.sql, err, c.code, c.msg, c.hint)
		}
	}
}

// TestGroupedUnknownColumn: after GROUP BY, a name that is no column at
// all is an unknown column (with a suggestion), not a grouping error.
func TestGroupedUnknownColumn(t *testing.T) {
	in := newRelScope("t", types.Schema{{Name: "k", Type: types.Int}, {Name: "name", Type: types.String}})
	as := &aggScope{groups: []scopeCol{{table: "t", name: "k", kind: types.Int}}, input: in}
	for _, c := range []struct{ col, code, msg string }{
		{"nmae", sqlerr.UndefinedColumn, `column "nmae" does not exist; did you mean "name"?`},
		{"name", sqlerr.GroupingError, `column "name" must appear in the GROUP BY clause or be used in an aggregate function`},
	} {
		_, _, err := as.Resolve("", c.col)
		var se *sqlerr.Error
		if !errors.As(err, &se) || se.Code != c.code || se.Msg != c.msg {
			t.Errorf("%s: %v, want %s %q", c.col, err, c.code, c.msg)
		}
	}
}
