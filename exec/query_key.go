package exec

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// KeyScan is an ad-hoc query's access path into a relation ordered by
// its key: the rows whose leading key columns equal Eq and whose next key
// column lies between Lo and Hi, read in key order (backwards when Desc),
// and only the first Limit of them that pass the query's filter when the
// query orders by the key and keeps a LIMIT. It only narrows what the
// scan reads: the query's filter, sort and limit still run over what it
// returns, so the answer is the general path's.
type KeyScan struct {
	Scan   *planner.Scan
	Key    []int         // the relation's key columns (source positions), in key order
	Eq     []types.Value // values of Key[:len(Eq)]
	Lo, Hi *KeyBound     // bounds on Key[len(Eq)], or nil
	Desc   bool          // read in descending key order
	// Ordered is set when the relation is read in key order; otherwise
	// only the key prefix Eq is sought and the range is a filter.
	Ordered bool
	Limit   int64 // rows passing the filter to read, or -1 for all
	filter  planner.Scalar
}

// KeyBound is one end of a KeyScan's range.
type KeyBound struct {
	V    types.Value
	Incl bool
}

// KeyedSource is what RunQueryKeyed reads besides whole snapshots: the
// relations that can be read by key, or streamed.
type KeyedSource interface {
	// Access says how ReadKeys can read s's relation.
	Access(s *planner.Scan) ScanAccess
	// ReadKeys calls fn with (at least) the source rows of ks's range,
	// until fn returns false: in key order (descending when ks.Desc) when
	// ks.Ordered, else those with the key prefix ks.Eq (every row when Eq
	// is empty) in the order a snapshot lists them.
	ReadKeys(ks *KeyScan, fn func(types.Row) bool) error
}

// ScanAccess is how a KeyedSource reads a relation.
type ScanAccess struct {
	// Key lists the key columns (source positions, in key order) that
	// ReadKeys seeks by a prefix of; nil for none.
	Key []int
	// Ordered is set when ReadKeys reads in key order (ranges, ORDER BY
	// the key).
	Ordered bool
	// Stream is set when ReadKeys with no key prefix streams the whole
	// snapshot, so that stopping after a LIMIT's rows saves the rest.
	Stream bool
}

// PlanKeyScan returns the key access path of query plan n, or nil when it
// has none: n must be, from the top, an optional LIMIT, an optional sort,
// projections and an optional filter over a scan of a relation with an
// ordered key (key returns its columns), and either the filter must bound
// the key's leading columns or there is a LIMIT, with no sort or one by
// the key.
// An aggregate may sit above the filter (with projections around it):
// then only the filter's range counts.
func PlanKeyScan(n planner.Node, access func(*planner.Scan) ScanAccess) *KeyScan {
	limit := int64(-1)
	if l, ok := n.(*planner.Limit); ok {
		if l.Count >= 0 {
			limit = l.Offset + l.Count
		}
		n = l.Input
	}
	var sortKeys []planner.SortKey
	if s, ok := n.(*planner.Sort); ok {
		sortKeys, n = s.Keys, s.Input
	}
	// Follow the sort's columns down through the projections.
	sortCols := make([]int, len(sortKeys))
	for i, k := range sortKeys {
		sortCols[i] = k.Col
	}
	for {
		if a, ok := n.(*planner.Aggregate); ok {
			// Below an aggregate only the range narrows the read (the
			// aggregate's output order follows its input's, which a
			// range read keeps).
			sortKeys, sortCols, limit, n = nil, nil, -1, a.Input
			continue
		}
		p, ok := n.(*planner.Project)
		if !ok {
			break
		}
		for i, c := range sortCols {
			if c < 0 {
				continue
			}
			if r, ok := p.Exprs[c].(*planner.ColRef); ok {
				sortCols[i] = r.Index
			} else {
				sortCols[i] = -1
			}
		}
		n = p.Input
	}
	var filter planner.Scalar
	if f, ok := n.(*planner.Filter); ok {
		filter, n = f.Pred, f.Input
	}
	scan, ok := n.(*planner.Scan)
	if !ok {
		return nil
	}
	acc := access(scan)
	if len(acc.Key) == 0 && !acc.Stream {
		return nil
	}
	ks := &KeyScan{Scan: scan, Key: acc.Key, Limit: -1, Ordered: acc.Ordered && len(acc.Key) > 0, filter: filter}
	ks.bound(filter)
	if !ks.Ordered {
		// Rows come in snapshot order: a LIMIT without a sort keeps the
		// first that pass the filter.
		if limit >= 0 && len(sortKeys) == 0 {
			ks.Limit = limit
		}
		if len(ks.Eq) == 0 && (!acc.Stream || ks.Limit < 0) {
			return nil
		}
		return ks
	}
	// A LIMIT without ORDER BY keeps the first rows a snapshot lists,
	// which for a relation read in key order are the first in key order.
	ordered := limit >= 0 && (len(sortKeys) == 0 || ks.inKeyOrder(sortKeys, sortCols))
	if ordered {
		ks.Limit = limit
	}
	if !ordered && len(ks.Eq) == 0 && ks.Lo == nil && ks.Hi == nil {
		return nil
	}
	return ks
}

