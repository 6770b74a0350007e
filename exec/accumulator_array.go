package exec

import (
	"sort"

	"github.com/streamsql/streamsql/types"
)

// arrayAggAcc is array_agg: the array of every value of the group, NULLs
// included. A stream has no input order, so the elements are ordered
// where Postgres keeps the order rows are read: NULLs first, then
// ascending (types.Compare), equal values of other spellings (1.5, 1.50)
// by their text, so the result does not depend on arrival order. Its
// state is every value of the group: bounded by the group's rows, as a
// window's.
type arrayAggAcc struct {
	elem types.Kind
	vals []types.Value
}

func (a *arrayAggAcc) add(v types.Value) { a.vals = append(a.vals, v) }

func (a *arrayAggAcc) merge(src accumulator) { a.vals = append(a.vals, src.(*arrayAggAcc).vals...) }

func (a *arrayAggAcc) result() types.Value {
	if len(a.vals) == 0 {
		return types.NullValue
	}
	vals := append([]types.Value(nil), a.vals...)
	sort.SliceStable(vals, func(i, j int) bool {
		if c := types.Compare(vals[i], vals[j]); c != 0 {
			return c < 0
		}
		return vals[i].String() < vals[j].String()
	})
	return types.ArrayValue(a.elem, vals)
}

// encode writes the values, one per column (a variable-width state row).
func (a *arrayAggAcc) encode() types.Row { return append(types.Row(nil), a.vals...) }

func (a *arrayAggAcc) decode(r types.Row) error {
	a.vals = append(a.vals[:0], r...)
	return nil
}
