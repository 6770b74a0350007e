package exec

import (
	"github.com/streamsql/streamsql/types"
)

// Deletes into a regular join (planner.Unbounded: no interval, no
// window), whose inputs may retract (a GROUP BY aggregate, a view that
// retracts, a keyed Top-N, another regular outer join). A side's rows are
// a multiset per key: equal rows are stored once per insert. A delete
// removes one stored copy equal to it from its side and retracts every
// joined row that copy formed with the other side's stored rows (the
// pairs it emitted when it arrived or when they did). A delete that finds
// no stored copy — the row expired under STATE TTL, or never matched a
// stored key — is ignored: nothing it formed is still stored to retract
// (its pairs with rows that expired stay, as STATE TTL's expiry leaves
// output unchanged).
//
// Outer joins: a preserved row's matched flag (join_outer.go) means "has
// a match now". A preserved row that leaves unmatched retracts its padded
// row. When a delete takes a partner away from a preserved row of the
// other side that was matched, the row is probed against its own key's
// remaining partners (the flag is recomputed rather than a match count
// kept: the row encoding, checkpoints and the spill area stay as they
// are, and a probe touches one key's rows); with none left its flag is
// cleared and its padded row comes back.

// retract handles the delete of row r (key kb, h its joinHash) arriving
// on port, appending the changes it causes to out.
func (j *Join) retract(port int, kb []byte, h uint64, r types.Row, out *Batch) error {
	own, err := j.keyOf(port, kb, h, false)
	if err != nil || own == nil {
		return err
	}
	i, r, err := j.findRow(port, own, r)
	if err != nil || i < 0 {
		return err
	}
	wasMatched := j.flags(port) && own.rows.matched(i)
	j.dropRow(port, own, i)
	if j.flags(port) && !wasMatched {
		j.add(out, j.padded(port, r), -1)
	}
	partner, err := j.keyOf(1-port, kb, h, false)
	if err != nil || partner == nil {
		return err
	}
	for pi := range partner.rows.len() {
		o, err := j.rowAt(1-port, &partner.rows, pi)
		if err != nil {
			return err
		}
		row, ok := j.pair(port, r, o)
		if !ok {
			continue
		}
		j.add(out, row, -1)
		if err := j.unmatchPartner(1-port, partner, pi, o, own, out); err != nil {
			return err
		}
	}
	return nil
}

// findRow returns the index of a row of key jk of side equal to r, and
// that stored row (what its pairs were made of: equal values may differ
// in spelling, as 0 and -0 do), or -1.
func (j *Join) findRow(side int, jk *joinKey, r types.Row) (int, types.Row, error) {
	for i := range jk.rows.len() {
		s, err := j.rowAt(side, &jk.rows, i)
		if err != nil {
			return -1, nil, err
		}
		if rowsEqual(s, r) {
			return i, s, nil
		}
	}
	return -1, nil, nil
}

// dropRow removes row i of key jk of side: the key is marked changed, or
// forgotten when it held no other row.
func (j *Join) dropRow(side int, jk *joinKey, i int) {
	jk.rows.filter(func(x int) bool { return x != i })
	j.resident[side]--
	if jk.rows.len() == 0 {
		j.remove(side, jk.key, jk)
		return
	}
	j.markDirty(side, jk)
}

// unmatchPartner re-checks row i (o decoded) of key jk of side, a
// preserved side, after a partner of the other side left: when none of
// rest's rows (the other side's key, nil when it left) pairs with it any
// more, its flag is cleared and its padded row comes back.
func (j *Join) unmatchPartner(side int, jk *joinKey, i int, o types.Row, rest *joinKey, out *Batch) error {
	if !j.flags(side) || !jk.rows.matched(i) {
		return nil
	}
	if rest != nil && holds(rest) {
		for ri := range rest.rows.len() {
			p, err := j.rowAt(1-side, &rest.rows, ri)
			if err != nil {
				return err
			}
			if _, ok := j.pair(side, o, p); ok {
				return nil
			}
		}
	}
	jk.rows.setUnmatched(i)
	j.markDirty(side, jk)
	j.add(out, j.padded(side, o), 1)
	return nil
}
