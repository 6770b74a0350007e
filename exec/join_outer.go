package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// Outer joins (planner.Join.Type): a preserved side's row that matches
// nothing is emitted with NULLs for the other side's columns (padded).
//
// A regular (unbounded) outer join emits the padded row when the row
// arrives unmatched and retracts it when its first match arrives: its
// output retracts. Over append-only inputs a row's matches only grow
// while it is stored; over retracting ones the padded row comes back when
// its last match leaves (join_retract.go). STATE TTL expiry drops the row
// without changing the output (Flink), so a padded row stays padded and a
// pair stays.
//
// An interval outer join emits the padded row once, when the other
// input's watermark purges the row unmatched (it can no longer match);
// a window outer join when the window closes. Both stay append-only.
//
// The interval and regular joins keep, per stored row of a preserved
// side, whether it matched: a Bool value after the row's columns in its
// encoding (join_rows.go), so checkpoints and the spill area carry it
// with the row. The flag's last byte says it and is set (and, over a
// retracting input, cleared) in place.

var (
	matchedFlag   = types.AppendCodec(nil, types.BoolValue(true))
	unmatchedFlag = types.AppendCodec(nil, types.BoolValue(false))
)

func init() {
	if len(matchedFlag) != len(unmatchedFlag) {
		panic("exec: the matched flag's encodings differ in length")
	}
}

// flags reports whether side's stored rows carry a matched flag: a
// preserved side of an interval or regular join (a window join pairs a
// window's rows when it closes, so it needs none).
func (j *Join) flags(side int) bool {
	return j.n.Type.Preserves(side) && j.n.Kind != planner.WindowJoin
}

// retracts reports whether the join's output retracts: a regular outer
// join replaces a padded row when its first match arrives.
func (j *Join) retracts() bool {
	return j.n.Type.Outer() && j.n.Kind == planner.Unbounded
}

// add appends row to out with sign d; a retracting join's batches carry
// every row's sign.
func (j *Join) add(out *Batch, row types.Row, d int8) {
	if j.signed {
		change(out, row, d)
		return
	}
	out.Rows = append(out.Rows, row)
}

// padded is row r of side with NULLs (the zero Value) for the other
// side's columns.
func (j *Join) padded(side int, r types.Row) types.Row {
	row := make(types.Row, j.width[0]+j.width[1])
	if side == 1 {
		copy(row[j.width[0]:], r[:j.width[1]])
	} else {
		copy(row, r[:j.width[0]])
	}
	return row
}

// rowAt decodes row i of side's rows, without the matched flag.
func (j *Join) rowAt(side int, rs *joinRows, i int) (types.Row, error) {
	r, err := rs.row(i)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", j.id, err)
	}
	if j.flags(side) {
		if len(r) != j.width[side]+1 {
			return nil, errCorrupt(j.id)
		}
		r = r[:j.width[side]]
	} else if len(r) != j.width[side] {
		return nil, errCorrupt(j.id) // stored for another plan's columns
	}
	return r, nil
}

// matchPartner records that row i of partner key jk of side matched: the
// first match of a regular join's row retracts its padded row.
func (j *Join) matchPartner(side int, jk *joinKey, i int, o types.Row, out *Batch) {
	if !j.flags(side) || jk.rows.matched(i) {
		return
	}
	jk.rows.setMatched(i)
	j.markDirty(side, jk)
	if j.retracts() {
		j.add(out, j.padded(side, o), -1)
	}
}

// unmatched handles row r of side that matched nothing and is not kept
// to match later (a NULL key, or already expired): a preserved side
// emits it padded now; an inner join counts an expired row late.
func (j *Join) unmatched(side int, r types.Row, out *Batch) bool {
	if !j.n.Type.Preserves(side) {
		return false
	}
	j.add(out, j.padded(side, r), 1)
	return true
}

// unmatchedSigned is unmatched for a change with sign d: the delete of
// a row that was never kept retracts its padded row.
func (j *Join) unmatchedSigned(side int, r types.Row, d int8, out *Batch) {
	if d >= 0 {
		j.unmatched(side, r, out)
		return
	}
	if j.n.Type.Preserves(side) {
		j.add(out, j.padded(side, r), -1)
	}
}

// padPurged returns the callback that emits, to out, the rows of side an
// interval outer join purges unmatched (nil when none are emitted).
func (j *Join) padPurged(side int, out *Batch) func(t int64, r types.Row, matched bool) {
	if !j.flags(side) || j.n.Kind != planner.IntervalJoin {
		return nil
	}
	return func(_ int64, r types.Row, matched bool) {
		if !matched {
			j.add(out, j.padded(side, r), 1)
		}
	}
}

// outWatermark is the watermark the join forwards: the lower of its
// inputs', held back for an interval join that pads left rows until the
// right watermark purges them (a left row is purged once the right
// watermark passes its time + upper), so the rows it pads are not late
// for what reads the left time downstream.
func (j *Join) outWatermark() int64 {
	m := min(j.wm[0], j.wm[1])
	if j.n.Kind == planner.IntervalJoin && j.n.Type.Preserves(0) && j.n.Upper > 0 {
		if j.wm[1] < types.MinTime+j.n.Upper {
			return types.MinTime
		}
		m = min(m, j.wm[1]-j.n.Upper)
	}
	return m
}

// padClosed appends to out, padded, the rows of a closing window of a
// preserved side that no row of the other side matched.
func (j *Join) padClosed(closed [2][]closedRow, matched [2][]bool, out *Batch) {
	for side := 0; side < 2; side++ {
		if !j.n.Type.Preserves(side) {
			continue
		}
		for i, c := range closed[side] {
			if !matched[side][i] {
				j.add(out, j.padded(side, c.row), 1)
			}
		}
	}
}
