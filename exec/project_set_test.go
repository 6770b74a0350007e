package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// projectSetNode expands the harness rows (k, ts, v) by
// generate_series(1, v) WITH ORDINALITY and unnest(ARRAY[k, k]) in
// lockstep; outer keeps a row whose sets are empty.
func projectSetNode(outer bool) *planner.ProjectSet {
	schema := types.Schema{{Name: "k", Type: types.String}, {Name: "ts", Type: types.Timestamp}, {Name: "v", Type: types.Int}}
	k := &planner.ColRef{Index: 0, Name: "k", T: types.String}
	v := &planner.ColRef{Index: 2, Name: "v", T: types.Int}
	pair := &planner.Call{Fn: "array", Args: []planner.Scalar{k, k}, T: types.ArrayOf(types.String)}
	return &planner.ProjectSet{
		Input: &planner.Scan{Out: schema, TimeCol: 1},
		Calls: []planner.SetCall{
			{Fn: "generate_series", Args: []planner.Scalar{&planner.Const{V: types.IntValue(1)}, v}, T: types.Int},
			{Fn: "unnest", Args: []planner.Scalar{pair}, T: types.String},
		},
		Names:      []string{"g", "u", "ordinality"},
		Ordinality: true,
		Outer:      outer,
	}
}

func projectSetBuild(t *testing.T, n *planner.ProjectSet) func(instance) Operator {
	return func(in instance) Operator {
		op, err := NewProjectSet(n, nil, in.Out)
		if err != nil {
			t.Fatal(err)
		}
		return op
	}
}

// TestHarnessProjectSet: each input row becomes the rows of its calls
// (the shorter set NULL-padded, a NULL or empty set none), a retraction
// retracts every row the insert made, however the rows are batched,
// keyed or checkpointed.
func TestHarnessProjectSet(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "project_set/lockstep",
		keys:  [][]int{{0}},
		build: projectSetBuild(t, projectSetNode(false)),
		events: []event{
			in("a", 1, 3), in("b", 2, 1), in("c", 3, 0),
			wmAt(0, 5),
			retract(in("a", 1, 3)), in("a", 6, 1),
			wmAt(0, 10),
		},
		want: []string{
			"a @6 1 1 a 1", "a @6 1 NULL a 2",
			"b @2 1 1 b 1", "b @2 1 NULL b 2",
			"c @3 0 NULL c 1", "c @3 0 NULL c 2",
		},
		reorder: true,
	})
}

// TestProjectSetOuter: with outer, a row whose sets are all empty is kept
// once, NULL-padded and without an ordinality; without, it makes no row.
func TestProjectSetOuter(t *testing.T) {
	n := projectSetNode(true)
	n.Calls = n.Calls[:1]
	n.Names = []string{"g", "ordinality"}
	for _, outer := range []bool{true, false} {
		n.Outer = outer
		op, err := NewProjectSet(n, nil, Output{})
		if err != nil {
			t.Fatal(err)
		}
		got := fmtRows(op.Expand(types.Row{types.StringValue("z"), types.TimestampValue(0), types.IntValue(0)}, nil))
		want := 0
		if outer {
			want = 1
		}
		if len(got) != want || (outer && got[0] != "z @0 0 NULL NULL") {
			t.Errorf("outer=%v: got %q", outer, got)
		}
	}
}
