package exec

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// TestRowStoreAgreesWithMap drives a rowStore with random adds, count
// changes and removes and checks after each step that it agrees with a
// plain map: every row is found with its count, no removed row is found,
// ids of removed rows are reused and dead bytes are reclaimed. The cases
// vary the hash so that the table grows, and so that every row collides
// (one hash for all) or many do (a few hashes), and the key sizes so that
// rows outgrow a chunk.
func TestRowStoreAgreesWithMap(t *testing.T) {
	cases := []struct {
		name    string
		rows    int // distinct keys drawn from
		steps   int
		keyLen  int // extra bytes per key (large rows)
		hash    func(s *rowStore, k []byte) uint64
		removes int // out of 10 steps
	}{
		{name: "growth", rows: 50_000, steps: 60_000, hash: (*rowStore).hash, removes: 1},
		{name: "churn", rows: 2_000, steps: 200_000, hash: (*rowStore).hash, removes: 5},
		{name: "one hash", rows: 300, steps: 5_000, hash: func(*rowStore, []byte) uint64 { return 42 << 32 }, removes: 4},
		{name: "few hashes", rows: 3_000, steps: 30_000, hash: func(_ *rowStore, k []byte) uint64 { return uint64(len(k)%3+int(k[len(k)-1]%4)) << 32 }, removes: 4},
		{name: "large rows", rows: 400, steps: 20_000, keyLen: 30_000, hash: (*rowStore).hash, removes: 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(1))
			s := newRowStore()
			want := map[string]int64{}
			ids := map[string]uint32{}
			pad := make([]byte, tc.keyLen)
			compacted := false
			for step := 0; step < tc.steps; step++ {
				k := append(fmt.Appendf(nil, "row-%d-", rng.Intn(tc.rows)), pad...)
				h := tc.hash(s, k)
				id, ok := s.find(k, h)
				if ok != (want[string(k)] > 0) {
					t.Fatalf("step %d: find(%q) = %v, the map holds it: %v", step, k[:12], ok, want[string(k)] > 0)
				}
				switch {
				case !ok:
					id = s.add(k, h, 1, 0)
					want[string(k)], ids[string(k)] = 1, id
				case rng.Intn(10) < tc.removes:
					deadBefore := s.dead
					s.remove(id, h)
					compacted = compacted || s.dead < deadBefore
					delete(want, string(k))
					delete(ids, string(k))
				default:
					s.rec(id).count++
					want[string(k)]++
				}
				if s.held != len(want) {
					t.Fatalf("step %d: store holds %d rows, want %d", step, s.held, len(want))
				}
			}
			for k, n := range want {
				id, ok := s.find([]byte(k), tc.hash(s, []byte(k)))
				if !ok || id != ids[k] || s.rec(id).count != n || string(s.key(id)) != k {
					t.Fatalf("row %q: found %v id %d (want %d) count %d (want %d)", k[:12], ok, id, ids[k], s.rec(id).count, n)
				}
			}
			if len(s.recs) > tc.rows {
				t.Fatalf("%d records for at most %d rows at once: removed ids are not reused", len(s.recs), tc.rows)
			}
			if s.dead > compactMinBytes && 2*s.dead > s.used {
				t.Fatalf("%d dead of %d bytes left uncompacted", s.dead, s.used)
			}
			if tc.removes >= 5 && !compacted {
				t.Fatalf("churn never compacted (dead %d of %d bytes)", s.dead, s.used)
			}
		})
	}
}

// TestIDTableMultimap stores several ids under each hash (the key
// index's use) and removes some: each must list exactly the ids left,
// whatever the probe sequences' overlaps, at every table size.
func TestIDTableMultimap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hashes  int
		perHash int
	}{
		{"one hash", 1, 200},
		{"few hashes", 7, 50},
		{"many", 5_000, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tab idTable
			want := map[uint64]map[uint32]bool{}
			id := uint32(0)
			for h := 0; h < tc.hashes; h++ {
				hv := uint64(h*2654435761) << 32
				want[hv] = map[uint32]bool{}
				for range tc.perHash {
					tab.insert(hv, id)
					want[hv][id] = true
					id++
				}
			}
			rng := rand.New(rand.NewSource(2))
			for hv, ids := range want {
				for x := range ids {
					if rng.Intn(2) == 0 {
						tab.remove(hv, x)
						delete(ids, x)
					}
				}
			}
			n := 0
			for hv, ids := range want {
				got := map[uint32]bool{}
				tab.each(hv, func(x uint32) { got[x] = true })
				if len(got) != len(ids) {
					t.Fatalf("hash %x lists %d ids, want %d", hv, len(got), len(ids))
				}
				for x := range ids {
					if !got[x] {
						t.Fatalf("hash %x lost id %d", hv, x)
					}
				}
				n += len(ids)
			}
			if tab.n != n {
				t.Fatalf("table counts %d ids, holds %d", tab.n, n)
			}
		})
	}
}

