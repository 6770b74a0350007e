package exec

import (
	"math"
	"reflect"
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestResetIsNew checks that every resettable accumulator, after values
// (a DECIMAL sum past int64 included) and a reset, encodes and answers as
// a new one, and that a row it encoded before the reset is unchanged by
// what it adds after.
func TestResetIsNew(t *testing.T) {
	big := types.DecimalValue(math.MaxInt64/2, 2)
	cases := []struct {
		call planner.AggCall
		vals []types.Value
	}{
		{planner.AggCall{Fn: "count", Arg: -1}, []types.Value{types.IntValue(1), types.NullValue}},
		{planner.AggCall{Fn: "count", Arg: 0}, []types.Value{types.IntValue(1), types.NullValue}},
		{planner.AggCall{Fn: "sum", Arg: 0, T: types.Int}, []types.Value{types.IntValue(3), types.IntValue(4)}},
		{planner.AggCall{Fn: "sum", Arg: 0, T: types.Float}, []types.Value{types.FloatValue(1.5)}},
		{planner.AggCall{Fn: "sum", Arg: 0, T: types.Decimal}, []types.Value{big, big, big, types.DecimalValue(1, 5)}},
		{planner.AggCall{Fn: "min", Arg: 0}, []types.Value{types.StringValue("b"), types.StringValue("a")}},
		{planner.AggCall{Fn: "max", Arg: 0}, []types.Value{types.IntValue(2), types.IntValue(9)}},
		{planner.AggCall{Fn: "avg", Arg: 0}, []types.Value{types.IntValue(2), big, types.FloatValue(0.5)}},
	}
	for _, c := range cases {
		a := newAccumulator(c.call)
		r, ok := a.(resetter)
		if !ok {
			t.Fatalf("%s: not a resetter", c.call.Fn)
		}
		for _, v := range c.vals {
			a.add(v)
		}
		before := a.encode()
		kept := append(types.Row(nil), before...)
		r.reset()
		fresh := newAccumulator(c.call)
		if got, want := a.encode(), fresh.encode(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s after reset encodes %v, a new one %v", c.call.Fn, got, want)
		}
		if got, want := a.result(), fresh.result(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s after reset answers %v, a new one %v", c.call.Fn, got, want)
		}
		for _, v := range c.vals {
			a.add(v)
		}
		if !reflect.DeepEqual(before, kept) {
			t.Errorf("%s: a row encoded before the reset changed from %v to %v", c.call.Fn, kept, before)
		}
		if got := (accs{a}).appendEncode(nil); !reflect.DeepEqual(got, a.encode()) {
			t.Errorf("%s: appendEncode %v, encode %v", c.call.Fn, got, a.encode())
		}
	}
}
