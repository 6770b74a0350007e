package planner

import (
	"strings"

	"github.com/streamsql/streamsql/types"
)

// TimeCleanup is a conjunct of a regular inner join's residual that ends
// the life of one side's stored rows: a row of Side can match no row
// still to come on the other side once that side's watermark passes the
// row's column Col plus Offset (Strict: once it reaches it). It is read
// from a comparison of the other side's watermark column with a
// timestamp column of Side, each plus or minus a constant interval:
//
//   - r.c >= l.wm (+ k): a left row to come has l.wm >= the left
//     watermark (a row behind it is late), so a right row can match none
//     once the left watermark passes r.c (- k): right rows are dropped then;
//   - r.wm <= l.c (+ k): likewise a left row once the right watermark
//     passes l.c (+ k);
//
// and the same with > and < (Strict) or the operands swapped. Nexmark
// q4/q9's `B.date_time BETWEEN A.date_time AND A.expires` is one of each.
// A NULL Col fails the comparison: such a row matches nothing.
type TimeCleanup struct {
	Side   int    // the side whose rows it drops: 0 left, 1 right
	Col    int    // the column of Side's row (in Side's schema)
	Offset int64  // added to the column's value
	Strict bool   // the row expires once the watermark reaches, not passes, Col + Offset
	Name   string // the column as the query names it, for EXPLAIN
}

// Expiry is the last watermark of the other side at which a row whose Col
// holds t can still find a match (the row leaves state once the
// watermark passes it).
func (c TimeCleanup) Expiry(t int64) int64 {
	if c.Strict {
		return t + c.Offset - 1
	}
	return t + c.Offset
}

// JoinCleanup returns the time conjuncts that drop stored rows of join
// j early (join state cleaning by watermark), or nil. Only a regular
// (Unbounded) inner join of two append-only inputs that both have a
// watermark column qualifies: an outer join would have to emit a dropped
// preserved row NULL-padded, and a retracting input's delete must find
// its stored row. The conjuncts stay in the residual, which still
// filters every pair; STATE TTL still applies, and a row leaves at the
// earlier of its TTL expiry and its conjuncts' expiries.
func JoinCleanup(j *Join) []TimeCleanup {
	if j.Kind != Unbounded || j.Type != InnerJoin || j.Residual == nil {
		return nil
	}
	lp, rp := PropsOf(j.Left), PropsOf(j.Right)
	if !lp.AppendOnly || !rp.AppendOnly || lp.TimeCol < 0 || rp.TimeCol < 0 {
		return nil
	}
	nl := len(j.Left.Schema())
	var out []TimeCleanup
	for _, part := range splitAnd(j.Residual) {
		tb, ok := timeBoundOf(part, nl)
		if !ok {
			continue
		}
		// right.rc - left.lc >= bound (lower) or <= bound (upper)
		switch {
		case tb.lower && tb.lc == lp.TimeCol:
			// left.wm <= right.rc - bound: a right row's last left time
			out = append(out, TimeCleanup{Side: 1, Col: tb.rc, Offset: -tb.bound, Strict: tb.strict, Name: refName(part, nl+tb.rc)})
		case !tb.lower && tb.rc == rp.TimeCol:
			// right.wm <= left.lc + bound: a left row's last right time
			out = append(out, TimeCleanup{Side: 0, Col: tb.lc, Offset: tb.bound, Strict: tb.strict, Name: refName(part, tb.lc)})
		}
	}
	return out
}

// refName is the name of the first reference to column idx in s.
func refName(s Scalar, idx int) string {
	name := ""
	MapColRefs(s, func(c *ColRef) Scalar {
		if c.Index == idx && name == "" {
			name = c.Name
		}
		return c
	})
	return name
}

// cleanupString renders a join's TimeCleanups for EXPLAIN: which rows
// leave when which watermark passes what.
func cleanupString(cs []TimeCleanup) string {
	sides := [2]string{"left", "right"}
	parts := make([]string, len(cs))
	for i, c := range cs {
		op := " > "
		if c.Strict {
			op = " >= "
		}
		at := c.Name
		switch {
		case c.Offset > 0:
			at += " + " + types.FormatInterval(c.Offset)
		case c.Offset < 0:
			at += " - " + types.FormatInterval(-c.Offset)
		}
		parts[i] = sides[c.Side] + " rows when " + sides[1-c.Side] + " wm" + op + at
	}
	return strings.Join(parts, ", ")
}