// TestMaterializeRowOverhead checks issue 13's memory target: a stored
// row costs its encoding plus at most 150 bytes (record, hash table,
// chunk slack, changed list and key index), measured by the store's own
// account of what it allocated, and that the memory_bytes estimate is
// near it.
func TestMaterializeRowOverhead(t *testing.T) {
	m := NewMaterialize(ViewStoreID("w"), []int{0, 1}, nil)
	const n = 100_000
	var encoded int64
	for i := range int64(n) {
		r := types.Row{types.IntValue(1000 + i%5000), types.TimestampValue(i / 5000 * 10_000_000), types.IntValue(i % 97), types.IntValue(i * 31)}
		encoded += int64(len(state.AppendRow(nil, r)))
		if err := m.Process(0, &Batch{Rows: []types.Row{r}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Get(types.Row{types.IntValue(1000), types.TimestampValue(0)}); err != nil {
		t.Fatal(err)
	}
	held := m.rows.bytes() + m.index.bytes() + int64(cap(m.changed.items))*4
	if over := (held - encoded) / n; over > 150 {
		t.Fatalf("a stored row costs %d bytes besides its %d-byte encoding, want at most 150", over, encoded/n)
	}
	t.Logf("%d bytes per row besides a %d-byte encoding; memory_bytes counts %d per row", (held-encoded)/n, encoded/n, m.meanBytes())
	if est := m.meanBytes(); est < held/n/2 || est > held/n*2 {
		t.Fatalf("memory_bytes estimates %d bytes per row, the store holds %d", est, held/n)
	}
}

// TestMaterializeSpillKeepsTombstones removes checkpointed rows while
// the store spills the others, checkpoints, and restores: the removed
// rows must be gone from the checkpoint and the kept ones all there.
func TestMaterializeSpillKeepsTombstones(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := NewMaterialize("v/", []int{0}, nil).WithSpill(st, 10, 2, nil)
	row := func(i int64) types.Row { return types.Row{types.IntValue(i), types.IntValue(i * 7)} }
	batch := func(d int8, from, to int64) *Batch {
		b := &Batch{}
		for i := from; i < to; i++ {
			b.Rows, b.Diffs = append(b.Rows, row(i)), append(b.Diffs, d)
		}
		return b
	}
	if err := m.Process(0, batch(1, 0, 100)); err != nil {
		t.Fatal(err)
	}
	checkpointAll(t, st, 1, m)
	if err := m.Process(0, batch(-1, 0, 50)); err != nil {
		t.Fatal(err)
	}
	if err := m.Process(0, batch(1, 100, 150)); err != nil {
		t.Fatal(err)
	}
	checkpointAll(t, st, 2, m)
	got, err := StoredRows(st, "v/")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 100 {
		t.Fatalf("checkpoint holds %d rows, want 100", len(got))
	}
	for i, r := range got {
		if r[0].I < 50 {
			t.Fatalf("row %d: removed row %v still in the checkpoint", i, r)
		}
	}
	back := NewMaterialize("v/", []int{0}, nil).WithSpill(st, 10, 2, nil)
	if err := back.Restore(st); err != nil {
		t.Fatal(err)
	}
	rows, err := back.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if types.Row(flatten(rows)).String() != types.Row(flatten(got)).String() {
		t.Fatalf("restored %v, checkpoint %v", rows, got)
	}
}

// TestMaterializeEvictsOnlyCheckpointedRows: a view store over its row
// budget keeps the rows changed since the last checkpoint in memory and
// writes none to the spill area (the area would keep each spilled row's
// encoding in memory anyway); once a checkpoint holds them, rows leave
// memory down to the budget, and the view still answers every row, from
// memory and from the checkpoint, before and after a restore.
func TestMaterializeEvictsOnlyCheckpointedRows(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const budget = 10
	m := NewMaterialize("v/", nil, nil).WithSpill(st, budget, 2, nil)
	batch := func(from, to int64) *Batch {
		b := &Batch{}
		for i := from; i < to; i++ {
			b.Rows, b.Diffs = append(b.Rows, types.Row{types.IntValue(i), types.IntValue(i * 7)}), append(b.Diffs, 1)
		}
		return b
	}
	want := func(n int64) string {
		var rows []types.Row
		for i := range n {
			rows = append(rows, types.Row{types.IntValue(i), types.IntValue(i * 7)})
		}
		return types.Row(flatten(rows)).String()
	}
	steps := []struct {
		from, to   int64
		checkpoint bool
		inMemory   int // rows held in memory after the step
	}{
		{0, 40, false, 40},  // all changed: none may leave
		{40, 60, false, 60}, // still no checkpoint
		{60, 60, true, 60},  // checkpointed: leave at the next eviction check
		{60, 70, false, 10}, // 70 > 10: evicting down to 3/4 of the budget takes all 60 checkpointed rows, the 10 new stay
		{70, 70, true, 10},
		{70, 75, false, 7}, // 15 > 10: down to 7 takes 8 of the 10 checkpointed rows, the 5 new stay
	}
	id := uint64(0)
	for i, s := range steps {
		if err := m.Process(0, batch(s.from, s.to)); err != nil {
			t.Fatal(err)
		}
		if s.checkpoint {
			id++
			checkpointAll(t, st, id, m)
		}
		spilled := 0
		if err := st.Scan([]byte(SpillPrefix), func(_, _ []byte) error { spilled++; return nil }); err != nil {
			t.Fatal(err)
		}
		if spilled != 0 {
			t.Fatalf("step %d: %d keys in the spill area, want none", i, spilled)
		}
		if m.live != s.inMemory {
			t.Fatalf("step %d: %d rows in memory, want %d", i, m.live, s.inMemory)
		}
		rows, err := m.Rows()
		if err != nil {
			t.Fatal(err)
		}
		if got := types.Row(flatten(rows)).String(); got != want(s.to) {
			t.Fatalf("step %d: view holds %s, want %s", i, got, want(s.to))
		}
	}
	back := NewMaterialize("v/", nil, nil).WithSpill(st, budget, 2, nil)
	if err := back.Restore(st); err != nil {
		t.Fatal(err)
	}
	rows, err := back.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if got := types.Row(flatten(rows)).String(); got != want(70) { // the 5 rows after the last checkpoint are gone
		t.Fatalf("restored %s, want %s", got, want(70))
	}
}

// TestLeadOfMatchesRowPrefix: the leading part leadOf cuts from a row's
// encoding is what state.AppendRowPrefix gives for the row's width and
// its first values, for every kind a partition column may hold and for
// kinds codecLen leaves to the decoder.
func TestLeadOfMatchesRowPrefix(t *testing.T) {
	rest := types.Row{types.StringValue("tail"), types.IntValue(7)}
	for _, lead := range []types.Row{
		{types.IntValue(-3)},
		{types.NullValue},
		{types.StringValue(""), types.StringValue("héllo")},
		{types.BoolValue(true), types.TimestampValue(1_700_000_000_000)},
		{types.Value{K: types.Date, I: 19000}, types.Value{K: types.Time, I: 3600}, types.Value{K: types.TimestampTZ, I: -1}},
		{types.FloatValue(2.5)},
		{types.IntValue(1), types.NullValue, types.StringValue(string(make([]byte, 300)))},
	} {
		r := append(append(types.Row{}, lead...), rest...)
		k := state.AppendRow(nil, r)
		want := state.AppendRowPrefix(nil, len(r), lead...)
		if got := leadOf(k, len(lead)); string(got) != string(want) {
			t.Errorf("%v: leadOf = %x, want %x", lead, got, want)
		}
	}
	if got := leadOf([]byte{1, byte(types.String), 9}, 1); len(got) != 3 {
		t.Errorf("a truncated value: leadOf = %x, want the whole encoding", got)
	}
}

// TestRowStoreLeadIndex drives a rowStore indexed by its rows' first
// value with random adds and removes (and the compactions they cause),
// and checks that eachLead lists exactly the rows held with each leading
// value.
func TestRowStoreLeadIndex(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	s := newRowStore()
	s.withLead(1)
	held := map[string]uint32{}
	row := func(part, n int) []byte {
		return state.AppendRow(nil, types.Row{types.IntValue(int64(part)), types.IntValue(int64(n)), types.StringValue("pad-pad-pad")})
	}
	for step := range 50_000 {
		k := row(rng.Intn(40), rng.Intn(200))
		h := s.hash(k)
		if id, ok := s.find(k, h); ok {
			s.remove(id, h)
			delete(held, string(k))
		} else {
			held[string(k)] = s.add(k, h, 1, 0)
		}
		if step%5_000 != 0 {
			continue
		}
		for part := range 40 {
			lead := state.AppendRowPrefix(nil, 3, types.IntValue(int64(part)))
			got := map[uint32]bool{}
			s.eachLead(lead, func(id uint32) { got[id] = true })
			want := 0
			for k, id := range held {
				if string(leadOf([]byte(k), 1)) == string(lead) {
					want++
					if !got[id] {
						t.Fatalf("step %d: partition %d: row %x (id %d) not listed", step, part, k, id)
					}
				}
			}
			if len(got) != want {
				t.Fatalf("step %d: partition %d: %d rows listed, %d held", step, part, len(got), want)
			}
		}
	}
}
