package exec

import (
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// keyedRow is an input row of the keyed Top-N cases: (k VARCHAR, v
// BIGINT, rn placeholder BIGINT); del makes it a retraction.
func keyedRow(k string, v int64, del bool) event {
	return event{row: types.Row{types.StringValue(k), types.IntValue(v), types.IntValue(0)}, wm: autoWM, del: del}
}

// keyedBuild builds a TopN of fn partitioned by k and ordered by v DESC.
func keyedBuild(fn string, limit int64, keepAll bool) func(instance) Operator {
	node := &planner.TopN{Fn: fn, Limit: limit, Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}},
		RankCol: 2, RankName: "rn"}
	return func(in instance) Operator {
		var keep func(types.Row) bool
		if in.Keep != nil {
			keep = func(k types.Row) bool { return in.Keep(0, k) }
		}
		return NewTopN(TopNConfig{ID: in.ID, Node: node, KeepAll: keepAll, Out: in.Out, Keep: keep, Store: in.Store, Budget: in.Budget})
	}
}

// keyedEvents: two partitions, ties on v, a row that displaces the top.
var keyedEvents = []event{
	keyedRow("a", 5, false), keyedRow("a", 9, false), keyedRow("b", 1, false), keyedRow("a", 7, false),
	wmAt(0, 5),
	keyedRow("a", 9, false), keyedRow("b", 3, false), keyedRow("a", 11, false),
	wmAt(0, 10),
}

// retractEvents: a retracting input; deleting top rows refills the top
// from the rows kept below it.
var retractEvents = []event{
	keyedRow("a", 5, false), keyedRow("a", 9, false), keyedRow("a", 7, false), keyedRow("b", 1, false),
	wmAt(0, 5),
	keyedRow("a", 9, true), keyedRow("b", 1, true), keyedRow("b", 4, false),
	wmAt(0, 10),
	keyedRow("a", 7, true), keyedRow("a", 6, false),
	wmAt(0, 15),
}

// TestHarnessTopN varies delivery, parallelism and restores for the keyed
// Top-N: the consolidated output is the final ranked rows whatever the
// order rows came in, over an append-only and a retracting input.
func TestHarnessTopN(t *testing.T) {
	cases := []harnessCase{{
		name: "row_number<=2", keys: [][]int{{0}}, build: keyedBuild("row_number", 2, false), events: keyedEvents, reorder: true,
		want: []string{"a 11 1", "a 9 2", "b 3 1", "b 1 2"},
	}, {
		name: "rank<=2", keys: [][]int{{0}}, build: keyedBuild("rank", 2, false), events: keyedEvents, reorder: true,
		want: []string{"a 11 1", "a 9 2", "a 9 2", "b 3 1", "b 1 2"},
	}, {
		name: "dense_rank<=2", keys: [][]int{{0}}, build: keyedBuild("dense_rank", 2, false), events: keyedEvents, reorder: true,
		want: []string{"a 11 1", "a 9 2", "a 9 2", "b 3 1", "b 1 2"},
	}, {
		name: "dedup row_number=1", keys: [][]int{{0}}, build: keyedBuild("row_number", 1, false), events: keyedEvents, reorder: true,
		want: []string{"a 11 1", "b 3 1"},
	}, {
		name: "retracting row_number<=2", keys: [][]int{{0}}, build: keyedBuild("row_number", 2, true), events: retractEvents,
		want: []string{"a 6 1", "a 5 2", "b 4 1"},
	}, {
		name: "retracting dense_rank<=1", keys: [][]int{{0}}, build: keyedBuild("dense_rank", 1, true), events: retractEvents,
		want: []string{"a 6 1", "b 4 1"},
	}}
	for _, c := range cases {
		c.spill = true
		t.Run(c.name, func(t *testing.T) { runHarness(t, c) })
	}
}

// TestTopNKeepsLimit: over an append-only input a partition keeps Limit
// rows; over a retracting one it keeps them all.
func TestTopNKeepsLimit(t *testing.T) {
	for _, all := range []bool{false, true} {
		op := keyedBuild("row_number", 2, all)(instance{ID: "t/", Out: Output{Op: discardOp{}}}).(*TopN)
		b := &Batch{}
		for _, v := range []int64{1, 2, 3, 4} {
			b.Rows = append(b.Rows, keyedRow("a", v, false).row)
		}
		if err := op.Process(0, b); err != nil {
			t.Fatal(err)
		}
		want := 2
		if all {
			want = 4
		}
		for _, p := range op.store.parts {
			if int(p.n) != want || p.touched != 0 {
				t.Fatalf("keepAll=%v: partition keeps %d rows (open %d), want %d encoded", all, p.n, p.touched, want)
			}
		}
		if s := op.stateSize(); s.Keys != 1 || s.MemoryBytes <= 0 {
			t.Fatalf("state size %+v, want 1 key and some bytes", s)
		}
	}
}

// changeLog is an Operator that records the changes it receives as
// "+row" and "-row".
type changeLog struct{ got []string }

func (c *changeLog) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		sign := "+"
		if b.Diff(i) < 0 {
			sign = "-"
		}
		c.got = append(c.got, sign+r.String())
	}
	return nil
}
func (*changeLog) Watermark(int, int64) error { return nil }
func (*changeLog) Tick(int64) error           { return nil }

