package exec

import (
	"github.com/streamsql/streamsql/types"
)

// A keyed Top-N's partition end (planner.TopN.End, set by the planner's
// EndTopNPartitionsAtJoinCleanup): every row of a partition pairs the
// same row of a join's side, which the join drops once the other side's
// watermark passes its end column, so once the Top-N's input watermark
// passes that end no row of the partition follows. The partition is
// final: it is dropped (deleted at the next checkpoint), and the rows
// the view holds of it stay. Nexmark q9's auctions end at their expires:
// the Top-N keeps the auctions still open instead of every auction.
//
// Memory keeps one timer per partition (its key and end), evicted ones
// included; a partition loaded back from Badger does not know its end
// (end is types.MinTime), and the first due timer of its key stands for
// it. A restore reads each partition's end from its rows. A partition
// with a NULL key column or end column gets no end: the join pairs
// nothing with such a row, and a NULL key is not a key.

// noteEnd records, under a partition end, the end row r gives partition
// p (keyed by t.keyBuf) and covers a later end than the one known by a
// timer.
func (t *TopN) noteEnd(p *keyedPart, r types.Row) {
	e := t.n.End
	if e == nil || r[e.Col].IsNull() || t.nullKey(r) {
		return
	}
	if at := e.Expiry(r[e.Col].I); at > p.end {
		p.end = at
		t.ends.push(expiryItem{at: at, key: string(t.keyBuf)})
	}
}

// nullKey reports whether a partition column of r is NULL.
func (t *TopN) nullKey(r types.Row) bool {
	for _, c := range t.n.Partition {
		if r[c].IsNull() {
			return true
		}
	}
	return false
}

// dropFinal drops the partitions whose end the watermark wm passed,
// emitting nothing (not at the end of a bounded input, EndOfTime, as
// STATE TTL does not expire then either). A partition whose known end
// is later than its timer's waits for the timer of that end. A Top-N
// whose partitions the view keeps (topn_view.go) drops only those in
// memory or in its spill area: the others are the view's rows alone.
func (t *TopN) dropFinal(wm int64) error {
	if t.n.End == nil || wm == types.EndOfTime || wm == types.MinTime {
		return nil
	}
	for _, it := range t.ends.due(wm-1, nil, true) {
		if _, held := t.store.parts[it.key]; !held && t.view != nil && !t.store.spill.has(it.key) {
			continue // its rows are the view's (topn_view.go): the Top-N holds nothing of it
		}
		t.keyBuf = append(t.keyBuf[:0], it.key...)
		p, err := t.part(false)
		if err != nil {
			return err
		}
		if p == nil || p.end > it.at {
			continue
		}
		t.store.drop(it.key, p) // one read back from Badger leaves at once
	}
	return nil
}

// restoreEnd covers restored partition k by a timer at the end its rows
// give, under a partition end.
func (t *TopN) restoreEnd(k string, p *keyedPart) error {
	if t.n.End == nil {
		return nil
	}
	rows, err := t.decodeRows(p)
	if err != nil {
		return err
	}
	t.keyBuf = append(t.keyBuf[:0], k...)
	for _, r := range rows {
		t.noteEnd(p, r)
	}
	return nil
}
