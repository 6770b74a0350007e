package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/btree"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// keyIndex holds a keyed relation's rows ordered by their key columns
// (types.Compare, the order ORDER BY sorts by), so that key ranges and
// the first rows in key order are read without copying or sorting the
// relation. It is a B-tree (google/btree: O(log n) upserts and seeks,
// a few words per row).
type keyIndex struct {
	key  []int
	tree *btree.BTreeG[indexItem]
}

// indexItem is a row of the index, or a pivot to seek with: a row whose
// first n key columns are set (n < 0: all of them), ordered before every
// row with that prefix, or after them when high.
type indexItem struct {
	row  types.Row
	n    int
	high bool
}

func newKeyIndex(key []int) *keyIndex {
	x := &keyIndex{key: key}
	x.tree = btree.NewG(32, x.less)
	return x
}

// less orders rows by their key columns; a pivot sorts before (or, high,
// after) the rows that share its prefix.
func (x *keyIndex) less(a, b indexItem) bool {
	n := len(x.key)
	if a.n >= 0 {
		n = min(n, a.n)
	}
	if b.n >= 0 {
		n = min(n, b.n)
	}
	for _, k := range x.key[:n] {
		if c := types.Compare(a.row[k], b.row[k]); c != 0 {
			return c < 0
		}
	}
	aPart := a.n >= 0 && a.n == n && n < len(x.key)
	bPart := b.n >= 0 && b.n == n && n < len(x.key)
	switch {
	case aPart && bPart:
		return !a.high && b.high
	case aPart:
		return !a.high
	case bPart:
		return b.high
	}
	return false
}

// put adds or replaces the row with r's key.
func (x *keyIndex) put(r types.Row) { x.tree.ReplaceOrInsert(indexItem{row: r, n: -1}) }

// remove drops the row with r's key.
func (x *keyIndex) remove(r types.Row) { x.tree.Delete(indexItem{row: r, n: -1}) }

// rows returns every row in key order.
func (x *keyIndex) rows() []types.Row {
	out := make([]types.Row, 0, x.tree.Len())
	x.tree.Ascend(func(it indexItem) bool {
		out = append(out, it.row)
		return true
	})
	return out
}

// pivot is a seek item for the first len(vals) key columns.
func (x *keyIndex) pivot(vals []types.Value, high bool) indexItem {
	width := 0
	for _, k := range x.key {
		width = max(width, k+1)
	}
	r := make(types.Row, width)
	for i, v := range vals {
		r[x.key[i]] = v
	}
	return indexItem{row: r, n: len(vals), high: high}
}

// scan calls fn with the rows of ks's range in key order (descending
// when ks.Desc) until fn returns false.
func (x *keyIndex) scan(ks *exec.KeyScan, fn func(types.Row) bool) {
	keyOf := func(r types.Row) func(int) types.Value {
		return func(i int) types.Value { return r[x.key[i]] }
	}
	if ks.Desc {
		start := x.pivot(ks.Eq, true)
		if ks.Hi != nil {
			start = x.pivot(append(ks.Eq[:len(ks.Eq):len(ks.Eq)], ks.Hi.V), ks.Hi.Incl)
		}
		x.tree.DescendLessOrEqual(start, func(it indexItem) bool {
			switch ks.InRange(keyOf(it.row)) {
			case -1:
				return false
			case 1:
				return true
			}
			return fn(it.row)
		})
		return
	}
	start := x.pivot(ks.Eq, false)
	if ks.Lo != nil {
		start = x.pivot(append(ks.Eq[:len(ks.Eq):len(ks.Eq)], ks.Lo.V), !ks.Lo.Incl)
	}
	x.tree.AscendGreaterOrEqual(start, func(it indexItem) bool {
		switch ks.InRange(keyOf(it.row)) {
		case 1:
			return false
		case -1:
			return true
		}
		return fn(it.row)
	})
}

// keyedTables is the engine's exec.KeyedSource; e.mu is held. A running
// TABLE is read in key order from its index; a view (its rows in memory
// and spilled), a dead-letter table, and on a read-only engine a TABLE,
// by a key prefix: the rows whose leading key columns are given, found
// by a seek where they are stored. A read-only engine streams its stored
// rows, so a LIMIT stops the read.
type keyedTables struct{ e *Engine }

