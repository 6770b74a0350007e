package exec

import (
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// TopNView is the view a keyed TopN feeds directly (through column
// references at most): it holds every row the TopN ranks, so the TopN
// keeps no copy of its own in Badger. Its checkpoints write no partition:
// the view's checkpoint holds the same rows. A partition that left memory
// unchanged since the last checkpoint, or any partition after a restore,
// is read back from the view's stored rows by a seek on the partition
// columns (which lead the view's rows), its rows mapped back to the
// TopN's columns. A partition changed since the last checkpoint leaves
// memory to the spill area as before.
//
// This holds for a ROW_NUMBER TopN over an append-only input without
// STATE TTL: each partition then holds exactly the rows the view holds of
// it (at most the limit, all ranked). A view with any other shape keeps
// the TopN's own partitions (topNViewOf returns nil).
type TopNView struct {
	// ID is the view store's id (ViewStoreID) and Width its columns.
	ID    string
	Width int
	// Cols gives, for each TopN column, the view column holding it (-1:
	// none); the rank column is never read back.
	Cols []int
	// Rank is the value the TopN's input holds in the rank column, which
	// its stored rows keep there.
	Rank types.Value
	// part are the view columns of the TopN's partition columns.
	part []int
}

// topNViewOf returns the TopN whose every ranked row the view root holds
// and how the view holds them, or nil when the plan has no such TopN:
// the view's input is the TopN, or a projection of its columns by
// reference that keeps every column but the rank, the partition columns
// lead the view's rows (the seek prefix) and are of kinds whose equal
// values encode alike, and the TopN is a ROW_NUMBER one over an append-only
// input without STATE TTL. shared are the plan's nodes with several
// consumers, which are left alone.
func topNViewOf(root *planner.Materialize, shared map[planner.Node]int) (*planner.TopN, *TopNView) {
	in := root.Input
	var proj []int
	if p, ok := in.(*planner.Project); ok && shared[p] <= 1 {
		for _, e := range p.Exprs {
			c, ok := e.(*planner.ColRef)
			if !ok {
				return nil, nil
			}
			proj = append(proj, c.Index)
		}
		in = p.Input
	}
	x, ok := in.(*planner.TopN)
	if !ok || shared[x] > 1 || x.TTL > 0 || x.KeepsAll() || x.Fn != "row_number" || x.Limit <= 0 {
		return nil, nil
	}
	below, ok := x.Input.(*planner.Project)
	if !ok || x.RankCol >= len(below.Exprs) {
		return nil, nil
	}
	ph, ok := below.Exprs[x.RankCol].(*planner.Const)
	if !ok {
		return nil, nil
	}
	width := len(x.Schema())
	if proj == nil {
		proj = make([]int, width)
		for i := range proj {
			proj[i] = i
		}
	}
	v := &TopNView{ID: ViewStoreID(root.View), Width: len(proj), Cols: slices.Repeat([]int{-1}, width), Rank: ph.V}
	for vc, c := range proj {
		if c < 0 || c >= width {
			return nil, nil
		}
		if v.Cols[c] < 0 {
			v.Cols[c] = vc
		}
	}
	for c, vc := range v.Cols {
		if vc < 0 && c != x.RankCol {
			return nil, nil // a column the view drops: its rows cannot be rebuilt
		}
	}
	schema := x.Schema()
	for _, c := range x.Partition {
		vc := v.Cols[c]
		if vc < 0 || vc >= len(x.Partition) || c == x.RankCol {
			return nil, nil // not in the seek prefix
		}
		switch schema[c].Type {
		case types.Bool, types.Int, types.String, types.Timestamp, types.TimestampTZ, types.Date, types.Time:
		default:
			return nil, nil // equal values may encode differently (floats, decimals, intervals, JSON)
		}
		v.part = append(v.part, vc)
	}
	return x, v
}

// viewBacked reports whether t's partitions are what its view holds:
// ROW_NUMBER over an append-only input without STATE TTL.
func (t *TopN) viewBacked() bool {
	return t.ttl <= 0 && !t.keepAll && t.fn == "row_number" && t.limit > 0
}

// loadFromView reads the partition of t.row from the view's rows in the
// last checkpoint (st): the rows whose partition columns equal t.row's,
// mapped back to the TopN's columns and sorted; ok is false when the
// view holds none.
func (t *TopN) loadFromView(st *state.Store) (*keyedPart, bool, error) {
	if t.row == nil {
		return nil, false, fmt.Errorf("%s: a partition read back without its row", t.id)
	}
	v := t.view
	key := make(types.Row, len(t.n.Partition))
	for i, c := range t.n.Partition {
		key[i] = t.row[c]
	}
	var rows []types.Row
	var bad bool
	err := StoredEach(st, v.ID, v.Width, v.part, key, func(vr types.Row) bool {
		if len(vr) != v.Width {
			bad = true
			return false
		}
		r := make(types.Row, len(v.Cols))
		for j, c := range v.Cols {
			if j == t.n.RankCol {
				r[j] = v.Rank
			} else {
				r[j] = vr[c]
			}
		}
		rows = append(rows, r)
		return true
	})
	if err != nil {
		return nil, false, fmt.Errorf("%s: read partition from the view: %w", t.id, err)
	}
	if bad || int64(len(rows)) > t.limit {
		return nil, false, errCorrupt(t.id)
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	slices.SortFunc(rows, t.cmp)
	size := 0
	for _, r := range rows {
		size += rowEncBytes(r)
	}
	enc := make([]byte, 0, size)
	for _, r := range rows {
		enc = state.AppendRow(enc, r)
	}
	p := &keyedPart{enc: enc, n: int32(len(rows)), last: types.MinTime, queued: noTimer}
	t.setCut(p, rows)
	return p, true, nil
}
