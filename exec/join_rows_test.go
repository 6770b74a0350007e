package exec

import (
	"bytes"
	"math/rand"
	"reflect"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/types"
)

// joinRowsSample returns n rows of mixed kinds (a NULL, strings of
// varying length, decimals) with their times.
func joinRowsSample(rng *rand.Rand, n int) ([]int64, []types.Row) {
	times := make([]int64, n)
	rows := make([]types.Row, n)
	for i := range rows {
		times[i] = rng.Int63n(1000) - 500
		s := string(bytes.Repeat([]byte{'a' + byte(i%26)}, rng.Intn(40)))
		rows[i] = types.Row{types.IntValue(int64(i)), types.StringValue(s), {}, types.FloatValue(rng.Float64())}
	}
	return times, rows
}

// TestJoinRowsRoundTrip: rows kept encoded decode to what was added, a
// filter keeps exactly the accepted rows in order, and the state value
// encodeRows writes is byte for byte state.EncodeValue's of the header
// and (time, row...) rows, which decodeRows reads back.
func TestJoinRowsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 50; round++ {
		times, rows := joinRowsSample(rng, rng.Intn(30))
		var rs joinRows
		var scratch []byte
		for i, r := range rows {
			rs.add(times[i], r, &scratch)
		}
		keep := make([]bool, len(rows))
		var wantT []int64
		var wantR []types.Row
		for i := range keep {
			if keep[i] = rng.Intn(3) > 0; keep[i] {
				wantT, wantR = append(wantT, times[i]), append(wantR, rows[i])
			}
		}
		if dropped := rs.filter(func(i int) bool { return keep[i] }); dropped != len(rows)-len(wantR) {
			t.Fatalf("round %d: filter dropped %d, want %d", round, dropped, len(rows)-len(wantR))
		}
		if rs.len() != len(wantR) {
			t.Fatalf("round %d: %d rows after filter, want %d", round, rs.len(), len(wantR))
		}
		enc := []types.Row{{types.IntValue(7), types.IntValue(8)}}
		for i := range wantR {
			got, err := rs.row(i)
			if err != nil {
				t.Fatal(err)
			}
			if rs.time(i) != wantT[i] || !reflect.DeepEqual(got, wantR[i]) {
				t.Fatalf("round %d row %d: got %d %v, want %d %v", round, i, rs.time(i), got, wantT[i], wantR[i])
			}
			enc = append(enc, append(types.Row{types.IntValue(wantT[i])}, wantR[i]...))
		}
		val := encodeRows(enc[0], &rs)
		if want := state.EncodeValue(enc...); !bytes.Equal(val, want) {
			t.Fatalf("round %d: encodeRows differs from EncodeValue:\n%x\n%x", round, val, want)
		}
		hdr, back, err := decodeRows(val)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(hdr, enc[0]) || !bytes.Equal(back.buf, rs.buf) || back.first != rs.first || !slices.Equal(back.rest, rs.rest) {
			t.Fatalf("round %d: decodeRows does not give the rows back", round)
		}
	}
}

// TestJoinTimersPerKey: rows of one key arriving in time order leave one
// expiry-heap entry for the key, not one per row, and each purge leaves
// one at the key's next expiry, until the last row goes.
func TestJoinTimersPerKey(t *testing.T) {
	j := NewJoin(JoinConfig{ID: "j/", Node: intervalNode(-5, 10, false, false, nil), Late: &lateness.Counters{}})
	var b Batch
	for ts := int64(100); ts < 200; ts++ {
		b.Rows = append(b.Rows, types.Row{types.StringValue("a"), types.TimestampValue(ts), types.IntValue(ts)})
	}
	if err := j.Process(0, &b); err != nil {
		t.Fatal(err)
	}
	if n := j.timers[0].heap.Len(); n != 1 {
		t.Fatalf("%d heap entries for one key, want 1", n)
	}
	for wm := int64(120); wm <= 220; wm += 20 {
		if err := j.Watermark(1, wm); err != nil {
			t.Fatal(err)
		}
		// left rows at ts live while ts + 10 >= wm
		want := max(0, min(100, 200-(wm-10)))
		if n := j.storedRows(0); n != int(want) {
			t.Fatalf("right watermark %d: %d rows stored, want %d", wm, n, want)
		}
		wantHeap := 1
		if want == 0 {
			wantHeap = 0
		}
		if n := j.timers[0].heap.Len(); n != wantHeap {
			t.Fatalf("right watermark %d: %d heap entries, want %d", wm, n, wantHeap)
		}
	}
}