// TestTopNWallClockTTL: with no event-time column STATE TTL runs on the
// wall clock: a partition not updated for the TTL is dropped at the Tick
// that passes its expiry and its ranked rows are retracted; a row that
// ranks past the limit still counts as an update.
func TestTopNWallClockTTL(t *testing.T) {
	node := &planner.TopN{Fn: "row_number", Limit: 1, Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}},
		RankCol: 2, RankName: "rn", TTL: 10}
	log := &changeLog{}
	op := NewTopN(TopNConfig{ID: "t/", Node: node, Out: Output{Op: log}, TimeCol: -1, Now: 0})
	steps := []struct {
		now  int64
		rows []event
		want []string
	}{
		{0, []event{keyedRow("a", 5, false), keyedRow("b", 1, false)}, []string{"+a 5 1", "+b 1 1"}},
		{6, []event{keyedRow("b", 0, false)}, nil}, // past the limit: an update all the same
		{10, nil, []string{"-a 5 1"}},
		{15, nil, nil},
		{16, nil, []string{"-b 1 1"}},
		{17, []event{keyedRow("a", 2, false)}, []string{"+a 2 1"}},
	}
	for _, s := range steps {
		log.got = nil
		if err := op.Tick(s.now); err != nil {
			t.Fatal(err)
		}
		b := &Batch{}
		for _, e := range s.rows {
			b.Rows = append(b.Rows, e.row)
		}
		if err := op.Process(0, b); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(log.got) != fmt.Sprint(s.want) {
			t.Fatalf("at %d: got %v, want %v", s.now, log.got, s.want)
		}
	}
}

// TestTopNEndOfInputKeepsPartitions: under an event-time STATE TTL the
// watermark of an input that ended (EndOfTime) expires no partition, so
// the view keeps its final answer; a real watermark past the TTL does.
func TestTopNEndOfInputKeepsPartitions(t *testing.T) {
	node := &planner.TopN{Fn: "row_number", Limit: 1, Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}},
		RankCol: 2, RankName: "rn", TTL: 10}
	log := &changeLog{}
	op := NewTopN(TopNConfig{ID: "t/", Node: node, Out: Output{Op: log}, TimeCol: 1})
	if err := op.Process(0, &Batch{Rows: []types.Row{keyedRow("a", 5, false).row, keyedRow("b", 20, false).row}}); err != nil {
		t.Fatal(err)
	}
	log.got = nil
	if err := op.Watermark(0, 16); err != nil { // a (last 5) expires, b (last 20) stays
		t.Fatal(err)
	}
	if err := op.Watermark(0, types.EndOfTime); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(log.got) != "[-a 5 1]" {
		t.Fatalf("got %v, want only a's row retracted", log.got)
	}
}

// TestTopNRestoresEarlierLayouts: a keyed Top-N restores partitions as
// the build that kept them decoded wrote them (state.EncodeValue of the
// rows, under STATE TTL the last update first) and as a checkpoint of an
// older codec version holds them, and goes on from them: a new top row
// displaces the stored one and the stored partition's cut drops a row
// below a full partition.
func TestTopNRestoresEarlierLayouts(t *testing.T) {
	row := func(k string, v int64) types.Row {
		return types.Row{types.StringValue(k), types.IntValue(v), types.IntValue(0)}
	}
	current := func(rows ...types.Row) []byte { return state.EncodeValue(rows...) }
	version1 := func(rows ...types.Row) []byte { // BIGINT and VARCHAR encode alike in version 1
		v := state.EncodeValue(rows...)
		v[0] = 1
		return v
	}
	for _, tc := range []struct {
		name string
		ttl  int64
		enc  func(rows ...types.Row) []byte
	}{
		{"current", 0, current},
		{"current with TTL", 100, current},
		{"version 1", 0, version1},
		{"version 1 with TTL", 100, version1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := state.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			stored := func(rows ...types.Row) []byte {
				if tc.ttl > 0 {
					rows = append([]types.Row{{types.IntValue(7)}}, rows...)
				}
				return tc.enc(rows...)
			}
			err = st.Batch(func(w *state.Writer) error {
				for _, rows := range [][]types.Row{{row("a", 9), row("a", 5)}, {row("b", 3)}} {
					if err := w.Set(append([]byte("t/"), state.AppendKeyCols(nil, rows[0], []int{0})...), stored(rows...)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			node := &planner.TopN{Fn: "row_number", Limit: 2, Partition: []int{0}, Order: []planner.SortKey{{Col: 1, Desc: true}},
				RankCol: 2, RankName: "rn", TTL: tc.ttl}
			log := &changeLog{}
			op := NewTopN(TopNConfig{ID: "t/", Node: node, Out: Output{Op: log}, TimeCol: -1, Store: st, Budget: 1})
			if err := op.Restore(st); err != nil {
				t.Fatal(err)
			}
			steps := []struct {
				rows []types.Row
				want []string
			}{
				{[]types.Row{row("a", 11)}, []string{"-a 9 1", "-a 5 2", "+a 11 1", "+a 9 2"}},
				{[]types.Row{row("a", 1), row("b", 4)}, []string{"-b 3 1", "+b 4 1", "+b 3 2"}},
				{[]types.Row{row("a", 2)}, nil}, // below a's cut
			}
			for i, s := range steps {
				log.got = nil
				if err := op.Process(0, &Batch{Rows: s.rows}); err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(log.got) != fmt.Sprint(s.want) {
					t.Fatalf("step %d: got %v, want %v", i, log.got, s.want)
				}
			}
			if tc.ttl > 0 {
				log.got = nil
				if err := op.Tick(7 + tc.ttl); err != nil { // the stored last update, 7, expires
					t.Fatal(err)
				}
				if len(log.got) == 0 {
					t.Fatal("no partition expired at the stored last update plus the TTL")
				}
			}
		})
	}
}
