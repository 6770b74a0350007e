package parser

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// TestParseFunction checks both body forms of CREATE FUNCTION, unnamed
// parameters, options in any order and DROP FUNCTION, each through its
// canonical text and back (the text re-parses to itself).
func TestParseFunction(t *testing.T) {
	tests := []struct {
		sql, restored string
	}{
		{"CREATE FUNCTION add1(a int) RETURNS int LANGUAGE SQL IMMUTABLE AS $$ SELECT a + 1 $$",
			`CREATE FUNCTION "add1"("a" BIGINT) RETURNS BIGINT LANGUAGE SQL IMMUTABLE RETURN "a" + 1`},
		{"create or replace function f(int, text) returns text immutable return $2 || $1::text",
			`CREATE OR REPLACE FUNCTION "f"(BIGINT, VARCHAR) RETURNS VARCHAR LANGUAGE SQL IMMUTABLE RETURN CONCAT("$2", CAST("$1" AS CHAR))`},
		{"CREATE FUNCTION f(a double precision, b timestamp with time zone) RETURNS numeric(10,2)\n" +
			"AS $body$ SELECT a * 2; $body$ LANGUAGE 'sql' PARALLEL SAFE",
			`CREATE FUNCTION "f"("a" DOUBLE, "b" TIMESTAMPTZ) RETURNS DECIMAL(10,2) LANGUAGE SQL IMMUTABLE RETURN "a" * 2`},
		{"CREATE FUNCTION f() RETURNS varchar AS 'SELECT ''x'''", ""}, // refused below: doubled quotes
		{"CREATE FUNCTION f() RETURNS varchar CALLED ON NULL INPUT AS 'SELECT upper(''x'')'", ""},
		{"CREATE FUNCTION f(s varchar) RETURNS varchar AS 'SELECT upper(s)'",
			`CREATE FUNCTION "f"("s" VARCHAR) RETURNS VARCHAR LANGUAGE SQL IMMUTABLE RETURN UPPER("s")`},
		{"CREATE FUNCTION f(s varchar) RETURNS varchar AS $$ SELECT $x$it's$x$ || s $$",
			`CREATE FUNCTION "f"("s" VARCHAR) RETURNS VARCHAR LANGUAGE SQL IMMUTABLE RETURN CONCAT('it''s', "s")`},
		{"DROP FUNCTION IF EXISTS f(int, text)", `DROP FUNCTION IF EXISTS "f"(BIGINT, VARCHAR)`},
		{"DROP FUNCTION f", `DROP FUNCTION "f"`},
		{"DROP FUNCTION f()", `DROP FUNCTION "f"()`},
	}
	for _, tt := range tests {
		st, err := Parse(tt.sql)
		if tt.restored == "" {
			if err == nil {
				t.Errorf("%s: parsed, want an error", tt.sql)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.sql, err)
			continue
		}
		got := st[0].Restore()
		if got != tt.restored {
			t.Errorf("%s:\n got %s\nwant %s", tt.sql, got, tt.restored)
		}
		again, err := Parse(got)
		if err != nil || again[0].Restore() != got {
			t.Errorf("%s: the canonical text does not re-parse to itself: %v", got, err)
		}
	}
	st, err := Parse("CREATE FUNCTION f(x bigint, VARCHAR) RETURNS DECIMAL(10, 2) RETURN x")
	if err != nil {
		t.Fatal(err)
	}
	f := st[0].(*CreateFunctionStmt)
	if len(f.Params) != 2 || f.Params[0].Name != "x" || f.Params[1].Name != "" || f.Params[1].Type.Type != types.String ||
		f.Returns != (types.Column{Type: types.Decimal, Precision: 10, Scale: 2}) || f.BodyText != `"x"` || f.BodyPos.Col != 68 {
		t.Errorf("parsed %+v", f)
	}
}

