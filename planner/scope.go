package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// scopeCol is one visible column: its qualifier (table or alias), name,
// kind and position in the node's output.
type scopeCol struct {
	table, name string
	kind        types.Kind
	// aliasRef: the column is the only one of a set-returning FROM item,
	// which its table alias also names (`SELECT e FROM t,
	// jsonb_array_elements(t.j) AS e`), as Postgres's whole-row reference
	// to a function of a scalar result reads.
	aliasRef bool
	// hidden: a column of a JOIN … USING side that the merged column
	// stands for; only a qualified name (or t.*) reaches it.
	hidden bool
}

// relScope resolves names over the output of one relation (a scan, a
// subquery or a join of them). Aggregates are not allowed in it.
type relScope struct {
	cols []scopeCol
}

func newRelScope(qual string, s types.Schema) *relScope {
	sc := &relScope{}
	for _, c := range s {
		sc.cols = append(sc.cols, scopeCol{table: qual, name: c.Name, kind: c.Type})
	}
	return sc
}

// join concatenates two scopes (left columns first).
func (s *relScope) join(o *relScope) *relScope {
	return &relScope{cols: append(append([]scopeCol{}, s.cols...), o.cols...)}
}

// qualified is the column's name as table.name (name alone when the
// relation has no name).
func (c scopeCol) qualified() string {
	if c.table == "" {
		return c.name
	}
	return c.table + "." + c.name
}

// colRef reads scope column i as column i - base of the relation that
// holds it (base is the width of the relations before it in a join).
func (s *relScope) colRef(i, base int) *ColRef {
	c := s.cols[i]
	return &ColRef{Index: i - base, Name: c.qualified(), T: c.kind}
}

// Resolve implements Scope.
func (s *relScope) Resolve(table, column string) (int, types.Kind, error) {
	found := -1
	for i, c := range s.cols {
		if !strings.EqualFold(c.name, column) || (table != "" && !strings.EqualFold(c.table, table)) || (table == "" && c.hidden) {
			continue
		}
		if found >= 0 {
			return 0, 0, sqlerr.New(sqlerr.UndefinedColumn, "column reference %q is ambiguous", column)
		}
		found = i
	}
	if found < 0 && table == "" {
		for i, c := range s.cols {
			if c.aliasRef && strings.EqualFold(c.table, column) {
				return i, c.kind, nil
			}
		}
	}
	if found < 0 {
		return 0, 0, undefinedColumn(table, column, s.cols)
	}
	return found, s.cols[found].kind, nil
}

// Aggregate implements Scope: aggregates are not allowed over a relation.
func (s *relScope) Aggregate(agg *ast.AggregateFuncExpr) (int, types.Kind, error) {
	return 0, 0, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed here")
}

// aggScope resolves names after a GROUP BY: group columns by name and
// aggregates by their text.
type aggScope struct {
	groups   []scopeCol // output position i
	aggTexts []string   // output position len(groups)+extra+i
	aggKinds []types.Kind
	aggBase  int
	// extra are non-group columns also visible (window_start/window_end).
	extra []scopeCol
	// input is the scope of the rows being grouped: a name that is not
	// even there is an unknown column, not a grouping error.
	input *relScope
}

// Resolve implements Scope.
func (s *aggScope) Resolve(table, column string) (int, types.Kind, error) {
	for i, c := range s.groups {
		if strings.EqualFold(c.name, column) && (table == "" || c.table == "" || strings.EqualFold(c.table, table)) {
			return i, c.kind, nil
		}
	}
	for i, c := range s.extra {
		if strings.EqualFold(c.name, column) && (table == "" || c.table == "" || strings.EqualFold(c.table, table)) {
			return len(s.groups) + i, c.kind, nil
		}
	}
	if s.input != nil {
		if _, _, err := s.input.Resolve(table, column); sqlerr.Code(err) == sqlerr.UndefinedColumn {
			return 0, 0, err
		}
	}
	return 0, 0, sqlerr.New(sqlerr.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", column)
}

// Aggregate implements Scope.
func (s *aggScope) Aggregate(agg *ast.AggregateFuncExpr) (int, types.Kind, error) {
	t := nodeText(agg)
	for i, a := range s.aggTexts {
		if a == t {
			return s.aggBase + i, s.aggKinds[i], nil
		}
	}
	return 0, 0, sqlerr.New(sqlerr.GroupingError, "aggregate %s was not planned", t)
}
