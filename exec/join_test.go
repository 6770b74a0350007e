package exec

import (
	"testing"

	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// intervalNode is a JOIN b ON a.k = b.k over (k VARCHAR, ts TIMESTAMP, x
// BIGINT) with right.ts - left.ts bounded by [lower, upper], each bound
// strict when asked.
func intervalNode(lower, upper int64, lowerStrict, upperStrict bool, nullSafe []bool) *planner.Join {
	return &planner.Join{
		Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema},
		Kind: planner.IntervalJoin, LeftKeys: []int{0}, RightKeys: []int{0}, NullSafe: nullSafe,
		LeftTime: 1, RightTime: 1, Lower: lower, Upper: upper, LowerStrict: lowerStrict, UpperStrict: upperStrict,
	}
}

// inNull is a row with a NULL key on port.
func inNull(port int, ts, v int64) event {
	return event{port: port, row: types.Row{{}, types.TimestampValue(ts), types.IntValue(v)}, wm: autoWM}
}

// TestHarnessIntervalJoinStrict: b.ts > a.ts AND b.ts < a.ts + 10 excludes
// both boundary instants, rows with a NULL key match nothing, and a left
// row lives until the right watermark passes the last instant it can
// match (ts + 9): at 19 it still joins, from 20 it is gone.
func TestHarnessIntervalJoinStrict(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "join/interval-strict",
		keys:  [][]int{{0}, {0}},
		build: joinBuild(intervalNode(0, 10, true, true, nil)),
		events: []event{
			in("a", 10, 1), inR("a", 10, 1), inR("a", 15, 2), inR("a", 20, 3),
			inNull(0, 10, 4), inNull(1, 12, 5),
			wmAt(1, 19),
			inR("a", 19, 6), // the last instant a@10 matches: kept until now
			wmAt(1, 20),     // purges a@10
			inR("a", 20, 7), // would not match anyway
			wmAt(0, 20),
			in("a", 20, 8), // b@20 and b@19 are before it: no match
		},
		want:    []string{"a @10 1 a @15 2", "a @10 1 a @19 6"},
		reorder: true,
	})
}

// TestHarnessIntervalJoinNullSafe: with a null-safe key (<=>) a NULL key
// pairs with a NULL key, inside the interval only.
func TestHarnessIntervalJoinNullSafe(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "join/interval-null-safe",
		keys:  [][]int{{0}, {0}},
		build: joinBuild(intervalNode(0, 10, false, false, []bool{true})),
		events: []event{
			in("a", 10, 1), inR("a", 12, 2), inNull(0, 10, 3), inNull(1, 12, 4), inNull(1, 21, 5),
			wmAt(0, 30), wmAt(1, 30),
		},
		want:    []string{"a @10 1 a @12 2", "NULL @10 3 NULL @12 4"},
		reorder: true,
	})
}

// TestJoinStatePurgeAtLastMatch checks that an interval join drops each
// stored row exactly when the other side's watermark passes the last
// instant it can match (rows to come are at or after the watermark): never
// earlier, and not later, for inclusive and strict bounds on either side.
func TestJoinStatePurgeAtLastMatch(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		lowerStrict, upperStrict bool
		// the other side's watermark that still keeps the row, and the
		// first that purges it; left row at 100, right row at 100, bounds
		// [-5, 10] on right - left
		leftKeep, leftGone, rightKeep, rightGone int64
	}{
		{"inclusive", false, false, 110, 111, 105, 106},
		{"strict", true, true, 109, 110, 104, 105},
		{"strict upper", false, true, 109, 110, 105, 106},
		{"strict lower", true, false, 110, 111, 104, 105},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for side := 0; side < 2; side++ {
				keep, gone := tc.leftKeep, tc.leftGone
				if side == 1 {
					keep, gone = tc.rightKeep, tc.rightGone
				}
				j := NewJoin(JoinConfig{ID: "j/", Node: intervalNode(-5, 10, tc.lowerStrict, tc.upperStrict, nil), Late: &lateness.Counters{}})
				row := types.Row{types.StringValue("a"), types.TimestampValue(100), types.IntValue(1)}
				if err := j.Process(side, &Batch{Rows: []types.Row{row}}); err != nil {
					t.Fatal(err)
				}
				if err := j.Watermark(1-side, keep); err != nil {
					t.Fatal(err)
				}
				if n := j.storedRows(side); n != 1 {
					t.Fatalf("side %d: other watermark %d: %d rows stored, want 1 (it can still match)", side, keep, n)
				}
				if err := j.Watermark(1-side, gone); err != nil {
					t.Fatal(err)
				}
				if n := j.storedRows(side); n != 0 {
					t.Fatalf("side %d: other watermark %d: %d rows stored, want 0 (nothing to come can match)", side, gone, n)
				}
			}
		})
	}
}

// TestJoinDropsNullKeysOnArrival: a row whose key is NULL (not null-safe)
// can never match, so no join kind keeps it.
func TestJoinDropsNullKeysOnArrival(t *testing.T) {
	window := &planner.Join{
		Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema},
		Kind: planner.WindowJoin, LeftKeys: []int{0, 1}, RightKeys: []int{0, 1}, LeftTime: 1, RightTime: 1, WindowSize: 10,
	}
	ttl := &planner.Join{
		Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema},
		Kind: planner.Unbounded, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1, TTL: 10,
	}
	for _, n := range []*planner.Join{intervalNode(0, 10, false, false, nil), window, ttl} {
		j := NewJoin(JoinConfig{ID: "j/", Node: n, Late: &lateness.Counters{}})
		for side := 0; side < 2; side++ {
			row := types.Row{{}, types.TimestampValue(100), types.IntValue(1)}
			if err := j.Process(side, &Batch{Rows: []types.Row{row}}); err != nil {
				t.Fatal(err)
			}
			if got := j.storedRows(side); got != 0 {
				t.Errorf("%s join, side %d: %d rows with a NULL key stored, want 0", n.Kind, side, got)
			}
		}
	}
}

// storedRows counts the rows side holds in memory.
func (j *Join) storedRows(side int) int {
	n := 0
	if side == j.scanned {
		for _, b := range j.scan.buckets {
			n += len(b.rows)
		}
	}
	j.sides[side].each(func(jk *joinKey) bool {
		n += jk.rows.len()
		return true
	})
	return n
}