// Access implements exec.KeyedSource. A read-only engine's stored rows
// stream from Badger in the order a snapshot lists them.
func (k keyedTables) Access(s *planner.Scan) exec.ScanAccess {
	o, ok := k.e.cat.Get(s.Name)
	if !ok {
		return exec.ScanAccess{}
	}
	ro := k.e.opts.ReadOnly
	switch {
	case o.SideOf != "":
		return exec.ScanAccess{Stream: ro}
	case o.DeadLetter:
		return exec.ScanAccess{Key: o.Key, Stream: ro}
	case ro:
		if o.Kind == catalog.View || o.Kind == catalog.Table {
			return exec.ScanAccess{Key: o.Key, Stream: true}
		}
	case o.Kind == catalog.Table && k.e.tables[strings.ToLower(o.Name)] != nil:
		return exec.ScanAccess{Key: o.Key, Ordered: true}
	case o.Kind == catalog.View:
		if rt := k.e.views[strings.ToLower(o.Name)]; rt != nil && rt.pipe.View0 != nil {
			return exec.ScanAccess{Key: rt.pipe.View0.Key()}
		}
	}
	return exec.ScanAccess{}
}

// ReadKeys implements exec.KeyedSource.
func (k keyedTables) ReadKeys(ks *exec.KeyScan, fn func(types.Row) bool) error {
	o, ok := k.e.cat.Get(ks.Scan.Name)
	if !ok {
		return fmt.Errorf("relation %s: not found", ks.Scan.Name)
	}
	name := strings.ToLower(o.Name)
	if ks.Ordered {
		t := k.e.tables[name]
		if t == nil {
			return fmt.Errorf("table %s: no key index", o.Name)
		}
		t.index.scan(ks, fn)
		return nil
	}
	if k.e.opts.ReadOnly {
		return k.streamStored(o, ks.Eq, fn)
	}
	var rows []types.Row
	var err error
	switch {
	case o.DeadLetter:
		if d := k.e.dlq[name]; d != nil {
			rows, err = d.prefixRows(ks.Eq)
		}
	case o.Kind == catalog.View:
		if rt := k.e.views[name]; rt != nil && rt.pipe.View0 != nil {
			rows, err = rt.pipe.View0.GetPrefix(ks.Eq)
		}
	}
	for _, r := range rows {
		if !fn(r) {
			break
		}
	}
	return err
}

// streamStored calls fn with the stored rows of o (on a read-only
// engine) whose leading key columns are eq, as they are read from Badger
// in snapshot order, until fn returns false.
func (k keyedTables) streamStored(o *catalog.Object, eq []types.Value, fn func(types.Row) bool) error {
	switch {
	case o.Kind == catalog.View:
		return exec.StoredEach(k.e.store, exec.ViewStoreID(o.Name), len(o.Schema), o.Key, eq, fn)
	case o.SideOf != "":
		return exec.StoredEach(k.e.store, exec.SideStoreID(k.e.viewName(o.SideOf)), len(o.Schema), nil, nil, fn)
	case o.DeadLetter:
		kp := state.AppendRowPrefix(nil, len(deadLetterKey), eq...)
		return eachStoredRow(k.e.store, "dl/"+strings.ToLower(o.Name)+"/", kp, o.Name, fn)
	}
	var kp []byte
	for _, v := range eq {
		kp = state.AppendKey(kp, v)
	}
	return eachStoredRow(k.e.store, "t/"+strings.ToLower(o.Name)+"/row/", kp, o.Name, fn)
}

// eachStoredRow calls fn with the one-row values stored under prefix +
// kp (a TABLE's or dead-letter table's rows), in key order, until fn
// returns false.
func eachStoredRow(st *state.Store, prefix string, kp []byte, name string, fn func(types.Row) bool) error {
	err := st.Scan(append([]byte(prefix), kp...), func(_, v []byte) error {
		rows, err := state.DecodeValue(v)
		if err != nil || len(rows) != 1 {
			return fmt.Errorf("table %s: bad row: %v", name, err)
		}
		if !fn(rows[0]) {
			return errStopStream
		}
		return nil
	})
	if errors.Is(err, errStopStream) {
		return nil
	}
	return err
}

// errStopStream ends eachStoredRow's scan early.
var errStopStream = errors.New("stop stream")
