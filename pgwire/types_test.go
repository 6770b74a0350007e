package pgwire

import (
	"encoding/binary"
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/streamsql/streamsql/types"
)

// TestParamDecoding decodes parameters of every type a client may send,
// in text and binary, with pgx's own encoders producing the binary forms.
func TestParamDecoding(t *testing.T) {
	m := pgtype.NewMap()
	enc := func(oid uint32, v any) []byte {
		b, err := m.Encode(oid, pgtype.BinaryFormatCode, v, nil)
		if err != nil {
			t.Fatalf("encode %v as %d: %v", v, oid, err)
		}
		return b
	}
	ts := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	tests := []struct {
		oid    uint32
		format int16
		in     []byte
		want   types.Value
	}{
		{types.OIDBool, 1, enc(types.OIDBool, true), types.BoolValue(true)},
		{types.OIDBool, 0, []byte("f"), types.BoolValue(false)},
		{types.OIDInt2, 1, enc(types.OIDInt2, int16(-7)), types.IntValue(-7)},
		{types.OIDInt4, 1, enc(types.OIDInt4, int32(1<<30)), types.IntValue(1 << 30)},
		{types.OIDInt8, 1, enc(types.OIDInt8, int64(math.MinInt64)), types.IntValue(math.MinInt64)},
		{types.OIDInt8, 0, []byte("42"), types.IntValue(42)},
		{types.OIDFloat4, 1, enc(types.OIDFloat4, float32(1.5)), types.FloatValue(1.5)},
		{types.OIDFloat8, 1, enc(types.OIDFloat8, -2.25), types.FloatValue(-2.25)},
		{types.OIDNumeric, 1, enc(types.OIDNumeric, 12345.678), dec("12345.678")},
		{types.OIDNumeric, 1, enc(types.OIDNumeric, -0.5), dec("-0.5")},
		{types.OIDNumeric, 1, enc(types.OIDNumeric, pgNumeric("10", -2)), dec("0.10")},
		{types.OIDNumeric, 1, enc(types.OIDNumeric, pgNumeric("-123456789012345678901234567890000001", -6)), dec("-123456789012345678901234567890.000001")},
		{types.OIDNumeric, 0, []byte("3.25"), dec("3.25")},
		{types.OIDDate, 1, enc(types.OIDDate, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)), types.DateValue(19723)},
		{types.OIDDate, 1, enc(types.OIDDate, time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC)), types.DateValue(10956)},
		{types.OIDDate, 0, []byte("2024-01-01"), types.DateValue(19723)},
		{types.OIDText, 1, []byte("héllo"), types.StringValue("héllo")},
		{types.OIDVarchar, 0, []byte("x"), types.StringValue("x")},
		{types.OIDTimestamp, 1, enc(types.OIDTimestamp, ts), types.TimestampValue(ts.UnixMicro())},
		{types.OIDTimestampTZ, 1, enc(types.OIDTimestampTZ, ts), types.TimestampTZValue(ts.UnixMicro())},
		{types.OIDTime, 1, enc(types.OIDTime, pgtype.Time{Microseconds: 45296500000, Valid: true}), types.TimeValue(45296500000)},
		{types.OIDTime, 0, []byte("12:34:56.5"), types.TimeValue(45296500000)},
		{types.OIDTimestampTZ, 0, []byte("2024-05-06 09:08:09"), types.StringValue("2024-05-06 09:08:09")},
		{types.OIDTimestamp, 0, []byte("2024-05-06 07:08:09.123456"), types.TimestampValue(ts.UnixMicro())},
		{types.OIDTimestampTZ, 0, []byte("2024-05-06 09:08:09.123456+02"), types.TimestampTZValue(ts.UnixMicro())},
		{types.OIDInterval, 1, enc(types.OIDInterval, pgtype.Interval{Microseconds: 5_000_000, Days: 1, Valid: true}), types.IntervalValue(types.Day + 5*types.Second)},
		{types.OIDInterval, 0, []byte("00:01:30"), types.IntervalValue(90 * types.Second)},
		{types.OIDBytea, 1, []byte{0xde, 0xad}, types.ByteaValue("\xde\xad")},
		{types.OIDBytea, 0, []byte(`\xDEad`), types.ByteaValue("\xde\xad")},
		{types.OIDBytea, 0, []byte(`a\\b\001`), types.ByteaValue("a\\b\x01")},
		{types.OIDUnknown, 0, []byte("7"), types.StringValue("7")},
		{types.OIDInt8, 1, nil, types.NullValue},
		{types.OIDJSONB, 1, enc(types.OIDJSONB, map[string]any{"b": []any{1, "x"}, "a": nil}), jsonb(`{"a": null, "b": [1, "x"]}`)},
		{types.OIDJSONB, 0, []byte(`{"b":1,"a":2}`), jsonb(`{"a": 2, "b": 1}`)},
	}
	for _, tt := range tests {
		got, err := decodeParam(tt.oid, tt.format, tt.in)
		if err != nil {
			t.Errorf("oid %d format %d %x: %v", tt.oid, tt.format, tt.in, err)
			continue
		}
		if got.K != tt.want.K || !types.Equal(got, tt.want) {
			t.Errorf("oid %d format %d %x: %v (%v), want %v (%v)", tt.oid, tt.format, tt.in, got, got.K, tt.want, tt.want.K)
		}
	}
	for _, bad := range []struct {
		oid    uint32
		format int16
		in     []byte
	}{
		{types.OIDInt8, 1, []byte{1, 2, 3}},
		{types.OIDInt4, 0, []byte("x")},
		{types.OIDNumeric, 1, []byte{0, 9, 0, 0, 0, 0, 0, 0}},
		{types.OIDNumeric, 1, enc(types.OIDNumeric, math.NaN())},
		{types.OIDNumeric, 0, []byte("1.2.3")},
		{types.OIDDate, 1, []byte{0, 0, 1}},
		{types.OIDDate, 0, []byte("2024-13-01")},
		{types.OIDTimestamp, 0, []byte("yesterday-ish")},
		{types.OIDBool, 0, []byte("maybe")},
		{types.OIDJSONB, 1, []byte("2{}")},
		{types.OIDJSONB, 0, []byte("{")},
	} {
		if v, err := decodeParam(bad.oid, bad.format, bad.in); err == nil {
			t.Errorf("oid %d %x: decoded %v, want an error", bad.oid, bad.in, v)
		}
	}
}

