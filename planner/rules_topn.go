package planner

// EndTopNPartitionsAtJoinCleanup gives a keyed Top-N over a regular inner
// join the moment each partition is final (TopN.End), so the operator can
// drop it then and keep only the partitions still open; the view keeps
// the ranked rows it was sent, and nothing is retracted. Nexmark q9 ranks
// the bids of each auction (PARTITION BY A.id) over `A.id = B.auction
// AND B.date_time BETWEEN A.date_time AND A.expires`: an auction's
// partition is final once the bids' watermark passes its expires.
//
// It fires when, through projections and filters (which pass rows and
// watermarks on unchanged),
//
//   - the Top-N's input is an inner join whose residual ends the life of
//     one side's stored rows (JoinCleanup: that side's row matches no row
//     still to come once the other side's watermark passes its column
//     c plus an offset), and the Top-N's input carries c;
//   - that side's rows are a SOURCE's rows one for one (projections and
//     filters only) and the Top-N's PARTITION BY holds every column of
//     the source's declared PRIMARY KEY (Scan.Key): no two of its rows
//     share it, so every row of a partition pairs the same row of that
//     side with rows of the other, and c has one value per partition;
//   - the Top-N's input is append-only (it is: the join needs
//     append-only inputs to clean).
//
// Why the partition is then final: a row of the partition is a pair of
// its one side row s and a row of the other side. A pair with a row
// still to come on the other side needs s stored; the join drops s once
// the other side's watermark passes s.c (plus the offset) and matches
// no row against s after that, late rows included (docs/sql.md, Joins:
// a late row joins the rows still held). A pair with an s still to come
// cannot exist: s is unique and already arrived. The join's output
// watermark is the lesser of its inputs', and it drops s before it sends
// a watermark past s.c on, so once the Top-N's input watermark passes
// s.c no row of the partition follows. A row behind the watermark
// (late) changes nothing here: lateness is judged by the join, which
// has dropped s by then. A NULL key column or c is no partition of this
// kind (the operator never ends it). The key is a promise, not checked:
// a source breaking it (two rows with one key) would have its second
// row's pairs ranked as a new partition beside the first's winner.
func EndTopNPartitionsAtJoinCleanup(n Node) (Node, bool) {
	return Transform(n, func(x Node) (Node, bool) {
		t, ok := x.(*TopN)
		if !ok || t.End != nil || t.KeepsAll() {
			return x, false
		}
		end, ok := partitionEnd(t)
		if !ok {
			return x, false
		}
		c := *t
		c.End = &end
		return &c, true
	})
}

// partitionEnd finds t's partition end, if the rule applies.
func partitionEnd(t *TopN) (PartitionEnd, bool) {
	j, at := joinBelow(t.Input)
	if j == nil {
		return PartitionEnd{}, false
	}
	nl := len(j.Left.Schema())
	for _, c := range JoinCleanup(j) {
		side, base := j.Left, 0
		if c.Side == 1 {
			side, base = j.Right, nl
		}
		scan, key := keyedSource(side)
		if scan == nil || !partitionHoldsKey(t, at, base, key) {
			continue
		}
		for i, jc := range at {
			if jc == base+c.Col {
				return PartitionEnd{Col: i, Offset: c.Offset, Strict: c.Strict, Key: scan.Name + "." + scan.keyNames()}, true
			}
		}
	}
	return PartitionEnd{}, false
}

// belowRowMaps returns the first node under n's projections and
// filters (the nodes that map rows one for one) and, for each of n's
// output columns, the column of that node it is (-1: none).
func belowRowMaps(n Node) (Node, []int) {
	at := identityMap(len(n.Schema()))
	for {
		switch x := n.(type) {
		case *Filter:
			n = x.Input
		case *Project:
			throughProject(at, x)
			n = x.Input
		default:
			return n, at
		}
	}
}

// joinBelow returns the join under n's projections and filters and, for
// each of n's output columns, the join output column it is (-1: none).
func joinBelow(n Node) (*Join, []int) {
	below, at := belowRowMaps(n)
	if j, ok := below.(*Join); ok {
		return j, at
	}
	return nil, nil
}

// keyedSource returns the SOURCE scan under n's projections and filters
// when its rows reach n one for one and it declares a key, with, for
// each key column, the column of n that is it (-1: not there).
func keyedSource(n Node) (*Scan, []int) {
	below, at := belowRowMaps(n)
	x, ok := below.(*Scan)
	if !ok || x.Kind != ScanSource || x.Retracting || len(x.Key) == 0 {
		return nil, nil
	}
	key := make([]int, len(x.Key))
	for i, k := range x.Key {
		key[i] = -1
		for col, c := range at {
			if c >= 0 && x.Cols[c] == k {
				key[i] = col
			}
		}
	}
	return x, key
}

// partitionHoldsKey reports whether t's PARTITION BY holds every key
// column (columns of the join's side that starts at base; at maps t's
// input columns to the join's).
func partitionHoldsKey(t *TopN, at []int, base int, key []int) bool {
	for _, k := range key {
		held := false
		for _, p := range t.Partition {
			if k >= 0 && at[p] == base+k {
				held = true
			}
		}
		if !held {
			return false
		}
	}
	return true
}

// throughProject maps at's columns of p's output to p's input columns
// (-1: a computed column, or one not there).
func throughProject(at []int, p *Project) {
	for i, c := range at {
		at[i] = -1
		if c < 0 {
			continue
		}
		if r, ok := p.Exprs[c].(*ColRef); ok {
			at[i] = r.Index
		}
	}
}
