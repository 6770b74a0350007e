package exec

import (
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// ranker orders and ranks the rows of one Top-N partition for the window
// and the keyed Top-N: ROW_NUMBER, RANK or DENSE_RANK over ORDER BY keys,
// ties in the keys broken by the rows' other columns in column order, so
// the rows picked never depend on arrival order.
type ranker struct {
	fn    string
	order []planner.SortKey
	limit int64
}

// kept is how many of the sorted rows rank within the limit.
func (k ranker) kept(rows []types.Row) int {
	if k.fn == "row_number" {
		return min(len(rows), int(k.limit))
	}
	for i := range rows {
		if k.rankAt(rows, i) > k.limit {
			return i
		}
	}
	return len(rows)
}

// rankAt is the rank of sorted row i under the ranking function. RANK
// counts the rows ordered strictly before it, DENSE_RANK the distinct
// order values up to it.
func (k ranker) rankAt(rows []types.Row, i int) int64 {
	switch k.fn {
	case "rank":
		j := i
		for j > 0 && k.orderCmp(rows[j-1], rows[i]) == 0 {
			j--
		}
		return int64(j) + 1
	case "dense_rank":
		d := int64(1)
		for j := 1; j <= i; j++ {
			if k.orderCmp(rows[j-1], rows[j]) != 0 {
				d++
			}
		}
		return d
	}
	return int64(i) + 1
}

// orderCmp compares rows by the ORDER BY keys alone. NULLs sort as larger
// than any value, as in Postgres (last ascending, first descending).
func (k ranker) orderCmp(a, b types.Row) int {
	for _, s := range k.order {
		c := orderCompare(a[s.Col], b[s.Col])
		if s.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// less orders rows by the ORDER BY keys, then by every column.
func (k ranker) less(a, b types.Row) bool {
	return k.cmp(a, b) < 0
}

// cmp compares rows by the ORDER BY keys, then by every column: 0 only
// for rows equal in every column.
func (k ranker) cmp(a, b types.Row) int {
	if c := k.orderCmp(a, b); c != 0 {
		return c
	}
	for i := range a {
		if c := orderCompare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}