func jsonb(s string) types.Value {
	v, err := types.ParseJSONB(s)
	if err != nil {
		panic(err)
	}
	return v
}

// TestJSONBResults reads jsonb results in text and binary with pgx.
func TestJSONBResults(t *testing.T) {
	m := pgtype.NewMap()
	v := jsonb(`{"b": [1, 2.5], "a": "x"}`)
	oid := types.OIDOf(types.JSONB)
	if oid != types.OIDJSONB || !binaryOK(oid) {
		t.Fatalf("JSONB is oid %d, binary %v", oid, binaryOK(oid))
	}
	for _, f := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
		b := appendText(nil, oid, v, time.UTC)
		if f == pgtype.BinaryFormatCode {
			b = appendBinary(nil, oid, v)
		}
		var got map[string]any
		if err := m.Scan(oid, f, b, &got); err != nil || got["a"] != "x" || len(got["b"].([]any)) != 2 {
			t.Errorf("jsonb format %d: %v, %v", f, got, err)
		}
	}
	if lit, err := literal(v); err != nil || lit != `CAST('{"a": "x", "b": [1, 2.5]}' AS JSONB)` {
		t.Errorf("literal = %s, %v", lit, err)
	}
}

// TestByteaResults reads bytea results in text and binary with pgx.
func TestByteaResults(t *testing.T) {
	m := pgtype.NewMap()
	v := types.ByteaValue("\x00\xff'")
	oid := types.OIDOf(types.Bytea)
	if oid != types.OIDBytea || !binaryOK(oid) {
		t.Fatalf("BYTEA is oid %d, binary %v", oid, binaryOK(oid))
	}
	for _, f := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
		b := appendText(nil, oid, v, time.UTC)
		if f == pgtype.BinaryFormatCode {
			b = appendBinary(nil, oid, v)
		}
		var got []byte
		if err := m.Scan(oid, f, b, &got); err != nil || string(got) != v.S {
			t.Errorf("bytea format %d: %x, %v", f, got, err)
		}
	}
	if lit, err := literal(v); err != nil || lit != `CAST('\x00ff27' AS BYTEA)` {
		t.Errorf("literal = %s, %v", lit, err)
	}
}

