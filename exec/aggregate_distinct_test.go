package exec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// distinctCase is a GROUP BY g of count(*), count(DISTINCT v) and
// sum(DISTINCT v) over rows (g, ts, v), append-only or retracting.
type distinctCase struct {
	name    string
	retract bool
}

var distinctCases = []distinctCase{{"append-only", false}, {"retracting", true}}

func (c distinctCase) node(ttl int64) *planner.Aggregate {
	n := &planner.Aggregate{GroupCols: []int{0}, TTL: ttl, Aggs: []planner.AggCall{
		{Fn: "count", Arg: -1, T: types.Int},
		{Fn: "count", Arg: 2, Distinct: true, T: types.Int},
		{Fn: "sum", Arg: 2, Distinct: true, T: types.Int},
	}}
	if c.retract {
		n.Input = &planner.Aggregate{}
	}
	return n
}

// distinctRow is the row (g, ts, v).
func distinctRow(g, ts, v int64) types.Row {
	return types.Row{types.IntValue(g), types.TimestampValue(ts), types.IntValue(v)}
}

// checkpointBytes checkpoints ops as checkpoint id and returns the bytes
// the checkpoint wrote.
func checkpointBytes(t *testing.T, st *state.Store, id uint64, ops ...Stateful) int64 {
	t.Helper()
	var n int64
	err := st.Checkpoint(id, func(w *state.Writer) error {
		for _, op := range ops {
			if err := op.Checkpoint(w); err != nil {
				return err
			}
		}
		n = w.Bytes()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// keysUnder counts the stored keys with prefix.
func keysUnder(t *testing.T, st *state.Store, prefix string) int {
	t.Helper()
	n := 0
	if err := st.ScanKeys([]byte(prefix), []byte(prefix), func([]byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// viewRow returns the view's row of group g.
func viewRow(t *testing.T, v *Materialize, g int64) types.Row {
	t.Helper()
	rows, err := v.Rows()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r[0].I == g {
			return r
		}
	}
	t.Fatalf("no row of group %d in %v", g, rows)
	return nil
}

// TestAggregateDistinctCheckpointWritesChanges: after a group's set of
// 5,000 values is checkpointed, a checkpoint after one more value (and,
// retracting, one value taken back) writes a few bytes, not the set; a
// restore (lazy, with a budget, and eager, without) reads the set back
// from its chunks; many checkpoints of small changes keep the chunks of
// a set at most maxSetChunks.
func TestAggregateDistinctCheckpointWritesChanges(t *testing.T) {
	const size = 5000
	for _, c := range distinctCases {
		for _, budget := range []int{0, 2} {
			t.Run(fmt.Sprintf("%s/budget=%d", c.name, budget), func(t *testing.T) {
				st, build := c.stored(t, budget)
				agg, view := build()
				b := &Batch{}
				for v := range int64(size) {
					b.Rows = append(b.Rows, distinctRow(1, 0, v))
				}
				if err := agg.Process(0, b); err != nil {
					t.Fatal(err)
				}
				if n := checkpointBytes(t, st, 1, agg, view); n < size { // a byte a value for these dense ones
					t.Fatalf("first checkpoint wrote %d bytes, want the whole set", n)
				}
				b = &Batch{Rows: []types.Row{distinctRow(1, 0, size)}}
				if c.retract {
					b.Rows, b.Diffs = append(b.Rows, distinctRow(1, 0, 7)), []int8{1, -1}
				}
				if err := agg.Process(0, b); err != nil {
					t.Fatal(err)
				}
				if n := checkpointBytes(t, st, 2, agg, view); n > 400 {
					t.Fatalf("checkpoint of one changed value wrote %d bytes", n)
				}
				want := int64(size + 1)
				wantSum := int64(size * (size + 1) / 2)
				if c.retract {
					want, wantSum = want-1, wantSum-7
				}
				agg, view = build()
				for _, s := range []Stateful{agg, view} {
					if err := s.Restore(st); err != nil {
						t.Fatal(err)
					}
				}
				id := uint64(3)
				for i := range 3 * maxSetChunks {
					v := int64(2*size + i)
					if err := agg.Process(0, &Batch{Rows: []types.Row{distinctRow(1, 0, v)}}); err != nil {
						t.Fatal(err)
					}
					want, wantSum = want+1, wantSum+v
					checkpointBytes(t, st, id, agg, view)
					id++
					if n := keysUnder(t, st, "a@d/"); n > 2*maxSetChunks {
						t.Fatalf("after %d checkpoints: %d chunks for two sets, at most %d each", i+1, n, maxSetChunks)
					}
				}
				r := viewRow(t, view, 1)
				if r[2].I != want || r[3].I != wantSum {
					t.Fatalf("after restore: count(DISTINCT) %v, sum(DISTINCT) %v; want %d, %d", r[2], r[3], want, wantSum)
				}
				agg, _ = build() // and once more from the chunks alone
				if err := agg.Restore(st); err != nil {
					t.Fatal(err)
				}
				agg.keyBuf = state.AppendKey(agg.keyBuf[:0], types.IntValue(1))
				e, err := agg.lookup(string(agg.keyBuf))
				if err != nil || e == nil {
					t.Fatalf("group not found after restore: %v", err)
				}
				if got := e.acc[1].result().I; got != want {
					t.Fatalf("restored count(DISTINCT) = %d, want %d", got, want)
				}
			})
		}
	}
}

// TestAggregateDistinctExpiryDeletesChunks: a group expired under STATE
// TTL deletes its value and all its sets' chunks at the next checkpoint,
// and a group of the same key started again reads none of them.
func TestAggregateDistinctExpiryDeletesChunks(t *testing.T) {
	defer func(n int) { minChunkedEntries = n }(minChunkedEntries)
	minChunkedEntries = 64 // sets of 100 values in chunks
	for _, c := range distinctCases {
		t.Run(c.name, func(t *testing.T) {
			st, err := state.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			view := NewMaterialize("v/", nil, nil)
			agg := NewAggregate(AggregateConfig{Store: st, Budget: 2, ID: "a/", Node: c.node(10), TimeCol: 1, Out: Output{Op: view}})
			id := uint64(0)
			for round := range 3 { // chunk 0, then changes in chunks 1 and 2
				b := &Batch{}
				for v := range int64(100 - 70*min(round, 1)) {
					b.Rows = append(b.Rows, distinctRow(1, 0, int64(round)*1000+v))
				}
				if err := agg.Process(0, b); err != nil {
					t.Fatal(err)
				}
				id++
				checkpointBytes(t, st, id, agg)
			}
			if n := keysUnder(t, st, "a@d/"); n < 2 {
				t.Fatalf("%d chunks stored, want some", n)
			}
			if err := agg.Watermark(0, 100); err != nil {
				t.Fatal(err)
			}
			id++
			checkpointBytes(t, st, id, agg)
			if n, m := keysUnder(t, st, "a@d/"), keysUnder(t, st, "a/"); n != 0 || m != 0 {
				t.Fatalf("after expiry: %d chunks and %d groups stored, want none", n, m)
			}
			if err := agg.Process(0, &Batch{Rows: []types.Row{distinctRow(1, 200, 5)}}); err != nil {
				t.Fatal(err)
			}
			if r := viewRow(t, view, 1); r[1].I != 1 || r[2].I != 1 {
				t.Fatalf("group started again: %v, want count 1, count(DISTINCT) 1", r)
			}
		})
	}
}

// TestAggregateReadsInlineSets: a checkpoint written before the sets had
// chunks holds each group's sets in its value (here of 100 values, past
// minChunkedEntries). A restore, lazy (with a
// budget) or eager, reads them, the group goes on from them, and the next
// checkpoint that writes the group writes its sets in chunks, which a
// later restore reads.
func TestAggregateReadsInlineSets(t *testing.T) {
	defer func(n int) { minChunkedEntries = n }(minChunkedEntries)
	minChunkedEntries = 64 // sets of 100 values in chunks
	for _, c := range distinctCases {
		for _, budget := range []int{0, 2} {
			t.Run(fmt.Sprintf("%s/budget=%d", c.name, budget), func(t *testing.T) {
				st, build := c.stored(t, budget)
				agg, view := build()
				b := &Batch{}
				for v := range int64(100) {
					b.Rows = append(b.Rows, distinctRow(1, 0, v), distinctRow(1, 0, v)) // two copies of each
				}
				if err := agg.Process(0, b); err != nil {
					t.Fatal(err)
				}
				old := oldLayoutValue(agg, agg.entries[string(state.AppendKey(nil, types.IntValue(1)))])
				checkpointAll(t, st, 1, view)
				err := st.Update(func(w *state.Writer) error {
					return w.Set([]byte("a/"+string(state.AppendKey(nil, types.IntValue(1)))), old)
				})
				if err != nil {
					t.Fatal(err)
				}
				for round := range 2 {
					agg, view = build()
					for _, s := range []Stateful{agg, view} {
						if err := s.Restore(st); err != nil {
							t.Fatal(err)
						}
					}
					b = &Batch{Rows: []types.Row{distinctRow(1, 0, int64(100+round))}}
					if c.retract {
						b.Rows, b.Diffs = append(b.Rows, distinctRow(1, 0, int64(3+round))), []int8{1, -1}
					}
					if err := agg.Process(0, b); err != nil {
						t.Fatal(err)
					}
					want := int64(101 + round) // one copy of each value retracted is left
					if r := viewRow(t, view, 1); r[2].I != want {
						t.Fatalf("round %d: count(DISTINCT) %v, want %d", round, r[2], want)
					}
					checkpointAll(t, st, uint64(2+round), agg, view)
					if n := keysUnder(t, st, "a@d/"); n == 0 {
						t.Fatalf("round %d: the group's sets were not written in chunks", round)
					}
				}
			})
		}
	}
}

// oldLayoutValue is e's value as builds before the DISTINCT chunks wrote
// it: last update, group, emitted row, one row per accumulator (sets
// inline), no header.
func oldLayoutValue(a *Aggregate, e *aggEntry) []byte {
	rows := []types.Row{{types.IntValue(e.last)}, e.group, e.emitted}
	rows = append(rows, e.acc.encode()...)
	v := state.EncodeValue(rows...)
	if bytes.Equal(v, a.encode(e)) {
		panic("old and new layouts alike")
	}
	return v
}

// stored opens a store for the test (closed at its end) and returns it
// with a builder of the case's aggregate over it (budget groups in
// memory, 0 for all) and its view: a second build reads what the first
// checkpointed.
func (c distinctCase) stored(t *testing.T, budget int) (*state.Store, func() (*Aggregate, *Materialize)) {
	t.Helper()
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	node := c.node(0)
	return st, func() (*Aggregate, *Materialize) {
		view := NewMaterialize("v/", nil, nil)
		return NewAggregate(AggregateConfig{Store: st, Budget: budget, ID: "a/", Node: node, TimeCol: -1, Out: Output{Op: view}}), view
	}
}

// TestAggregateReadsValueSets: builds before the BIGINT values' blocks
// (intSet) wrote a set as a row of its values, one each, in the group's
// value (a small set) and in chunk 0 (a large one). A restore, lazy or
// eager, reads such a checkpoint; the group goes on from it, and the
// checkpoints after it, written in blocks, read back alike.
func TestAggregateReadsValueSets(t *testing.T) {
	defer func(n int) { minChunkedEntries = n }(minChunkedEntries)
	minChunkedEntries = 64
	for _, budget := range []int{0, 2} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			st, build := distinctCase{name: "append-only"}.stored(t, budget)
			agg, view := build()
			b := &Batch{}
			for v := range int64(100) { // group 1 in chunks, group 2 inline
				b.Rows = append(b.Rows, distinctRow(1, 0, v*7), distinctRow(2, 0, v%40))
			}
			if err := agg.Process(0, b); err != nil {
				t.Fatal(err)
			}
			checkpointAll(t, st, 1, agg, view)
			// rewrite every stored set in the form of one value each
			err := st.Update(func(w *state.Writer) error {
				for _, g := range []int64{1, 2} {
					k := string(state.AppendKey(nil, types.IntValue(g)))
					e, err := agg.lookup(k)
					if err != nil || e == nil {
						return fmt.Errorf("group %d: %v", g, err)
					}
					old := valuesLayoutValue(agg, e)
					if g == 2 && bytes.Equal(old, agg.encode(e)) {
						return fmt.Errorf("group 2's value alike in both layouts")
					}
					if err := w.Set([]byte("a/"+k), old); err != nil {
						return err
					}
					for j, i := range agg.sets {
						if e.chunks[j].n > 0 {
							v := state.EncodeValue(e.acc[i].encode())
							if err := w.Set(agg.chunkKey(nil, k, i, 0), v); err != nil {
								return err
							}
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[int64]int64{1: 100, 2: 40}
			for round := range 3 {
				agg, view = build()
				for _, s := range []Stateful{agg, view} {
					if err := s.Restore(st); err != nil {
						t.Fatal(err)
					}
				}
				b = &Batch{Rows: []types.Row{distinctRow(1, 0, int64(1000+round)), distinctRow(2, 0, int64(1000+round)), distinctRow(2, 0, 3)}}
				if err := agg.Process(0, b); err != nil {
					t.Fatal(err)
				}
				for g := range want {
					want[g]++
					if r := viewRow(t, view, g); r[2].I != want[g] {
						t.Fatalf("round %d: group %d's count(DISTINCT) %v, want %d", round, g, r[2], want[g])
					}
				}
				checkpointAll(t, st, uint64(2+round), agg, view)
			}
		})
	}
}

// valuesLayoutValue is e's value as builds before the BIGINT blocks
// wrote it: encode's, but each set in the value as a row of its values.
func valuesLayoutValue(a *Aggregate, e *aggEntry) []byte {
	b := a.appendScalar(nil, e)
	for i, x := range e.acc {
		if j := a.setOf(i); j >= 0 && e.chunks[j].n > 0 {
			b = binary.AppendUvarint(b, 0)
			continue
		}
		b = state.AppendRow(b, x.encode())
	}
	return a.appendHeader(b, e, setsChunked)
}

// TestAggregateMeanCountsBigGroupsExactly: one group whose set is stored
// in chunks among 299 small ones is counted exactly, not through the
// sample, so no draw of the sample makes the mean several times the true
// one (which evicted nearly every group of q16, its hot ones too).
func TestAggregateMeanCountsBigGroupsExactly(t *testing.T) {
	defer func(n int) { minChunkedEntries = n }(minChunkedEntries)
	minChunkedEntries = 64
	st, build := distinctCase{name: "append-only"}.stored(t, 0)
	agg, view := build()
	b := &Batch{}
	for v := range int64(50000) {
		b.Rows = append(b.Rows, distinctRow(0, 0, v*1000))
	}
	for g := range int64(299) {
		b.Rows = append(b.Rows, distinctRow(g+1, 0, 1), distinctRow(g+1, 0, 2))
	}
	if err := agg.Process(0, b); err != nil {
		t.Fatal(err)
	}
	checkpointAll(t, st, 1, agg, view)
	var exact int64
	for _, e := range agg.entries {
		exact += agg.groupBytes(e)
	}
	exact /= int64(len(agg.entries))
	for range 100 {
		if m := agg.meanBytes(); m < exact*2/3 || m > exact*3/2 {
			t.Fatalf("mean %d bytes a group, the true mean %d", m, exact)
		}
	}
}
