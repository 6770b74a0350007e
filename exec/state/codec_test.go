package state

import (
	"bytes"
	"math"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestAppendKeyEqualValues: values SQL's = holds equal make one key (0 and
// -0, NaNs of any bits), while AppendRow keeps them apart so stored rows
// keep their exact values.
func TestAppendKeyEqualValues(t *testing.T) {
	otherNaN := math.Float64frombits(0xfff8000000000000) // the x86 default NaN, not math.NaN()'s bits
	for _, pair := range [][2]float64{{0, math.Copysign(0, -1)}, {math.NaN(), otherNaN}} {
		a, b := types.FloatValue(pair[0]), types.FloatValue(pair[1])
		if !bytes.Equal(AppendKey(nil, a), AppendKey(nil, b)) {
			t.Errorf("AppendKey(%v) != AppendKey(%v)", pair[0], pair[1])
		}
		if !bytes.Equal(AppendKeyRow(nil, types.Row{a, a}), AppendKeyRow(nil, types.Row{b, b})) {
			t.Errorf("AppendKeyRow of %v and %v differ", pair[0], pair[1])
		}
		if bytes.Equal(AppendRow(nil, types.Row{a}), AppendRow(nil, types.Row{b})) {
			t.Errorf("AppendRow(%v) = AppendRow(%v): a stored row lost its bits", pair[0], pair[1])
		}
	}
}

// TestAppendKeyKeepsOtherKeys: every other value's key is its AppendRow
// encoding, so keys written to state before keep their bytes, and a key
// decodes as a row.
func TestAppendKeyKeepsOtherKeys(t *testing.T) {
	vals := types.Row{
		types.NullValue, types.BoolValue(true), types.IntValue(-7), types.FloatValue(1.5),
		types.FloatValue(math.Inf(-1)), types.StringValue("x"), types.TimestampValue(1e6), types.IntervalValue(5),
	}
	for _, v := range vals {
		if got, want := AppendKey(nil, v), AppendRow(nil, types.Row{v}); !bytes.Equal(got, want) {
			t.Errorf("AppendKey(%v) = %x, want %x", v, got, want)
		}
	}
	if got, want := AppendKeyRow(nil, vals), AppendRow(nil, vals); !bytes.Equal(got, want) {
		t.Errorf("AppendKeyRow = %x, want %x", got, want)
	}
	r, rest, err := DecodeRow(AppendKeyRow(nil, types.Row{types.FloatValue(math.Copysign(0, -1))}))
	if err != nil || len(rest) != 0 || len(r) != 1 || r[0].F != 0 || math.Signbit(r[0].F) {
		t.Errorf("decoded -0 key = %v, %q, %v; want the row (0)", r, rest, err)
	}
}

// TestDecodeKeysRoundTrip checks that a key of AppendKey values decodes to
// their key forms, so an instance can learn a key's owner without its value.
func TestDecodeKeysRoundTrip(t *testing.T) {
	vals := types.Row{types.IntValue(7), types.StringValue("x"), types.DecimalValue(150, 2)}
	var key []byte
	for _, v := range vals {
		key = AppendKey(key, v)
	}
	got, err := DecodeKeys(key)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].I != 7 || got[1].S != "x" {
		t.Fatalf("DecodeKeys = %v", got)
	}
	cols := []int{0, 1, 2}
	if types.HashValues(got, cols) != types.HashValues(vals, cols) {
		t.Error("a decoded key hashes differently from its row: restore would give it to the wrong instance")
	}
	if _, err := DecodeKeys([]byte{5}); err == nil {
		t.Error("DecodeKeys accepted a truncated key")
	}
}