// bound sets Eq, Lo and Hi from the conjuncts of filter that compare a
// key column with a constant of its own kind.
func (ks *KeyScan) bound(filter planner.Scalar) {
	eq := make([]*types.Value, len(ks.Key))
	lo := make([]*KeyBound, len(ks.Key))
	hi := make([]*KeyBound, len(ks.Key))
	for _, c := range conjuncts(filter, nil) {
		k, op, v, ok := ks.keyComparison(c)
		if !ok {
			continue
		}
		switch op {
		case "=":
			eq[k] = &v
		case ">", ">=":
			b := &KeyBound{V: v, Incl: op == ">="}
			if lo[k] == nil || tighterLo(b, lo[k]) {
				lo[k] = b
			}
		case "<", "<=":
			b := &KeyBound{V: v, Incl: op == "<="}
			if hi[k] == nil || tighterHi(b, hi[k]) {
				hi[k] = b
			}
		}
	}
	for i := range ks.Key {
		if eq[i] == nil {
			ks.Lo, ks.Hi = lo[i], hi[i]
			return
		}
		ks.Eq = append(ks.Eq, *eq[i])
	}
}

func tighterLo(a, b *KeyBound) bool {
	c := types.Compare(a.V, b.V)
	return c > 0 || (c == 0 && !a.Incl)
}

func tighterHi(a, b *KeyBound) bool {
	c := types.Compare(a.V, b.V)
	return c < 0 || (c == 0 && !a.Incl)
}

// conjuncts appends the AND-ed parts of s to out.
func conjuncts(s planner.Scalar, out []planner.Scalar) []planner.Scalar {
	if c, ok := s.(*planner.Call); ok && c.Fn == "and" && len(c.Args) == 2 {
		return conjuncts(c.Args[1], conjuncts(c.Args[0], out))
	}
	if s != nil {
		out = append(out, s)
	}
	return out
}

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// keyComparison reads c as `key column op constant`: k is the column's
// position in the key. Only kinds whose comparison is types.Compare's
// order (integers, strings, dates and timestamps) and non-NULL constants
// of the column's own kind qualify.
func (ks *KeyScan) keyComparison(c planner.Scalar) (k int, op string, v types.Value, ok bool) {
	call, isCall := c.(*planner.Call)
	if !isCall || len(call.Args) != 2 {
		return 0, "", v, false
	}
	op, ok = flipped[call.Fn]
	if !ok {
		return 0, "", v, false
	}
	col, isCol := call.Args[0].(*planner.ColRef)
	cst, isConst := call.Args[1].(*planner.Const)
	if isCol && isConst {
		op = call.Fn
	} else {
		col, isCol = call.Args[1].(*planner.ColRef)
		cst, isConst = call.Args[0].(*planner.Const)
		if !isCol || !isConst {
			return 0, "", v, false
		}
	}
	if cst.V.K != col.T || !orderedKind(col.T) || col.Index >= len(ks.Scan.Cols) {
		return 0, "", v, false
	}
	k = indexOfInt(ks.Key, ks.Scan.Cols[col.Index])
	return k, op, cst.V, k >= 0
}

func orderedKind(k types.Kind) bool {
	return k == types.Int || k == types.String || k == types.Date || k == types.Timestamp
}

func indexOfInt(xs []int, x int) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

