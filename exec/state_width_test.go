package exec

import (
	"errors"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// A view re-planned after an upgrade may read fewer columns than the one
// that wrote its state (PruneColumns now prunes below a keyed Top-N).
// The join and the keyed Top-N store rows without their width, so a row
// of the old width must fail as state of another layout, never be read
// with its columns shifted.

// TestTopNRefusesRowsOfAnotherWidth: a Top-N whose input has three
// columns restores a partition stored by one whose input had four.
func TestTopNRefusesRowsOfAnotherWidth(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	schema := types.Schema{{Name: "k", Type: types.String}, {Name: "v", Type: types.Int},
		{Name: "extra", Type: types.String}, {Name: "rn", Type: types.Int}}
	wide := &planner.TopN{Input: &planner.Scan{Out: schema, TimeCol: -1}, Fn: "row_number", Limit: 1,
		Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}}, RankCol: 3, RankName: "rn"}
	old := NewTopN(TopNConfig{ID: "t/", Node: wide, Out: Output{Op: &changeLog{}}, TimeCol: -1})
	row := types.Row{types.StringValue("a"), types.IntValue(5), types.StringValue("pad"), types.IntValue(0)}
	if err := old.Process(0, &Batch{Rows: []types.Row{row}}); err != nil {
		t.Fatal(err)
	}
	checkpointAll(t, st, 1, old)

	narrow := &planner.TopN{Input: &planner.Scan{Out: types.Schema{schema[0], schema[1], schema[3]}, TimeCol: -1},
		Fn: "row_number", Limit: 1, Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}}, RankCol: 2, RankName: "rn"}
	op := NewTopN(TopNConfig{ID: "t/", Node: narrow, Out: Output{Op: &changeLog{}}, TimeCol: -1})
	if err := op.Restore(st); err != nil {
		t.Fatal(err)
	}
	err = op.Process(0, &Batch{Rows: []types.Row{{types.StringValue("a"), types.IntValue(9), types.IntValue(0)}}})
	if !errors.Is(err, state.ErrVersion) {
		t.Fatalf("Process over rows of another width = %v, want an error of another layout", err)
	}
}

// TestJoinRefusesRowsOfAnotherWidth: a join whose left input has three
// columns restores a left row stored by one whose left input had four,
// and a right row probes it.
func TestJoinRefusesRowsOfAnotherWidth(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old := newCleanupJoin(t, JoinConfig{ID: "j/", Node: cleanupNode(nil, nil, -1, 0), Out: Output{Op: &changeLog{}}})
	left := types.Row{types.StringValue("a"), types.TimestampValue(100), types.IntValue(1), types.TimestampValue(120)}
	if err := old.Process(0, &Batch{Rows: []types.Row{left}}); err != nil {
		t.Fatal(err)
	}
	checkpointAll(t, st, 1, old)

	node := cleanupNode(nil, nil, -1, 0)
	node.Left = &planner.Scan{Out: cleanupSchema[:3], TimeCol: -1}
	j := newCleanupJoin(t, JoinConfig{ID: "j/", Node: node, Out: Output{Op: &changeLog{}}})
	if err := j.Restore(st); err != nil {
		t.Fatal(err)
	}
	right := types.Row{types.StringValue("a"), types.TimestampValue(110), types.IntValue(2), types.TimestampValue(130)}
	err = j.Process(1, &Batch{Rows: []types.Row{right}})
	if !errors.Is(err, state.ErrVersion) {
		t.Fatalf("probe of a row of another width = %v, want an error of another layout", err)
	}
}