// TestJSONBValues: JSONB values round-trip, equal jsonb values of other
// spellings make one key, and values of every older layout still decode
// while an older layout holding JSONB is refused.
func TestJSONBValues(t *testing.T) {
	a, _ := types.ParseJSONB(`{"b": [1.50, "x"], "a": null}`)
	rows, err := DecodeValue(EncodeValue(types.Row{a, types.StringValue("s")}))
	if err != nil || len(rows) != 1 || rows[0][0] != a {
		t.Fatalf("round trip = %v, %v", rows, err)
	}
	b, _ := types.ParseJSONB(`{"a": null, "b": [1.5, "x"]}`)
	if !bytes.Equal(AppendKey(nil, a), AppendKey(nil, b)) {
		t.Errorf("AppendKey(%v) != AppendKey(%v)", a, b)
	}
	// Version 2 bytes (one row of BIGINT 7, DATE 3) decode; version 2
	// bytes with a JSONB are refused.
	if rows, err := DecodeValue([]byte{2, 1, 2, byte(types.Int), 14, byte(types.Date), 6}); err != nil || rows[0].String() != "7 1970-01-04" {
		t.Errorf("version 2 value = %v, %v", rows, err)
	}
	if _, err := DecodeValue([]byte{2, 1, 1, byte(types.JSONB), 1, '1'}); err == nil {
		t.Error("a version 2 value holding JSONB decoded")
	}
}

// TestTimeZoneKinds: TIMESTAMPTZ and TIME values round-trip, a version 4
// value (JSONB's layout) still decodes, and a version 4 value holding one
// of the kinds version 5 added is refused.
func TestTimeZoneKinds(t *testing.T) {
	row := types.Row{types.TimestampTZValue(1704099600000000), types.TimeValue(45296000000), types.TimestampValue(3)}
	rows, err := DecodeValue(EncodeValue(row))
	if err != nil || len(rows) != 1 || rows[0][0] != row[0] || rows[0][1] != row[1] || rows[0][2] != row[2] || rows[0][0].K != types.TimestampTZ || rows[0][1].K != types.Time {
		t.Fatalf("round trip = %v, %v", rows, err)
	}
	if rows, err := DecodeValue([]byte{4, 1, 1, byte(types.Int), 14}); err != nil || rows[0].String() != "7" {
		t.Errorf("version 4 value = %v, %v", rows, err)
	}
	for _, k := range []types.Kind{types.TimestampTZ, types.Time} {
		if _, err := DecodeValue([]byte{4, 1, 1, byte(k), 2}); err == nil {
			t.Errorf("a version 4 value holding %s decoded", k)
		}
	}
}

// TestByteaValues: BYTEA values round-trip (keys too), and a layout older
// than 6 holding one is refused.
func TestByteaValues(t *testing.T) {
	a := types.ByteaValue("\x00\xffab")
	rows, err := DecodeValue(EncodeValue(types.Row{a, types.ByteaValue("")}))
	if err != nil || len(rows) != 1 || rows[0][0] != a || rows[0][1] != types.ByteaValue("") {
		t.Fatalf("round trip = %v, %v", rows, err)
	}
	if k, err := DecodeKeys(AppendKey(nil, a)); err != nil || k[0] != a {
		t.Fatalf("key round trip = %v, %v", k, err)
	}
	if _, err := DecodeValue([]byte{4, 1, 1, byte(types.Bytea), 1, 'x'}); err == nil {
		t.Error("a version 4 value holding BYTEA decoded")
	}
}

// TestArrayValues: arrays round-trip as values and keys, equal arrays of
// other spellings make one key, and a layout older than 6 holding an
// array is refused.
func TestArrayValues(t *testing.T) {
	a := types.ArrayValue(types.Decimal, []types.Value{types.DecimalValue(150, 2), types.NullValue})
	s := types.ArrayValue(types.String, []types.Value{types.StringValue("x"), types.StringValue("")})
	rows, err := DecodeValue(EncodeValue(types.Row{a, s}))
	if err != nil || len(rows) != 1 || rows[0][0] != a || rows[0][1] != s {
		t.Fatalf("round trip = %v, %v", rows, err)
	}
	b := types.ArrayValue(types.Decimal, []types.Value{types.DecimalValue(15, 1), types.NullValue})
	if !bytes.Equal(AppendKey(nil, a), AppendKey(nil, b)) {
		t.Errorf("AppendKey(%v) != AppendKey(%v)", a, b)
	}
	if k, err := DecodeKeys(AppendKey(nil, s)); err != nil || k[0] != s {
		t.Fatalf("key round trip = %v, %v", k, err)
	}
	old := EncodeValue(types.Row{s})
	old[0] = 4
	if _, err := DecodeValue(old); err == nil {
		t.Error("a version 4 value holding an array decoded")
	}
}
