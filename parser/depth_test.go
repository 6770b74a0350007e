package parser

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
)

// deepShapes build statements that nest n levels deep in each way SQL can
// nest: brackets the lexer counts, and chains TiDB builds into deep trees.
var deepShapes = []struct {
	name string
	sql  func(n int) string
}{
	{"parentheses", func(n int) string {
		return "SELECT " + strings.Repeat("(", n) + "k" + strings.Repeat(")", n) + " FROM t"
	}},
	{"function calls", func(n int) string {
		return "SELECT " + strings.Repeat("abs(", n) + "k" + strings.Repeat(")", n) + " FROM t"
	}},
	{"CASE", func(n int) string {
		return "SELECT " + strings.Repeat("CASE WHEN k = 1 THEN ", n) + "k" + strings.Repeat(" END", n) + " FROM t"
	}},
	{"subqueries", func(n int) string {
		return "SELECT k FROM " + strings.Repeat("(SELECT k FROM ", n) + "t" + strings.Repeat(") AS q", n)
	}},
	{"plus chain", func(n int) string { return "SELECT k" + strings.Repeat(" + k", n) + " FROM t" }},
	{"OR chain", func(n int) string { return "SELECT k FROM t WHERE k = 1" + strings.Repeat(" OR k = 1", n) }},
	{"NOT", func(n int) string { return "SELECT k FROM t WHERE " + strings.Repeat("NOT ", n) + "k = 1" }},
	{"unary minus", func(n int) string { return "SELECT " + strings.Repeat("- ", n) + "k FROM t" }},
	{"casts", func(n int) string { return "SELECT k" + strings.Repeat("::bigint", n) + " FROM t" }},
	{"INSERT values", func(n int) string { return "INSERT INTO t VALUES (1" + strings.Repeat(" + 1", n) + ")" }},
	{"EXPLAIN", func(n int) string { return strings.Repeat("EXPLAIN ", n) + "SELECT k FROM t" }},
	{"view", func(n int) string {
		return "CREATE MATERIALIZED VIEW v AS SELECT " + strings.Repeat("(", n) + "k" + strings.Repeat(")", n) + " FROM t"
	}},
}

// TestDeepStatementsAreRefused: a statement nested far beyond
// sqlerr.MaxDepth, in any shape, is a 54001 error, never a stack overflow.
func TestDeepStatementsAreRefused(t *testing.T) {
	for _, s := range deepShapes {
		t.Run(s.name, func(t *testing.T) {
			_, err := Parse(s.sql(100_000))
			var e *sqlerr.Error
			if !errors.As(err, &e) || e.Code != sqlerr.StackDepth {
				t.Fatalf("err = %v, want code %s", err, sqlerr.StackDepth)
			}
			if !strings.HasPrefix(e.Msg, "stack depth limit exceeded") {
				t.Errorf("message %q", e.Msg)
			}
		})
	}
}

// TestShallowStatementsParse: the same shapes well within the limit parse
// and survive Restore.
func TestShallowStatementsParse(t *testing.T) {
	for _, s := range deepShapes {
		t.Run(s.name, func(t *testing.T) {
			stmts, err := Parse(s.sql(100))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(stmts[0].Restore()); err != nil {
				t.Fatalf("restored: %v", err)
			}
		})
	}
}

// TestDepthErrorPointsAtTheBracket: the lexer's check names the first
// parenthesis beyond the limit, in the statement that has it.
func TestDepthErrorPointsAtTheBracket(t *testing.T) {
	sql := "SELECT k FROM t;\nSELECT " + strings.Repeat("(", 2000) + "k" + strings.Repeat(")", 2000) + " FROM t"
	_, err := Parse(sql)
	var e *sqlerr.Error
	if !errors.As(err, &e) || e.Code != sqlerr.StackDepth {
		t.Fatalf("err = %v", err)
	}
	if want := (sqlerr.Pos{Line: 2, Col: 8 + sqlerr.MaxDepth, Offset: 24 + sqlerr.MaxDepth}); e.Pos != want {
		t.Errorf("pos %+v, want %+v", e.Pos, want)
	}
	// a statement after a deep one starts from depth 0 again
	if _, err := Parse(strings.Repeat("(", 900) + ";\n" + "SELECT " + strings.Repeat("(", 900) + "k" + strings.Repeat(")", 900) + " FROM t"); err == nil || sqlerr.Code(err) == sqlerr.StackDepth {
		t.Errorf("unclosed parentheses leaked into the next statement: %v", err)
	}
}

// TestDeepParenthesesCostLittle: a 10 MB statement of 5 M nested
// parentheses is refused before its tokens are built (it took the server
// from 370 MB to 846 MB RSS at 1 M levels, and overflowed the stack at 5 M).
func TestDeepParenthesesCostLittle(t *testing.T) {
	const n = 5_000_000
	sql := "SELECT " + strings.Repeat("(", n) + "k" + strings.Repeat(")", n) + " FROM t"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse(sql)
	runtime.ReadMemStats(&after)
	if sqlerr.Code(err) != sqlerr.StackDepth {
		t.Fatalf("err = %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("parsing allocated %d bytes, want under 1 MiB", alloc)
	}
}
