package parser

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
)

// TestStarArgument: f(*) for any f but count reaches the planner as a call
// with StarArg (TiDB's grammar would call it a syntax error), and Restore
// writes the * back; a * that is no call's only argument stays a syntax
// error, and the stand-in name is reserved.
func TestStarArgument(t *testing.T) {
	for _, c := range []struct{ sql, restored string }{
		{"SELECT cnt(*) FROM t", `SELECT CNT(*) FROM "t"`},
		{"SELECT cnt ( * ), count(*) FROM t", `SELECT CNT(*),COUNT(1) FROM "t"`},
		{"SELECT sum(*) FROM t", `SELECT SUM(*) FROM "t"`},
	} {
		st, err := Parse(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		sel := st[0].(*QueryStmt).Select.(*ast.SelectStmt)
		var args []ast.ExprNode
		switch f := sel.Fields.Fields[0].Expr.(type) {
		case *ast.FuncCallExpr:
			args = f.Args
		case *ast.AggregateFuncExpr:
			args = f.Args
		}
		if len(args) != 1 || !IsStarArg(args[0]) {
			t.Errorf("%s: arguments %v, want the * stand-in", c.sql, args)
		}
		if got := st[0].Restore(); got != c.restored {
			t.Errorf("%s: restored %q, want %q", c.sql, got, c.restored)
		}
	}
	for _, sql := range []string{
		"SELECT k FROM t WHERE k IN (*)",
		"SELECT t.f(*) FROM t",
		"SELECT f(*, 1) FROM t",
		"SELECT __star FROM t",
		`SELECT "__STAR"(k) FROM t`,
	} {
		if _, err := Parse(sql); sqlerr.Code(err) != sqlerr.SyntaxError {
			t.Errorf("%s: %v, want a syntax error", sql, err)
		}
	}
}
