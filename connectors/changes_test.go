package connectors

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestChangesIntervalParts: staged changes keep an interval's months and
// days; changes staged by a version 2 build still decode; intervals that
// differ only in months are different keys when collapsing.
func TestChangesIntervalParts(t *testing.T) {
	iv := types.IntervalOf(1, 2, 3)
	in := []Change{{Op: Upsert, Row: types.Row{iv, types.IntValue(1)}}, {Op: Upsert, Row: types.Row{types.IntervalValue(3), types.IntValue(2)}}}
	out, err := DecodeChanges(EncodeChanges(in))
	if err != nil || len(out) != 2 || out[0].Row[0] != iv || out[1].Row[0] != types.IntervalValue(3) {
		t.Fatalf("round trip = %v, %v", out, err)
	}
	old := []byte{2, 1, byte(Upsert), 1, byte(types.Interval), 10} // version 2: one change, Interval of 5 µs
	if out, err := DecodeChanges(old); err != nil || len(out) != 1 || out[0].Row[0] != types.IntervalValue(5) {
		t.Fatalf("version 2 changes = %v, %v", out, err)
	}
	if got := Collapse(in, []int{0}); len(got) != 2 {
		t.Fatalf("Collapse merged '1 mon 2 days 3 µs' with '3 µs': %v", got)
	}
}

// TestChangesTimeZoneKinds: TIMESTAMPTZ and TIME changes round-trip;
// version 4 bytes holding either kind are refused.
func TestChangesTimeZoneKinds(t *testing.T) {
	row := types.Row{types.TimestampTZValue(-5), types.TimeValue(86400000000)}
	got, err := DecodeChanges(EncodeChanges([]Change{{Op: Upsert, Row: row}}))
	if err != nil || len(got) != 1 || got[0].Row[0] != row[0] || got[0].Row[1] != row[1] {
		t.Fatalf("round trip = %v, %v", got, err)
	}
	for _, k := range []types.Kind{types.TimestampTZ, types.Time} {
		if _, err := DecodeChanges([]byte{4, 1, byte(Upsert), 1, byte(k), 2}); err == nil {
			t.Errorf("version 4 bytes holding %s decoded", k)
		}
	}
}
