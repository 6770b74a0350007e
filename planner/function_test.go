package planner

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// testFunctions is a FunctionResolver over a map.
type testFunctions map[string]*catalog.Function

func (f testFunctions) Function(name string) (*catalog.Function, bool) {
	fn, ok := f[strings.ToLower(name)]
	return fn, ok
}

// planFunctions plans the CREATE FUNCTION statements of sql in order.
func planFunctions(t *testing.T, sql string) testFunctions {
	t.Helper()
	stmts, err := parser.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	fns := testFunctions{}
	for _, st := range stmts {
		f, err := PlanFunction(st.(*parser.CreateFunctionStmt), fns)
		if err != nil {
			t.Fatal(err)
		}
		fns[strings.ToLower(f.Name)] = f
	}
	return fns
}

// TestInlineFunction checks that a call is replaced by the body, with
// each argument cast to its parameter's type and the result cast to the
// RETURNS type, through nested SQL functions.
func TestInlineFunction(t *testing.T) {
	fns := planFunctions(t, `
		CREATE FUNCTION count_char(s VARCHAR, c VARCHAR) RETURNS BIGINT
		  RETURN char_length(s) - char_length(replace(s, c, ''));
		CREATE FUNCTION half(DOUBLE) RETURNS DECIMAL(10,2) AS $$ SELECT $1 / 2 $$;
		CREATE FUNCTION both_(s VARCHAR, n BIGINT) RETURNS DOUBLE RETURN count_char(s, 'a') + half(n)`)
	if got := fns["both_"].Uses; len(got) != 2 || got[0] != "count_char" || got[1] != "half" {
		t.Errorf("both_ uses %v", got)
	}
	scope := &testScope{schema: types.Schema{{Name: "name", Type: types.String}, {Name: "n", Type: types.Int}}}
	tests := []struct {
		expr, want string
		used       []string
	}{
		{"count_char(name, 'x')", "(length(name) - length(replace(name, 'x', '')))", []string{"count_char"}},
		{"half(n)", "CAST((CAST(n AS DOUBLE) / 2) AS DECIMAL(10,2))", []string{"half"}},
		{"both_(name, n + 1)", "CAST((CAST((length(name) - length(replace(name, 'a', ''))) AS DECIMAL) + " +
			"CAST((CAST((n + 1) AS DOUBLE) / 2) AS DECIMAL(10,2))) AS DOUBLE)", []string{"count_char", "half", "both_"}},
	}
	for _, tt := range tests {
		stmts, err := parser.Parse("SELECT " + tt.expr + " FROM t")
		if err != nil {
			t.Fatal(err)
		}
		var used []string
		b := &binder{scope: scope, fns: fns, used: &used}
		s, err := b.bind(bodyExpr(stmts[0].(*parser.QueryStmt)))
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if s.String() != tt.want || strings.Join(used, ",") != strings.Join(tt.used, ",") {
			t.Errorf("%s:\n got %s using %v\nwant %s using %v", tt.expr, s, used, tt.want, tt.used)
		}
	}
}

// TestFunctionBindErrors checks what PlanFunction and the inlining refuse.
func TestFunctionBindErrors(t *testing.T) {
	fns := planFunctions(t, `CREATE FUNCTION inc(x BIGINT) RETURNS BIGINT RETURN x + 1`)
	for _, tt := range []struct{ sql, code, msg string }{
		{"CREATE FUNCTION lower(s VARCHAR) RETURNS VARCHAR RETURN s", sqlerr.DuplicateFunction, "built-in"},
		{"CREATE FUNCTION sum(s BIGINT) RETURNS BIGINT RETURN s", sqlerr.DuplicateFunction, "built-in"},
		{"CREATE FUNCTION f(s VARCHAR) RETURNS DATE RETURN s = 'a'", sqlerr.InvalidFunctionDef, "return type mismatch"},
		{"CREATE FUNCTION f(a BIGINT, a BIGINT) RETURNS BIGINT RETURN a", sqlerr.InvalidFunctionDef, "more than once"},
		{"CREATE FUNCTION f(a BIGINT) RETURNS BIGINT RETURN b", sqlerr.UndefinedColumn, `column "b" does not exist`},
		{"CREATE FUNCTION f(a BIGINT) RETURNS BIGINT RETURN t.a", sqlerr.UndefinedColumn, `column "t.a" does not exist`},
		{"CREATE FUNCTION f(a BIGINT) RETURNS BIGINT RETURN f.a + $1", "", ""},
		{"CREATE FUNCTION f(a BIGINT) RETURNS BIGINT RETURN $3", sqlerr.UndefinedColumn, "no parameter $3"},
		{"CREATE FUNCTION f(a BIGINT) RETURNS BIGINT RETURN inc(a, a)", sqlerr.UndefinedFunction, "inc(bigint, bigint) does not exist"},
		{"CREATE FUNCTION f(a VARCHAR) RETURNS BIGINT RETURN inc(a)", sqlerr.UndefinedFunction, "inc(varchar) does not exist"},
		{"CREATE FUNCTION inc(a BIGINT) RETURNS BIGINT RETURN inc(a)", sqlerr.InvalidFunctionDef, "calls itself"},
	} {
		stmts, err := parser.Parse(tt.sql)
		if err != nil {
			t.Fatal(err)
		}
		_, err = PlanFunction(stmts[0].(*parser.CreateFunctionStmt), fns)
		if tt.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.sql, err)
			}
			continue
		}
		if sqlerr.Code(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v (%s), want %s containing %q", tt.sql, err, sqlerr.Code(err), tt.code, tt.msg)
		}
	}
}
