package exec

import (
	"math"

	"github.com/streamsql/streamsql/types"
)

// Join state cleaning by watermark (planner.JoinCleanup): a regular inner
// join of append-only inputs whose residual compares one input's
// watermark column with a timestamp column of the other drops a stored
// row as soon as no row still to come on the other side can satisfy the
// comparison, rather than at its STATE TTL expiry (or never, without
// one). Nexmark q4/q9's `B.date_time BETWEEN A.date_time AND A.expires`
// drops a bid once the auctions' watermark passes its time, an auction
// once the bids' watermark passes its expiry.
//
// The row's expiry is computed once, on arrival, and stored as the row's
// time so that the TTL formula (time + TTL) gives it: the timers, the
// purge on the watermark, checkpoints and spilling handle such rows as
// any TTL row. A row whose side has neither a TTL nor a conjunct never
// expires (neverExpires: no timer). A row behind its own input's
// watermark (late) is joined with the rows still held, as under STATE
// TTL: partners dropped already are not matched (docs/sql.md).

// neverExpires is the time of a regular join's row that never expires.
const neverExpires int64 = math.MaxInt64

// cleanTime is the time stored with row r of side (t its time for STATE
// TTL): the earlier of its TTL expiry and its time conjuncts' expiries,
// less the TTL; neverExpires when neither ends it.
func (j *Join) cleanTime(side int, r types.Row, t int64) int64 {
	e := neverExpires
	if j.n.TTL > 0 {
		e = t + j.n.TTL
	}
	for _, c := range j.cleanup[side] {
		e = min(e, c.Expiry(r[c.Col].I)) // nullBound kept NULLs out
	}
	if e == neverExpires {
		return e
	}
	if j.n.TTL == 0 && e == 0 {
		return 1 // time 0 without a TTL reads as "stored by an older build" (Join.expiry); 1 µs later is as correct
	}
	return e - j.n.TTL
}

// nullBound reports whether row r of side has a NULL in a column a time
// conjunct compares: the conjunct is then not true for any pair, so the
// row matches nothing now or later (the join is inner).
func (j *Join) nullBound(side int, r types.Row) bool {
	for _, c := range j.cleanup[side] {
		if r[c.Col].IsNull() {
			return true
		}
	}
	return false
}