// TestFunctionErrors checks that what a scalar SQL function body may not
// have is refused with its SQLSTATE at its line and column, inside $$
// bodies as in RETURN expressions.
func TestFunctionErrors(t *testing.T) {
	tests := []struct {
		sql       string
		code      string
		line, col int
		detail    string
	}{
		{"CREATE FUNCTION f(a int) RETURNS int AS $$ SELECT a FROM t $$", sqlerr.FeatureNotSupport, 1, 53, "FROM in a SQL function body"},
		{"CREATE FUNCTION f(a int) RETURNS int AS $$\n  SELECT a\n  WHERE a > 1 $$", sqlerr.FeatureNotSupport, 3, 3, "WHERE"},
		{"CREATE FUNCTION f(a int) RETURNS int AS $$\nSELECT 1 + count(a) $$", sqlerr.FeatureNotSupport, 2, 12, "aggregate function count"},
		{"CREATE FUNCTION f(a int) RETURNS int RETURN 1 + (SELECT 1)", sqlerr.FeatureNotSupport, 1, 49, "a subquery"},
		{"CREATE FUNCTION f(a int) RETURNS int AS $$ SELECT a, a $$", sqlerr.InvalidFunctionDef, 1, 44, "one column"},
		{"CREATE FUNCTION f(a int) RETURNS int AS $$ SELECT 1; SELECT 2 $$", sqlerr.FeatureNotSupport, 1, 52, "more than one statement"},
		{"CREATE FUNCTION f(a int) RETURNS int AS $$ VALUES (1) $$", sqlerr.FeatureNotSupport, 1, 44, "other than SELECT"},
		{"CREATE FUNCTION f(a int) RETURNS int STABLE RETURN a", sqlerr.FeatureNotSupport, 1, 38, "STABLE"},
		{"CREATE FUNCTION f(a int) RETURNS int STRICT RETURN a", sqlerr.FeatureNotSupport, 1, 38, "STRICT"},
		{"CREATE FUNCTION f(a int) RETURNS int LANGUAGE plpgsql AS $$ x $$", sqlerr.FeatureNotSupport, 1, 47, "LANGUAGE plpgsql"},
		{"CREATE FUNCTION f(a int) RETURNS int AS $$ SELECT a +* 1 $$", sqlerr.SyntaxError, 1, 54, `near "* 1"`},
		{"CREATE FUNCTION f(a int) RETURNS int RETURN a +* 1", sqlerr.SyntaxError, 1, 48, `near "* 1"`},
		{"CREATE FUNCTION f(a int) RETURNS int AS $$ SELECT a", sqlerr.SyntaxError, 1, 41, "unterminated dollar-quoted string"},
		{"CREATE FUNCTION f(a int) RETURNS int", sqlerr.SyntaxError, 1, 37, "function body"},
		{"CREATE FUNCTION f(a int) RETURNS int RETURN a AS $$ SELECT 1 $$", sqlerr.SyntaxError, 1, 47, "without an alias"},
		{"CREATE FUNCTION f(a int) RETURNS int AS $$ SELECT 1 $$ RETURN 2", sqlerr.SyntaxError, 1, 56, "two bodies"},
		{"CREATE FUNCTION f(a bignit) RETURNS int RETURN a", sqlerr.SyntaxError, 1, 21, "type"},
		{"DROP FUNCTION f(int", sqlerr.SyntaxError, 1, 20, ""},
	}
	for _, tt := range tests {
		_, err := Parse(tt.sql)
		var se *sqlerr.Error
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v, want a *sqlerr.Error", tt.sql, err)
			continue
		}
		if se.Code != tt.code || se.Pos.Line != tt.line || se.Pos.Col != tt.col || !strings.Contains(se.Msg, tt.detail) {
			t.Errorf("%s:\n got %s %d:%d %q\nwant %s %d:%d containing %q", tt.sql, se.Code, se.Pos.Line, se.Pos.Col, se.Msg, tt.code, tt.line, tt.col, tt.detail)
		}
	}
}
