package exec

import (
	"slices"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestProjectInPlaceMatchesProject: the in-place projection of a
// connector's rows gives what project gives, and leaves rows it may not
// reuse (or whose columns it cannot move forward safely) untouched.
func TestProjectInPlaceMatchesProject(t *testing.T) {
	mk := func() []types.Row {
		return []types.Row{
			{types.IntValue(1), types.IntValue(2), types.StringValue("a"), types.IntValue(4)},
			{types.IntValue(5), types.NullValue, types.StringValue("b"), types.IntValue(8)},
		}
	}
	for _, cols := range [][]int{{0, 2, 3}, {1, 3}, {3}, {2, 0}, {1, 1}, {0, 1, 2, 3}} {
		want := ProjectRows(mk(), cols)
		for _, reuse := range []bool{true, false} {
			in := mk()
			got := projectInPlace(in, cols, reuse)
			if len(got) != len(want) {
				t.Fatalf("cols %v reuse %v: %d rows, want %d", cols, reuse, len(got), len(want))
			}
			for i := range want {
				if !slices.Equal(got[i], want[i]) || cap(got[i]) != len(cols) {
					t.Fatalf("cols %v reuse %v: row %d = %v (cap %d), want %v", cols, reuse, i, got[i], cap(got[i]), want[i])
				}
			}
			if !(reuse && ascending(cols)) && !slices.EqualFunc(in, mk(), slices.Equal) {
				t.Fatalf("cols %v reuse %v: the input rows changed: %v", cols, reuse, in)
			}
		}
	}
}
