package planner

import (
	"sort"
	"strings"
)

// tableBound describes the bound a TABLE's key puts on the state of an
// operator over n when every scan under n reads a TABLE's changelog or a
// view over TABLEs alone (at any depth): the operator keeps at most one
// entry per row of what those tables derive, which their primary keys
// bound. It is "" when any input is a source or a view over one, and for
// no input (an operator built on its own, as exec's tests build them).
func tableBound(n Node) string {
	names := BoundingTables(n)
	if len(names) == 0 {
		return ""
	}
	return "rows of TABLE " + strings.Join(names, ", ") + " (by primary key)"
}

// BoundingTables returns, sorted, the TABLEs that bound n's rows when
// every scan under n reads a TABLE or a view over TABLEs alone, and nil
// otherwise. The engine records it on a materialized view so that a
// view over that view is bounded the same way.
func BoundingTables(n Node) []string {
	if n == nil {
		return nil
	}
	names := map[string]bool{}
	only := true
	Transform(n, func(x Node) (Node, bool) {
		if s, ok := x.(*Scan); ok {
			switch {
			case s.Kind == ScanTable && s.Retracting:
				names[s.Name] = true
			case s.Kind == ScanView && len(s.BoundBy) > 0:
				for _, t := range s.BoundBy {
					names[t] = true
				}
			default:
				only = false
			}
		}
		return x, false
	})
	if !only || len(names) == 0 {
		return nil
	}
	list := make([]string, 0, len(names))
	for k := range names {
		list = append(list, k)
	}
	sort.Strings(list)
	return list
}
