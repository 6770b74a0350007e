package planner_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// oneColumn resolves the single column k.
type oneColumn struct{}

func (oneColumn) Resolve(_, column string) (int, types.Kind, error) {
	if column != "k" {
		return 0, 0, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", column)
	}
	return 0, types.Int, nil
}

func (oneColumn) Aggregate(*ast.AggregateFuncExpr) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.GroupingError, "no aggregates")
}

// tidbExpr parses the select item of "SELECT expr" with TiDB alone, as a
// caller that bypasses parser.Parse (and its depth check) would.
func tidbExpr(t *testing.T, expr string) ast.ExprNode {
	t.Helper()
	p := tidb.New()
	p.SetSQLMode(mysql.ModeANSIQuotes)
	stmts, _, err := p.Parse("SELECT "+expr, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return stmts[0].(*ast.SelectStmt).Fields.Fields[0].Expr
}

// TestBinderDepthLimit: the binder refuses a tree deeper than
// sqlerr.MaxDepth with 54001 even when it did not come through the
// parser's check; one within the limit binds.
func TestBinderDepthLimit(t *testing.T) {
	for _, c := range []struct {
		expr string
		code string
	}{
		{strings.Repeat("(", 20_000) + "k" + strings.Repeat(")", 20_000), sqlerr.StackDepth},
		{"k" + strings.Repeat(" + k", 20_000), sqlerr.StackDepth},
		{strings.Repeat("NOT ", 20_000) + "k = 1", sqlerr.StackDepth},
		{strings.Repeat("(", sqlerr.MaxDepth-1) + "k" + strings.Repeat(")", sqlerr.MaxDepth-1), ""},
		{"k" + strings.Repeat(" + k", sqlerr.MaxDepth-2), ""},
	} {
		_, err := planner.BindScalar(tidbExpr(t, c.expr), oneColumn{})
		var se *sqlerr.Error
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%.40s…: %v", c.expr, err)
		case c.code != "" && (!errors.As(err, &se) || se.Code != c.code):
			t.Errorf("%.40s…: err = %v, want %s", c.expr, err, c.code)
		}
	}
}

// TestSubstitutionStaysSmall: merging projections (and pushing filters
// through them) copies an expression once per reference; a stack of 40
// projections that each use x twice would merge into 2^40 nodes and hang
// the planner. The rules stop merging where the plan would grow, and the
// plan stays small.
func TestSubstitutionStaysSmall(t *testing.T) {
	q := "SELECT auction AS x, date_time FROM bid"
	for i := range 40 {
		q = fmt.Sprintf("SELECT x + x AS x, date_time FROM (%s) AS q%d WHERE x > %d", q, i, i)
	}
	vp := planView(t, pruneCatalog(t), "CREATE MATERIALIZED VIEW big AS "+q)
	if plan := planner.Physical(vp.Optimized, 1); len(plan) > 200_000 {
		t.Fatalf("the plan renders in %d bytes", len(plan))
	}
}
