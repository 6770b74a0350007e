package planner_test

import (
	"slices"
	"testing"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// shareScan is a source scan of (k, ts) with a watermark on ts.
func shareScan() *planner.Scan {
	return &planner.Scan{Kind: planner.ScanSource, Name: "s", Cols: []int{0, 1}, TimeCol: 1,
		Out: types.Schema{{Name: "k", Type: types.Int}, {Name: "ts", Type: types.Timestamp}}}
}

// countPerWindow is count(*) per k per 10 s window of a fresh scan, its
// aggregate's output named name.
func countPerWindow(name, side string) *planner.WindowAggregate {
	return &planner.WindowAggregate{Input: shareScan(), Window: planner.WindowSpec{Kind: "tumble", TimeCol: 1, Size: 10_000_000, Slide: 10_000_000},
		GroupCols: []int{0}, Aggs: []planner.AggCall{{Fn: "count", Arg: -1, Name: name, T: types.Int}},
		Names:    []string{"k", "window_start", "window_end", name},
		Contract: planner.Contract{Policy: lateness.Drop, Emit: "on_window_close", SideTable: side}}
}

func selfJoin(l, r planner.Node) *planner.Join {
	return &planner.Join{Left: l, Right: r, Kind: planner.WindowJoin, LeftKeys: []int{1}, RightKeys: []int{1},
		LeftTime: 1, RightTime: 1, WindowSize: 10_000_000}
}

// TestShareIdenticalSubplansRenames shares two counts that differ only in
// their output names: the second use reads the shared node through a
// Project that renames its column, so the join's schema is unchanged.
func TestShareIdenticalSubplansRenames(t *testing.T) {
	plan := selfJoin(countPerWindow("n", ""), countPerWindow("m", ""))
	out, ok := planner.ShareIdenticalSubplans(plan)
	if !ok {
		t.Fatal("identical counts were not shared")
	}
	j := out.(*planner.Join)
	p, isProject := j.Right.(*planner.Project)
	if !isProject || p.Input != j.Left {
		t.Fatalf("right input is %s, want a Project over the left input", planner.Format(j.Right))
	}
	sameSchema(t, plan.Schema(), out.Schema())
	if uses := planner.SharedNodes(out)[j.Left]; uses != 2 {
		t.Fatalf("shared node has %d uses, want 2", uses)
	}
}

// TestShareIdenticalSubplansLeavesAlone checks the subtrees that must stay
// apart: different expressions (a filter on one side) and window
// aggregates writing a LATE DATA side table.
func TestShareIdenticalSubplansLeavesAlone(t *testing.T) {
	filtered := countPerWindow("n", "")
	filtered.Input = &planner.Filter{Input: shareScan(), Pred: &planner.Call{Fn: ">", T: types.Bool,
		Args: []planner.Scalar{&planner.ColRef{Index: 0, Name: "k", T: types.Int}, &planner.Const{V: types.IntValue(5)}}}}
	for name, plan := range map[string]planner.Node{
		"different input": selfJoin(countPerWindow("n", ""), filtered),
		"side table":      selfJoin(countPerWindow("n", "late"), countPerWindow("n", "late")),
	} {
		out, ok := planner.ShareIdenticalSubplans(plan)
		if ok || out != plan || len(planner.SharedNodes(out)) != 0 {
			t.Errorf("%s: shared:\n%s", name, planner.Physical(out, 1))
		}
	}
}

// TestShareIdenticalSubplansGroupOrder shares two counts grouped by the
// same keys in another order: the second use reads the shared node's
// columns reordered, so the join's schema and columns are unchanged.
func TestShareIdenticalSubplansGroupOrder(t *testing.T) {
	byKT := func(groups ...int) *planner.WindowAggregate {
		w := countPerWindow("n", "")
		w.Input = &planner.Scan{Kind: planner.ScanSource, Name: "s", Cols: []int{0, 1, 2}, TimeCol: 2,
			Out: types.Schema{{Name: "k", Type: types.Int}, {Name: "j", Type: types.String}, {Name: "ts", Type: types.Timestamp}}}
		w.Window.TimeCol, w.GroupCols = 2, groups
		in := w.Input.Schema()
		w.Names = []string{in[groups[0]].Name, in[groups[1]].Name, "window_start", "window_end", "n"}
		return w
	}
	plan := selfJoin(byKT(0, 1), byKT(1, 0))
	out, ok := planner.ShareIdenticalSubplans(plan)
	if !ok {
		t.Fatal("counts grouped in another order were not shared")
	}
	sameSchema(t, plan.Schema(), out.Schema())
	p, isProject := out.(*planner.Join).Right.(*planner.Project)
	if !isProject {
		t.Fatalf("right input is %s, want a Project", planner.Format(out.(*planner.Join).Right))
	}
	var got []int
	for _, e := range p.Exprs {
		got = append(got, e.(*planner.ColRef).Index)
	}
	if want := []int{1, 0, 2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("the Project reads columns %v, want %v", got, want)
	}
}
