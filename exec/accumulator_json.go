package exec

import (
	"sort"

	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/types"
)

// jsonAggAcc is jsonb_agg (every value, NULL as JSON null) and, with obj,
// jsonb_object_agg (its argument is the one-key object of each row's key
// and value; NULL when the key was NULL, and skipped). A stream has no
// input order, so the result is ordered: array elements in jsonb's order,
// and a key given twice keeps its greatest value (Postgres keeps the
// last one read). Its state is every value of the group: bounded by the
// group's rows, as a window's.
type jsonAggAcc struct {
	obj  bool
	vals []types.Value // JSONB values
}

func (a *jsonAggAcc) add(v types.Value) {
	if a.obj && v.IsNull() {
		return
	}
	if v.K != types.JSONB {
		v = types.JSONBValue(funcs.ToJSON(v))
	}
	a.vals = append(a.vals, v)
}

func (a *jsonAggAcc) merge(src accumulator) { a.vals = append(a.vals, src.(*jsonAggAcc).vals...) }

func (a *jsonAggAcc) result() types.Value {
	if len(a.vals) == 0 {
		return types.NullValue
	}
	vals := append([]types.Value(nil), a.vals...)
	nodes := make([]*types.JSON, len(vals))
	for i, v := range vals {
		nodes[i] = types.JSONOf(v)
	}
	// Equal values of other spellings (1.5, 1.50) order by their text, so
	// the result does not depend on arrival order.
	sort.Sort(byJSON{vals, nodes})
	if !a.obj {
		return types.JSONBValue(&types.JSON{Kind: types.JSONArray, Elems: nodes})
	}
	out := &types.JSON{Kind: types.JSONObject}
	for _, n := range nodes { // ascending: SortKeys keeps a key's last, greatest, value
		out.Keys = append(out.Keys, n.Keys...)
		out.Vals = append(out.Vals, n.Vals...)
	}
	out.SortKeys()
	return types.JSONBValue(out)
}

// byJSON sorts values and their parsed nodes together, in jsonb's order
// and then by text.
type byJSON struct {
	vals  []types.Value
	nodes []*types.JSON
}

func (b byJSON) Len() int { return len(b.vals) }
func (b byJSON) Swap(i, j int) {
	b.vals[i], b.vals[j] = b.vals[j], b.vals[i]
	b.nodes[i], b.nodes[j] = b.nodes[j], b.nodes[i]
}
func (b byJSON) Less(i, j int) bool {
	if c := types.CompareJSONElems(b.nodes[i], b.nodes[j]); c != 0 {
		return c < 0
	}
	return b.vals[i].S < b.vals[j].S
}

// encode writes the values, one per column (a variable-width state row).
func (a *jsonAggAcc) encode() types.Row { return append(types.Row(nil), a.vals...) }

func (a *jsonAggAcc) decode(r types.Row) error {
	a.vals = append(a.vals[:0], r...)
	return nil
}
