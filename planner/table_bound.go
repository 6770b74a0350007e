package planner

import (
	"sort"
	"strings"
)

// tableBound describes the bound a TABLE's key puts on the state of an
// operator over n when every scan under n reads a TABLE's changelog (a
// view over TABLEs alone): the operator keeps at most one entry per row
// of those tables, which their primary keys bound. It is "" when any
// input is a source or a view, and for no input (an operator built on
// its own, as exec's tests build them).
func tableBound(n Node) string {
	if n == nil {
		return ""
	}
	names := map[string]bool{}
	only := true
	Transform(n, func(x Node) (Node, bool) {
		if s, ok := x.(*Scan); ok {
			if s.Kind == ScanTable && s.Retracting {
				names[s.Name] = true
			} else {
				only = false
			}
		}
		return x, false
	})
	if !only || len(names) == 0 {
		return ""
	}
	list := make([]string, 0, len(names))
	for k := range names {
		list = append(list, k)
	}
	sort.Strings(list)
	return "rows of TABLE " + strings.Join(list, ", ") + " (by primary key)"
}
