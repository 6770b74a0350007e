package exec

import (
	"sort"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// distinctCalls are DISTINCT aggregates over each key form distinctAcc
// keeps: BIGINT and VARCHAR as themselves, DECIMAL by its key form.
var distinctCalls = []planner.AggCall{
	{Fn: "count", T: types.Int, Arg: 0, Distinct: true},
	{Fn: "sum", T: types.Int, Arg: 0, Distinct: true},
	{Fn: "max", T: types.String, Arg: 1, Distinct: true},
	{Fn: "sum", T: types.Decimal, Arg: 2, Distinct: true},
	{Fn: "count", T: types.Int, Arg: 2, Distinct: true},
	{Fn: "count", T: types.Int, Arg: -1},
}

// decimalAt is 0, 0.1 or 0.2, at scale 1 or 2 (0.1 and 0.10 are one
// value).
func decimalAt(i int) types.Value {
	if i%2 == 0 {
		return types.DecimalValue(int64(i%3), 1)
	}
	return types.DecimalValue(int64(i%3)*10, 2)
}

func distinctRows() []types.Row {
	var rows []types.Row
	for i := 0; i < 50; i++ {
		rows = append(rows, types.Row{types.IntValue(int64(i % 7)), types.StringValue(string(rune('a' + i%5))),
			decimalAt(i)})
	}
	return append(rows, types.Row{types.NullValue, types.NullValue, types.NullValue})
}

// TestDistinctAccFoldsAsItGoes checks the running results against a fold
// of the whole set, and that a restored set gives the same results.
func TestDistinctAccFoldsAsItGoes(t *testing.T) {
	a := newAccs(distinctCalls)
	for _, r := range distinctRows() {
		a.add(distinctCalls, r)
	}
	want := []string{"7", "21", "e", "0.30", "3", "51"}
	for i, x := range a {
		if got := x.result().String(); got != want[i] {
			t.Errorf("%s(DISTINCT) = %s, want %s", distinctCalls[i].Fn, got, want[i])
		}
	}
	back := newAccs(distinctCalls)
	if err := back.decode(a.encode()); err != nil {
		t.Fatal(err)
	}
	for i, x := range back {
		if got := x.result().String(); got != want[i] {
			t.Errorf("restored %s(DISTINCT) = %s, want %s", distinctCalls[i].Fn, got, want[i])
		}
	}
}

// TestAccMergeIsAddingAll: merging two accumulators that saw the rows
// split in two (as two sessions that merge) gives the results of one
// that saw all of them, and later rows still fold in; a DISTINCT set
// merges with one that shares values (overlap) without counting them
// twice.
func TestAccMergeIsAddingAll(t *testing.T) {
	plain := []planner.AggCall{{Fn: "count", T: types.Int, Arg: -1}, {Fn: "sum", T: types.Int, Arg: 0},
		{Fn: "min", T: types.String, Arg: 1}, {Fn: "avg", T: types.Float, Arg: 2},
		{Fn: "sum", T: types.Decimal, Arg: 2}, {Fn: "array_agg", T: types.ArrayOf(types.Int), Arg: 0}}
	for _, tc := range []struct {
		calls   []planner.AggCall
		overlap int
	}{{plain, 0}, {distinctCalls[:5], 0}, {distinctCalls[:5], 7}} {
		rows := distinctRows()
		all, left, right := newAccs(tc.calls), newAccs(tc.calls), newAccs(tc.calls)
		for i, r := range rows[:40] {
			all.add(tc.calls, r)
			if i < 20+tc.overlap {
				left.add(tc.calls, r)
			}
			if i >= 20 {
				right.add(tc.calls, r)
			}
		}
		for i := range left {
			left[i].merge(right[i])
		}
		for _, r := range rows[40:] {
			all.add(tc.calls, r)
			left.add(tc.calls, r)
		}
		for i := range all {
			if want, got := all[i].result().String(), left[i].result().String(); got != want {
				t.Errorf("%s (DISTINCT %v, overlap %d) merged = %s, want %s", tc.calls[i].Fn, tc.calls[i].Distinct, tc.overlap, got, want)
			}
		}
	}
}

// TestAggregateEncodeIsEncodeValue checks that a group's state, appended
// accumulator by accumulator, decodes to the rows encode gives (each set
// in its own order; a set's row in appendState's form read back through
// decode first).
func TestAggregateEncodeIsEncodeValue(t *testing.T) {
	e := &aggEntry{group: types.Row{types.StringValue("g")}, acc: newAccs(distinctCalls), last: 42}
	for _, r := range distinctRows() {
		e.acc.add(distinctCalls, r)
	}
	a := &Aggregate{}
	for _, emitted := range []types.Row{nil, {types.IntValue(1)}} {
		e.emitted = emitted
		want := []types.Row{{types.IntValue(42), types.BoolValue(true)}, e.group, e.emitted}
		want = append(want, e.acc.encode()...)
		want = append(want, types.Row{types.IntValue(setsSpilled)}) // no chunked sets: a header of the mode alone
		got, err := state.DecodeValue(a.encodeWith(e, types.BoolValue(true)))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("encodeWith: %d rows, want %d", len(got), len(want))
		}
		read := newAccs(distinctCalls)
		if err := read.decode(got[3 : 3+len(read)]); err != nil {
			t.Fatal(err)
		}
		copy(got[3:], read.encode())
		for i := range want {
			if g, w := sortedStrings(got[i]), sortedStrings(want[i]); g != w {
				t.Errorf("row %d = %s, want %s", i, g, w)
			}
		}
	}
}

// sortedStrings is r's values as text, sorted.
func sortedStrings(r types.Row) string {
	s := make([]string, len(r))
	for i, v := range r {
		s[i] = v.String()
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}