// TestArrayResults reads array results in text and binary with pgx, and
// array parameters in both formats.
func TestArrayResults(t *testing.T) {
	m := pgtype.NewMap()
	ints := types.ArrayValue(types.Int, []types.Value{types.IntValue(1), types.NullValue, types.IntValue(-3)})
	texts := types.ArrayValue(types.String, []types.Value{types.StringValue("a b"), types.StringValue(""), types.StringValue(`q"\`)})
	if oid := types.OIDOf(ints.K); oid != 1016 || !binaryOK(oid) {
		t.Fatalf("BIGINT[] is oid %d", oid)
	}
	for _, f := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
		enc := func(v types.Value) []byte {
			oid := types.OIDOf(v.K)
			if f == pgtype.BinaryFormatCode {
				return appendBinary(nil, oid, v)
			}
			return appendText(nil, oid, v, time.UTC)
		}
		var gotInts []*int64
		if err := m.Scan(1016, f, enc(ints), &gotInts); err != nil || len(gotInts) != 3 || *gotInts[0] != 1 || gotInts[1] != nil || *gotInts[2] != -3 {
			t.Errorf("int8[] format %d: %v, %v", f, gotInts, err)
		}
		var gotTexts []string
		if err := m.Scan(1009, f, enc(texts), &gotTexts); err != nil || len(gotTexts) != 3 || gotTexts[0] != "a b" || gotTexts[2] != `q"\` {
			t.Errorf("text[] format %d: %q, %v", f, gotTexts, err)
		}
		// Parameters: what pgx sends reads back as the array.
		b, err := m.Encode(1016, f, []*int64{ptr(int64(1)), nil, ptr(int64(-3))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := decodeParam(1016, f, b); err != nil || v != ints {
			t.Errorf("int8[] parameter format %d: %v, %v", f, v, err)
		}
	}
	if lit, err := literal(texts); err != nil || lit != `CAST('{"a b","","q\"\\"}' AS VARCHAR[])` {
		t.Errorf("literal = %s, %v", lit, err)
	}
}

func ptr[T any](v T) *T { return &v }

func pgNumeric(coef string, exp int32) pgtype.Numeric {
	n, _ := new(big.Int).SetString(coef, 10)
	return pgtype.Numeric{Int: n, Exp: exp, Valid: true}
}

func dec(s string) types.Value {
	v, err := types.ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return v
}

// TestNumericAndDateResults checks numeric and date results in text and
// binary against pgx's decoders: every digit and the scale survive.
func TestNumericAndDateResults(t *testing.T) {
	m := pgtype.NewMap()
	for _, v := range []types.Value{dec("0.30"), dec("1.00"), dec("-12345.6789"), dec("0"), dec("0.0001"),
		dec("98765432109876543210.123456789012"), dec("100000000")} {
		for _, f := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
			b := appendText(nil, types.OIDNumeric, v, time.UTC)
			if f == pgtype.BinaryFormatCode {
				b = appendBinary(nil, types.OIDNumeric, v)
			}
			var n pgtype.Numeric
			if err := m.Scan(types.OIDNumeric, f, b, &n); err != nil {
				t.Fatalf("%v format %d: pgx cannot read %x: %v", v, f, b, err)
			}
			got, err := n.Value()
			if err != nil || got != v.String() {
				t.Errorf("%v format %d: pgx read %v, %v", v, f, got, err)
			}
		}
	}
	day := types.DateValue(19723)
	if got := string(appendText(nil, types.OIDOf(types.Date), day, time.UTC)); got != "2024-01-01" {
		t.Errorf("date text %q", got)
	}
	for _, f := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
		b := appendText(nil, types.OIDDate, day, time.UTC)
		if f == pgtype.BinaryFormatCode {
			b = appendBinary(nil, types.OIDDate, day)
		}
		var d time.Time
		if err := m.Scan(types.OIDDate, f, b, &d); err != nil || !d.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("date format %d: %v, %v", f, d, err)
		}
	}
}

