package planner

import (
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// PropsOf derives the streaming properties of n's output: whether it only
// ever inserts rows (append-only) or also retracts them, which output
// column carries the watermark, and how the node's own keyed state is
// bounded.
func PropsOf(n Node) Props {
	switch x := n.(type) {
	case *Scan:
		return Props{AppendOnly: !x.Retracting, TimeCol: x.TimeCol}
	case *Filter:
		p := PropsOf(x.Input)
		return Props{AppendOnly: p.AppendOnly, TimeCol: p.TimeCol}
	case *TemporalFilter:
		// Rows leave when the clock passes a lower bound; with an upper
		// bound only they enter late but never leave.
		p := PropsOf(x.Input)
		return Props{AppendOnly: p.AppendOnly && x.Lower == nil, TimeCol: p.TimeCol, StateBound: x.StateBound()}
	case *Project:
		p := PropsOf(x.Input)
		out := Props{AppendOnly: p.AppendOnly, TimeCol: -1}
		for i, e := range x.Exprs {
			if r, ok := e.(*ColRef); ok && r.Index == p.TimeCol && p.TimeCol >= 0 {
				out.TimeCol = i
				break
			}
		}
		return out
	case *WindowAssign:
		p := PropsOf(x.Input)
		return Props{AppendOnly: p.AppendOnly, TimeCol: p.TimeCol}
	case *WindowAggregate:
		// A window emits once, at close, unless it re-emits: EMIT ON
		// UPDATE and EVERY replace early rows, LATE DATA UPDATE replaces
		// fired ones, and sessions replace the sessions they merge.
		c := x.Contract
		appendOnly := c.Emit == "on_window_close" && x.Window.Kind != "session" &&
			c.Policy != lateness.Update && c.Policy != lateness.UpdateSideOutput
		tc := len(x.GroupCols) + 1 // window_end; a session's end moves
		if x.Window.Kind == "session" {
			tc = -1
		}
		return Props{AppendOnly: appendOnly, TimeCol: tc,
			StateBound: "window_end + " + types.FormatInterval(c.Lateness)}
	case *Aggregate:
		bound := "unbounded"
		if tb := tableBound(x.Input); tb != "" {
			bound = tb
		}
		if x.TTL > 0 {
			bound = "STATE TTL " + types.FormatInterval(x.TTL)
		}
		bound += multisetNote(x)
		return Props{AppendOnly: false, TimeCol: -1, StateBound: bound}
	case *Join:
		l, r := PropsOf(x.Left), PropsOf(x.Right)
		bound := "unbounded"
		switch x.Kind {
		case IntervalJoin:
			bound = "interval " + x.Interval()
		case WindowJoin:
			bound = "window size " + types.FormatInterval(x.WindowSize)
		case TemporalJoin, LookupJoin:
			// Append-only over an append-only left input whatever the
			// table does: joined rows never change.
			return Props{AppendOnly: l.AppendOnly, TimeCol: x.LeftTime, StateBound: TemporalJoinBound(x)}
		}
		if x.Kind == Unbounded {
			if tb := tableBound(x); tb != "" {
				bound = tb
			}
		}
		if x.TTL > 0 {
			bound = "STATE TTL " + types.FormatInterval(x.TTL) + ttlClock(x)
		}
		return joinProps(x, l.AppendOnly && r.AppendOnly, bound)
	case *SemiJoin:
		return semiProps(x)
	case *ProjectSet:
		if x.Input == nil {
			return Props{AppendOnly: true, TimeCol: -1}
		}
		p := PropsOf(x.Input)
		return Props{AppendOnly: p.AppendOnly, TimeCol: p.TimeCol}
	case *Union:
		return unionProps(x)
	case *WindowTopN:
		return Props{AppendOnly: true, TimeCol: x.EndCol, StateBound: x.StateBound()}
	case *TopN:
		return Props{AppendOnly: false, TimeCol: -1, StateBound: x.StateBound()}
	case *OverAggregate:
		if x.Updating() {
			return Props{AppendOnly: false, TimeCol: -1, StateBound: x.StateBound()}
		}
		return Props{AppendOnly: true, TimeCol: x.TimeCol, StateBound: x.StateBound()}
	case *Materialize, *Sort, *Limit:
		p := PropsOf(n.Children()[0])
		return Props{AppendOnly: p.AppendOnly, TimeCol: p.TimeCol}
	}
	return Props{TimeCol: -1}
}

// String renders the properties with the watermark column's position.
func (p Props) String() string { return p.Format(nil) }

// Format renders the properties for EXPLAIN, naming the watermark column
// from out, the node's output schema.
func (p Props) Format(out types.Schema) string {
	s := "retracting"
	if p.AppendOnly {
		s = "append-only"
	}
	if p.TimeCol >= 0 {
		s += ", watermark " + colName(p.TimeCol, out)
	}
	if p.StateBound != "" {
		s += ", state " + p.StateBound
	}
	return s
}

// checkAppendOnlyInputs refuses operators that need append-only input but
// would get retractions: window aggregates and interval and window joins
// fold inserts only (their state keeps no multiset to retract from; a
// regular join does), and a non-windowed
// aggregate takes retractions only for the calls that can
// (checkRetractingAggregate).
func checkAppendOnlyInputs(n Node) error {
	var err error
	Transform(n, func(x Node) (Node, bool) {
		if err != nil {
			return x, false
		}
		var what string
		switch y := x.(type) {
		case *Aggregate:
			err = checkRetractingAggregate(y)
			return x, false
		case *WindowAggregate:
			if !PropsOf(y.Input).AppendOnly {
				what = "an aggregate over a retracting input"
			}
		case *WindowTopN:
			if !PropsOf(y.Input).AppendOnly {
				what = "a window Top-N over a retracting input"
			}
		case *OverAggregate:
			// The updating form takes deletes (exec/over_update.go).
			if !y.Updating() && !PropsOf(y.Input).AppendOnly {
				what = "a running aggregate OVER a retracting input with EMIT ON WINDOW CLOSE"
			}
		case *Join:
			// A regular join keeps every stored row and retracts the
			// pairs a delete formed (exec/join_retract.go); an interval
			// or window join's state is purged by the watermark, so it
			// folds inserts only.
			if y.Kind.Temporal() {
				// The table's changelog makes its versions; a retracting
				// left row would retract a pair formed in the past.
				if !PropsOf(y.Left).AppendOnly {
					what = "a temporal join (FOR SYSTEM_TIME AS OF) of a retracting input"
				}
			} else if y.Kind != Unbounded && (!PropsOf(y.Left).AppendOnly || !PropsOf(y.Right).AppendOnly) {
				what = "an interval or window join over a retracting input"
			}
		}
		if what != "" {
			err = sqlerr.New(sqlerr.FeatureNotSupport, "%s is not supported yet: %s", what, x.String()).
				WithHint("make the input emit final rows only (EMIT ON WINDOW CLOSE, no LATE DATA UPDATE)")
		}
		return x, false
	})
	return err
}

// ttlClock says which clock a join's STATE TTL runs on.
func ttlClock(j *Join) string {
	if j.LeftTime >= 0 && j.RightTime >= 0 {
		return " (event time)"
	}
	return " (wall clock)"
}

// joinProps are a join's properties over inputs that are append-only or
// not (in). A join over a retracting input retracts the pairs a deleted
// row formed. A regular outer join retracts: a NULL-padded row is replaced
// when its first match arrives. An interval or window outer join emits a
// padded row once, when the row can no longer match, so it stays
// append-only. The left time column is the watermark column unless the
// right side is preserved (a padded right row has no left time).
func joinProps(j *Join, in bool, bound string) Props {
	tc := j.LeftTime
	if j.Type.Preserves(1) {
		tc = -1
	}
	return Props{AppendOnly: in && (!j.Type.Outer() || j.Kind != Unbounded), TimeCol: tc, StateBound: bound}
}

// TemporalJoinBound is the state bound of a join FOR SYSTEM_TIME AS OF:
// a lookup join keeps the table's rows (its primary key bounds them); an
// event-time temporal join keeps, per key, the versions from the last one
// at or before the watermark on, and the left rows until both watermarks
// reach their time, so the watermarks' lag bounds both. Both spill
// whole keys past the state budget.
func TemporalJoinBound(j *Join) string {
	if j.Kind == LookupJoin {
		return "rows of TABLE " + j.Right.(*Scan).Name + " (by primary key)"
	}
	return "watermark (versions of TABLE " + j.Right.(*Scan).Name + " per key from the last at or before the watermark; rows until both watermarks reach them)"
}
