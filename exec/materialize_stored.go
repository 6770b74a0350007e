package exec

import (
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// ViewStoreID is the key prefix under which a checkpoint holds the rows of
// view (a Materialize's id).
func ViewStoreID(view string) string { return "v/" + view + "/view/" }

// SideStoreID is the key prefix of the rows of view's LATE DATA side
// table.
func SideStoreID(view string) string { return "v/" + view + "/side/" }

// StoredRows returns the rows the last checkpoint holds for the view
// store id, each repeated by its multiplicity, in the order Rows lists
// them: what a Materialize restored from that checkpoint would return,
// read without restoring it (`streamsql query` on a stopped pipeline).
func StoredRows(s *state.Store, id string) ([]types.Row, error) {
	return storedScan(s, []byte(id), id, nil)
}

// StoredGet is Get over the last checkpoint of the view store id: the
// rows of width columns whose key columns equal key (or, for a key
// shorter than keyCols, whose leading key columns do), in StoredRows's
// order. The leading key
// columns whose values encode alike when equal seek directly to the
// matching rows, so a point read costs a few reads however large the
// view is; a key that does not lead the row scans the view.
func StoredGet(s *state.Store, id string, width int, keyCols []int, key types.Row) ([]types.Row, error) {
	lead := leadingKey(width, keyCols, key)
	prefix := []byte(id)
	if len(lead) > 0 {
		prefix = state.AppendRowPrefix(prefix, width, lead...)
	}
	return storedScan(s, prefix, id, func(r types.Row) bool {
		for i, v := range key {
			if c := keyCols[i]; c >= len(r) || !types.Equal(r[c], v) {
				return false
			}
		}
		return true
	})
}

// storedScan decodes the stored view rows under prefix (within the store
// id) that keep accepts (nil: all).
func storedScan(s *state.Store, prefix []byte, id string, keep func(types.Row) bool) ([]types.Row, error) {
	var out []types.Row
	err := s.Scan(prefix, func(_, val []byte) error {
		e, row, _, err := decodeMatRow(id, val)
		if err != nil {
			return err
		}
		if keep != nil && !keep(row) {
			return nil
		}
		for i := int64(0); i < e.count; i++ {
			out = append(out, row)
		}
		return nil
	})
	return out, err
}