// TestResultEncoding checks the binary forms against pgx's decoders and
// the text forms against Postgres's spelling.
func TestResultEncoding(t *testing.T) {
	m := pgtype.NewMap()
	ts := time.Date(2024, 5, 6, 7, 8, 9, 500000000, time.UTC)
	for _, tt := range []struct {
		v    types.Value
		text string
		dst  any
		want any
	}{
		{types.BoolValue(true), "t", new(bool), true},
		{types.IntValue(-3), "-3", new(int64), int64(-3)},
		{types.FloatValue(0.1), "0.1", new(float64), 0.1},
		{types.FloatValue(math.Inf(1)), "Infinity", new(float64), math.Inf(1)},
		{types.StringValue("a'b"), "a'b", new(string), "a'b"},
		{types.TimestampValue(ts.UnixMicro()), "2024-05-06 07:08:09.5", new(time.Time), ts},
		{types.IntervalOf(0, 1, 2*types.Hour+500*types.Millisecond), "1 day 02:00:00.5", new(time.Duration), 26*time.Hour + 500*time.Millisecond},
		{types.IntervalOf(0, -1, -2*types.Hour), "-1 days -02:00:00", new(time.Duration), -26 * time.Hour},
		{types.IntervalValue(26 * types.Hour), "26:00:00", new(time.Duration), 26 * time.Hour},
		{types.IntervalOf(14, 3, types.Second), "1 year 2 mons 3 days 00:00:01", new(pgtype.Interval),
			pgtype.Interval{Months: 14, Days: 3, Microseconds: 1_000_000, Valid: true}},
	} {
		oid := types.OIDOf(tt.v.K)
		if got := string(appendText(nil, oid, tt.v, time.UTC)); got != tt.text {
			t.Errorf("%v: text %q, want %q", tt.v, got, tt.text)
		}
		for _, f := range []int16{pgtype.TextFormatCode, pgtype.BinaryFormatCode} {
			var b []byte
			if f == pgtype.BinaryFormatCode {
				b = appendBinary(nil, oid, tt.v)
			} else {
				b = appendText(nil, oid, tt.v, time.UTC)
			}
			if err := m.Scan(oid, f, b, tt.dst); err != nil {
				t.Errorf("%v format %d: pgx cannot read %x: %v", tt.v, f, b, err)
				continue
			}
			var got any
			switch d := tt.dst.(type) {
			case *bool:
				got = *d
			case *int64:
				got = *d
			case *float64:
				got = *d
			case *string:
				got = *d
			case *time.Time:
				got = d.UTC()
			case *time.Duration:
				got = *d
			case *pgtype.Interval:
				got = *d
			}
			if got != tt.want {
				t.Errorf("%v format %d: pgx read %v, want %v", tt.v, f, got, tt.want)
			}
		}
	}
	if b := appendBinary(nil, types.OIDInt4, types.IntValue(7)); binary.BigEndian.Uint32(b) != 7 || len(b) != 4 {
		t.Errorf("int4 binary %x", b)
	}
}

// TestLiteral checks parameter values rendered into SQL.
func TestLiteral(t *testing.T) {
	for _, tt := range []struct {
		v    types.Value
		want string
	}{
		{types.NullValue, "NULL"},
		{types.BoolValue(false), "FALSE"},
		{types.IntValue(-1), "(-1)"},
		{types.FloatValue(2), "2.0"},
		{types.FloatValue(-1e300), "(-1e+300)"},
		{types.StringValue("it's"), "'it''s'"},
		{types.TimestampValue(0), "CAST('1970-01-01 00:00:00' AS TIMESTAMP)"},
		{types.IntervalValue(1500), "'1500 microseconds'"},
		{dec("-1.50"), "CAST('-1.50' AS NUMERIC)"},
		{types.DateValue(0), "CAST('1970-01-01' AS DATE)"},
	} {
		if got, err := literal(tt.v); err != nil || got != tt.want {
			t.Errorf("%v: %q %v, want %q", tt.v, got, err, tt.want)
		}
	}
	if _, err := literal(types.FloatValue(math.NaN())); err == nil {
		t.Error("NaN became a literal")
	}
}