// inKeyOrder reports whether sorting by keys (whose columns, in the scan's
// output, are cols) is sorting by the key, and sets Desc: every key
// column not pinned by Eq must be listed in key order, all ascending or
// all descending (so no two rows tie and the first rows in key order are
// the sort's first rows whatever order the general path reads them in).
func (ks *KeyScan) inKeyOrder(keys []planner.SortKey, cols []int) bool {
	p := 0
	for i, kc := range ks.Key {
		if p < len(cols) && cols[p] >= 0 && ks.Scan.Cols[cols[p]] == kc {
			if keys[p].Desc != keys[0].Desc {
				return false
			}
			p++
			continue
		}
		if i >= len(ks.Eq) {
			return false
		}
	}
	if p != len(cols) {
		return false
	}
	ks.Desc = keys[0].Desc
	return true
}

// String describes the access path for EXPLAIN.
func (ks *KeyScan) String() string {
	var conds []string
	for i, v := range ks.Eq {
		conds = append(conds, fmt.Sprintf("%s = %s", ks.keyName(i), (&planner.Const{V: v}).String()))
	}
	if ks.Lo != nil {
		conds = append(conds, ks.boundString(ks.Lo, ">"))
	}
	if ks.Hi != nil {
		conds = append(conds, ks.boundString(ks.Hi, "<"))
	}
	s := "key range of " + ks.Scan.Name
	switch {
	case !ks.Ordered && len(ks.Eq) == 0:
		s = "stream of " + ks.Scan.Name
	case !ks.Ordered:
		s = "key prefix of " + ks.Scan.Name
	}
	if len(conds) > 0 {
		s += " where " + strings.Join(conds, " and ")
	}
	if ks.Desc {
		s += ", descending"
	}
	if ks.Limit >= 0 {
		s += fmt.Sprintf(", first %d rows", ks.Limit)
	}
	return s
}

// boundString renders bound b of the range's last column with operator
// op (or op= when b is inclusive).
func (ks *KeyScan) boundString(b *KeyBound, op string) string {
	if b.Incl {
		op += "="
	}
	return ks.keyName(len(ks.Eq)) + " " + op + " " + (&planner.Const{V: b.V}).String()
}

// keyName names key column i (from the scan's output when it reads it).
func (ks *KeyScan) keyName(i int) string {
	for j, c := range ks.Scan.Cols {
		if c == ks.Key[i] {
			return ks.Scan.Out[j].Name
		}
	}
	return fmt.Sprintf("key column %d", i+1)
}

// InRange reports where key (the values of the key columns, in key order)
// lies against the range: -1 before it, 0 in it, 1 after it, in
// ascending key order.
func (ks *KeyScan) InRange(key func(i int) types.Value) int {
	for i, v := range ks.Eq {
		if c := types.Compare(key(i), v); c != 0 {
			return c
		}
	}
	if ks.Lo == nil && ks.Hi == nil {
		return 0
	}
	v := key(len(ks.Eq))
	if ks.Lo != nil {
		if c := types.Compare(v, ks.Lo.V); c < 0 || (c == 0 && !ks.Lo.Incl) {
			return -1
		}
	}
	if ks.Hi != nil {
		if c := types.Compare(v, ks.Hi.V); c > 0 || (c == 0 && !ks.Hi.Incl) {
			return 1
		}
	}
	return 0
}

// runKeyScan reads ks's rows from src, projected to the scan's columns
// and filtered by the query's filter, stopping at ks.Limit.
func runKeyScan(ks *KeyScan, src KeyedSource, errs *EvalErrors) ([]types.Row, error) {
	pred := func(types.Row) bool { return true }
	if ks.filter != nil {
		var err error
		if pred, err = CompileFilter(ks.filter, errs); err != nil {
			return nil, err
		}
	}
	var out []types.Row
	keyOf := func(r types.Row) func(int) types.Value {
		return func(i int) types.Value { return r[ks.Key[i]] }
	}
	err := src.ReadKeys(ks, func(r types.Row) bool {
		if ks.InRange(keyOf(r)) != 0 {
			return true
		}
		row := make(types.Row, len(ks.Scan.Cols))
		for j, c := range ks.Scan.Cols {
			row[j] = r[c]
		}
		if pred(row) {
			out = append(out, row)
		}
		return ks.Limit < 0 || int64(len(out)) < ks.Limit
	})
	return out, err
}
