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
// the view's checkpoint holds the same rows. A partition leaves memory by
// being dropped, changed since the last checkpoint or not, since the view
// holds its rows as they are after every batch; it is read back, as is
// any partition after a restore, from the view as it is now
// (Materialize.leadRows: its rows in memory by the partition columns,
// which lead the view's rows, and those only in the last checkpoint by a
// seek on them), its rows mapped back to the TopN's columns.
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
	// part are the view columns of the TopN's partition columns: the
	// view's first len(part) columns, in some order.
	part []int
	// view is the view store the partitions are read from (readFrom).
	view *Materialize
}

// readFrom makes m, the view's store, the one the TopN reads its
// partitions from, indexing its rows by the partition columns that lead
// them.
func (v *TopNView) readFrom(m *Materialize) {
	v.view = m
	m.withLeadIndex(len(v.part))
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
		if slices.Contains(v.part, vc) {
			return nil, nil // a column twice: the seek prefix is not the partition's
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

// loadFromView reads the partition of t.row from the rows its view holds
// now (Materialize.leadRows: in memory, else in the last checkpoint):
// the rows whose partition columns equal t.row's, mapped back to the
// TopN's columns and sorted; ok is false when the view holds none. The
// view holds every row the TopN ranks as each batch leaves it, so a
// partition reads back the same whether or not it changed since the last
// checkpoint: an evicted partition is dropped, never written.
func (t *TopN) loadFromView() (*keyedPart, bool, error) {
	if t.row == nil {
		return nil, false, fmt.Errorf("%s: a partition read back without its row", t.id)
	}
	v := t.view
	key := make(types.Row, len(t.n.Partition))
	for i, c := range t.n.Partition {
		key[v.part[i]] = t.row[c]
	}
	var rows []types.Row
	err := v.view.leadRows(state.AppendRowPrefix(nil, v.Width, key...), func(vr types.Row, count int64) error {
		if len(vr) != v.Width {
			return errCorrupt(t.id)
		}
		for range count {
			r := make(types.Row, len(v.Cols))
			for j, c := range v.Cols {
				if j == t.n.RankCol {
					r[j] = v.Rank
				} else {
					r[j] = vr[c]
				}
			}
			rows = append(rows, r)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("%s: read partition from the view: %w", t.id, err)
	}
	if int64(len(rows)) > t.limit {
		return nil, false, errCorrupt(t.id)
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	slices.SortFunc(rows, t.cmp)
	p := &keyedPart{last: types.MinTime, queued: noTimer}
	t.setRows(p, rows)
	return p, true, nil
}
