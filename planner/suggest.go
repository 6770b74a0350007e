package planner

import (
	"fmt"
	"github.com/streamsql/streamsql/funcs"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
)

// Names the user got wrong are answered with the nearest name that exists,
// as Postgres hints at a misspelt column: `column "kk" does not exist; did
// you mean "k"?`.

// closest returns the candidate nearest to name by edit distance
// (case-insensitive), or "" when none is near enough: at most half the
// longer name may differ, so "x" suggests nothing for "k". Ties go to the
// earliest candidate.
func closest(name string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := sqlerr.EditDistance(strings.ToLower(name), strings.ToLower(c))
		if d == 0 || d > max(len(name), len(c))/2 {
			continue
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// didYouMean is the suffix naming the closest candidate, or "".
func didYouMean(name string, candidates []string) string {
	if c := closest(name, candidates); c != "" {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return ""
}

// undefinedColumn is the 42703 error for name (table-qualified when table
// is set) among the columns in scope.
func undefinedColumn(table, name string, cols []scopeCol) *sqlerr.Error {
	var cands []string
	for _, c := range cols {
		if table == "" {
			cands = append(cands, c.name)
		} else if strings.EqualFold(c.table, table) {
			cands = append(cands, table+"."+c.name)
		}
	}
	if table != "" {
		name = table + "." + name
	}
	return sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist%s", name, didYouMean(name, cands))
}

// aggregateNames are the aggregates TiDB reads as AggregateFuncExpr.
var aggregateNames = []string{"count", "sum", "min", "max", "avg", "jsonb_agg", "jsonb_object_agg", "array_agg"}

// functionNames are the names a call may use: the built-ins (not the
// operators), their aliases and the aggregates.
func functionNames() []string {
	var out []string
	for _, n := range funcs.Names() {
		if strings.Trim(n, "abcdefghijklmnopqrstuvwxyz_") == "" && !strings.HasPrefix(n, "is_") {
			out = append(out, n)
		}
	}
	for a := range funcs.Aliases() {
		out = append(out, a)
	}
	return append(out, aggregateNames...)
}

// undefinedFunction is the 42883 error for a call of a function that does
// not exist under any argument types; the hint names a near one.
func undefinedFunction(name string) *sqlerr.Error {
	e := sqlerr.New(sqlerr.UndefinedFunction, "function %s does not exist", name)
	if c := closest(name, functionNames()); c != "" {
		e.Hint = fmt.Sprintf("did you mean %s?", c)
	}
	return e
}

// isStarCall reports whether args are the * of f(*) (parser.StarArg).
func isStarCall(args []ast.ExprNode) bool { return len(args) == 1 && parser.IsStarArg(args[0]) }

// starCall checks a call f(*): only count takes *, so it is 42883, naming
// f as unknown when there is no such function at all.
func starCall(name string, args []ast.ExprNode) error {
	if !isStarCall(args) {
		return nil
	}
	if _, ok := funcs.Lookup(name); ok {
		return sqlerr.New(sqlerr.UndefinedFunction, "function %s(*) does not exist", name)
	}
	return undefinedFunction(name)
}
