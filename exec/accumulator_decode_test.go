package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TestDecodeReplacesState decodes a partial holding a DECIMAL sum, then
// one of no values, into the same accumulator, as the global phase of a
// split window aggregate does (partialAccs): the second must hold
// nothing of the first. A group whose only row on one instance had a
// NULL price once merged that instance's empty partial as the previous
// partial's sum, counting it twice.
func TestDecodeReplacesState(t *testing.T) {
	for _, fn := range []string{"sum", "avg"} {
		call := planner.AggCall{Fn: fn, T: types.Decimal}
		full := newAccumulator(call)
		full.add(types.DecimalValue(150, 2))
		empty := newAccumulator(call)
		empty.add(types.NullValue)
		scratch := newAccumulator(call)
		if err := scratch.decode(full.encode()); err != nil {
			t.Fatal(err)
		}
		if err := scratch.decode(empty.encode()); err != nil {
			t.Fatal(err)
		}
		window := newAccumulator(call)
		window.add(types.DecimalValue(25, 2))
		want := window.result()
		window.merge(scratch)
		if got := window.result(); types.Compare(got, want) != 0 {
			t.Fatalf("%s: merging an empty partial decoded after a full one gave %v, want %v", fn, got, want)
		}
	}
}
