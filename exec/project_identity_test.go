package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestIdentityProject: a projection is built as no operator only when it
// lists every input column in its place; a reorder, a subset, a repeat
// or a computed column keeps the operator.
func TestIdentityProject(t *testing.T) {
	in := &planner.Scan{Out: types.Schema{{Name: "a", Type: types.Int}, {Name: "b", Type: types.String}}}
	col := func(i int) planner.Scalar { return &planner.ColRef{Index: i, T: in.Out[i].Type} }
	cases := []struct {
		name  string
		exprs []planner.Scalar
		want  bool
	}{
		{"every column in its place", []planner.Scalar{col(0), col(1)}, true},
		{"reordered", []planner.Scalar{col(1), col(0)}, false},
		{"a subset", []planner.Scalar{col(0)}, false},
		{"a repeat", []planner.Scalar{col(0), col(1), col(1)}, false},
		{"computed", []planner.Scalar{col(0), &planner.Const{V: types.IntValue(1)}}, false},
	}
	for _, c := range cases {
		p := &planner.Project{Input: in, Exprs: c.exprs, Names: make([]string, len(c.exprs))}
		if got := identityProject(p); got != c.want {
			t.Errorf("%s: identityProject = %v, want %v", c.name, got, c.want)
		}
	}
}
