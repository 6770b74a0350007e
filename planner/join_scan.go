package planner

// ScannedSide returns the side of interval join j (0 left, 1 right) to
// keep unindexed, or -1 to index both. When one input emits at most one
// row per window — a TUMBLE or HOP WindowAggregate grouped by its window
// only, under projections and filters (Nexmark q7's per-window maximum) —
// the other input is probed once per window, not once per row: indexing
// each of its rows by join key (nearly unique for q7's price) costs a
// key state per row that no row ever looks up. That side is kept in time
// buckets instead, and the rare probe scans the buckets its interval
// overlaps (exec/join_scan.go). The choice changes cost only: either
// layout joins the same rows. An outer join indexes both sides: the
// preserved side's rows carry a matched flag the indexed layout keeps.
func ScannedSide(j *Join) int {
	if j.Kind != IntervalJoin || j.TTL > 0 || j.Type.Outer() {
		return -1
	}
	switch {
	case oneRowPerWindow(j.Right):
		return 0
	case oneRowPerWindow(j.Left):
		return 1
	}
	return -1
}

// oneRowPerWindow reports whether n emits at most one row per window: a
// TUMBLE or HOP WindowAggregate with no group key but the window, seen
// through projections and filters (which keep or drop its rows, never
// add any).
func oneRowPerWindow(n Node) bool {
	for {
		switch x := n.(type) {
		case *Project:
			n = x.Input
		case *Filter:
			n = x.Input
		case *WindowAggregate:
			return len(x.GroupCols) == 0 && (x.Window.Kind == "tumble" || x.Window.Kind == "hop")
		default:
			return false
		}
	}
}
