package exec

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// teeCount is count(*) per k per 10 s TUMBLE window of source s (k, ts).
func teeCount() *planner.WindowAggregate {
	scan := &planner.Scan{Kind: planner.ScanSource, Name: "s", Cols: []int{0, 1}, TimeCol: 1,
		Out: types.Schema{{Name: "k", Type: types.Int}, {Name: "ts", Type: types.Timestamp}}}
	return &planner.WindowAggregate{Input: scan, Window: planner.WindowSpec{Kind: "tumble", TimeCol: 1, Size: 10_000_000, Slide: 10_000_000},
		GroupCols: []int{0}, Aggs: []planner.AggCall{{Fn: "count", Arg: -1, Name: "n", T: types.Int}},
		Names:    []string{"k", "window_start", "window_end", "n"},
		Contract: planner.Contract{Policy: lateness.Drop, Emit: "on_window_close"}}
}

// teeSelfJoin pairs keys with the same count in the same window.
func teeSelfJoin(l, r planner.Node) *planner.Materialize {
	j := &planner.Join{Left: l, Right: r, Kind: planner.WindowJoin, LeftKeys: []int{1, 3}, RightKeys: []int{1, 3},
		LeftTime: 1, RightTime: 1, WindowSize: 10_000_000}
	return &planner.Materialize{Input: j, View: "pairs"}
}

// runTeePlan feeds rows of (k, second) to every scan of the plan at
// parallelism par, then a watermark past their windows, and returns the
// view's rows and the pipeline.
func runTeePlan(t *testing.T, root *planner.Materialize, par int) ([]string, *Pipeline) {
	t.Helper()
	p, err := BuildPipeline(root, Env{Parallelism: par, Late: &lateness.Counters{}, EvalErrors: &EvalErrors{}})
	if err != nil {
		t.Fatal(err)
	}
	var rows []types.Row
	for i, k := range []int64{1, 2, 1, 3, 2, 1} {
		rows = append(rows, types.Row{types.IntValue(k), types.TimestampValue(int64(i) * 3_000_000)})
	}
	for _, sc := range p.Scans {
		if err := sc.Out.Emit(&Batch{Rows: rows}); err != nil {
			t.Fatal(err)
		}
		if err := sc.Out.EmitWatermark(60_000_000); err != nil {
			t.Fatal(err)
		}
	}
	got, err := p.View0.Rows()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range got {
		out = append(out, r.String())
	}
	slices.Sort(out)
	return out, p
}

// TestSharedNodeFeedsEveryConsumer runs a self-join of one count, shared
// by the planner, against the same join over two copies: the view's rows
// are the same, the shared pipeline keeps one window aggregate (one
// scan, one fewer stateful operator) and its figures list the node once,
// under both of its parents.
func TestSharedNodeFeedsEveryConsumer(t *testing.T) {
	for _, par := range []int{1, 2} {
		unshared := teeSelfJoin(teeCount(), teeCount())
		sharedIn, ok := planner.ShareIdenticalSubplans(unshared.Input)
		if !ok {
			t.Fatal("the planner did not share the count")
		}
		shared := &planner.Materialize{Input: sharedIn, View: "pairs"}
		want, pu := runTeePlan(t, unshared, par)
		got, ps := runTeePlan(t, shared, par)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("parallelism %d: shared plan gave\n%s\nwant\n%s", par, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if len(ps.Scans) != 1 || len(ps.Stateful) != len(pu.Stateful)-1 {
			t.Fatalf("parallelism %d: shared pipeline has %d scans and %d stateful operators, unshared %d", par, len(ps.Scans), len(ps.Stateful), len(pu.Stateful))
		}
		parents := 0
		for _, op := range ps.Ops {
			for _, c := range op.Children {
				if _, isWA := ps.Ops[c].Node.(*planner.WindowAggregate); isWA {
					parents++
				}
			}
		}
		if len(ps.Ops) != len(pu.Ops)-2 || parents != 2 {
			t.Fatalf("parallelism %d: %d figures (unshared %d), the count under %d parents", par, len(ps.Ops), len(pu.Ops), parents)
		}
	}
}
