package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
)

// outerNode is n as an outer join of type typ.
func outerNode(n *planner.Join, typ planner.JoinType) *planner.Join {
	c := *n
	c.Type = typ
	return &c
}

// TestHarnessIntervalLeftJoin: a left row that matched is never padded;
// one that did not is padded once the right watermark passes its last
// instant (ts + 10), and a NULL key is padded at once. Checkpoints and
// restores in the harness keep the matched flags.
func TestHarnessIntervalLeftJoin(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "join/interval-left",
		keys:  [][]int{{0}, {0}},
		build: joinBuild(outerNode(intervalNode(0, 10, false, false, nil), planner.LeftOuterJoin)),
		events: []event{
			in("a", 10, 1), in("b", 10, 2), in("c", 30, 3), inR("a", 15, 4), inNull(0, 10, 5), inNull(1, 12, 6),
			wmAt(1, 20), // b@10 may still match a right row at 20
			wmAt(1, 21), // b@10 is padded; a@10 matched
			inR("c", 45, 7),
			wmAt(0, 50), wmAt(1, 50), // c@30 padded (c@45 is past its bound)
		},
		want:    []string{"a @10 1 a @15 4", "b @10 2 NULL NULL NULL", "NULL @10 5 NULL NULL NULL", "c @30 3 NULL NULL NULL"},
		reorder: true,
	})
}

// TestHarnessRegularFullJoin: a full outer join without bounds pads each
// row on arrival and retracts the padding at its first match; the
// consolidated output is Postgres' FULL JOIN.
func TestHarnessRegularFullJoin(t *testing.T) {
	n := outerNode(intervalNode(0, 0, false, false, nil), planner.FullOuterJoin)
	n.Kind, n.LeftTime, n.RightTime = planner.Unbounded, -1, -1
	runHarness(t, harnessCase{
		name:  "join/regular-full",
		keys:  [][]int{{0}, {0}},
		build: joinBuild(n),
		events: []event{
			in("a", 10, 1), inR("b", 10, 2), inR("a", 20, 3), in("a", 30, 4), inNull(0, 5, 5), inNull(1, 6, 6),
			in("c", 40, 7), inR("c", 41, 8), in("d", 50, 9),
		},
		want: []string{"a @10 1 a @20 3", "a @30 4 a @20 3", "NULL NULL NULL b @10 2",
			"NULL @5 5 NULL NULL NULL", "NULL NULL NULL NULL @6 6", "c @40 7 c @41 8", "d @50 9 NULL NULL NULL"},
		reorder: true,
	})
}
