package exec

import (
	"errors"

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
	return storedScan(s, []byte(id), id)
}

// StoredGet is Get over the last checkpoint of the view store id: the
// rows of width columns whose key columns equal key (or, for a key
// shorter than keyCols, whose leading key columns do), in StoredRows's
// order. The leading key columns whose values encode alike when equal
// seek directly to the matching rows, so a point read costs a few reads
// however large the view is; a key that does not lead the row scans the
// view.
func StoredGet(s *state.Store, id string, width int, keyCols []int, key types.Row) ([]types.Row, error) {
	var out []types.Row
	err := StoredEach(s, id, width, keyCols, key, func(r types.Row) bool {
		out = append(out, r)
		return true
	})
	return out, err
}

// StoredEach is StoredGet calling fn with each row (repeated by its
// multiplicity) as it is read, until fn returns false; an empty key
// streams the whole view (StoredRows without holding it).
func StoredEach(s *state.Store, id string, width int, keyCols []int, key types.Row, fn func(types.Row) bool) error {
	lead := leadingKey(width, keyCols, key)
	prefix := []byte(id)
	if len(lead) > 0 {
		prefix = state.AppendRowPrefix(prefix, width, lead...)
	}
	keep := func(r types.Row) bool {
		for i, v := range key {
			if c := keyCols[i]; c >= len(r) || !types.Equal(r[c], v) {
				return false
			}
		}
		return true
	}
	err := s.Scan(prefix, func(key, val []byte) error {
		count, row, err := decodeStoredRow(id, key[len(id):], val)
		if err != nil {
			return err
		}
		if !keep(row) {
			return nil
		}
		for i := int64(0); i < count; i++ {
			if !fn(row) {
				return errStopScan
			}
		}
		return nil
	})
	if errors.Is(err, errStopScan) {
		return nil
	}
	return err
}

// storedScan decodes the stored view rows under prefix (within the store
// id).
func storedScan(s *state.Store, prefix []byte, id string) ([]types.Row, error) {
	var out []types.Row
	err := s.Scan(prefix, func(key, val []byte) error {
		count, row, err := decodeStoredRow(id, key[len(id):], val)
		if err != nil {
			return err
		}
		for i := int64(0); i < count; i++ {
			out = append(out, row)
		}
		return nil
	})
	return out, err
}
