package types

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// TestCodecLayouts pins the bytes of each kind as the layout version that
// added it wrote them (a kind's encoding never changes), decodes them at
// every version from that one on, and checks every older version refuses
// them: what a checkpoint or a sink's staged changes from an older build
// hold still reads, and nothing newer is read into garbage.
func TestCodecLayouts(t *testing.T) {
	dec, err := ParseDecimal("-12.50")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		v     Value
		bytes []byte // nil: not pinned (the payload has its own tests)
		since byte
	}{
		{"null", NullValue, []byte{byte(Null)}, 1},
		{"bool", BoolValue(true), []byte{byte(Bool), 2}, 1},
		{"bigint", IntValue(-3), []byte{byte(Int), 5}, 1},
		{"double", FloatValue(1), []byte{byte(Float), 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, 1},
		{"varchar", StringValue("hé"), []byte{byte(String), 3, 'h', 0xc3, 0xa9}, 1},
		{"timestamp", TimestampValue(64), []byte{byte(Timestamp), 0x80, 1}, 1},
		{"interval of microseconds", IntervalValue(5), []byte{byte(Interval), 10}, 1},
		{"decimal", dec, nil, 2},
		{"date", DateValue(-1), []byte{byte(Date), 1}, 2},
		{"interval with months", IntervalOf(1, 2, 3), nil, 3},
		{"jsonb", Value{K: JSONB, S: `{"a": 1}`}, []byte{byte(JSONB), 8, '{', '"', 'a', '"', ':', ' ', '1', '}'}, 4},
		{"timestamptz", TimestampTZValue(-5), []byte{byte(TimestampTZ), 9}, 5},
		{"time", TimeValue(1), []byte{byte(Time), 2}, 5},
		{"bytea", Value{K: Bytea, S: "\x00\xff"}, []byte{byte(Bytea), 2, 0, 0xff}, 6},
		{"array", ArrayValue(Int, []Value{IntValue(1), NullValue}), nil, 6},
	}
	for _, c := range cases {
		enc := AppendCodec(nil, c.v)
		if c.bytes != nil && !bytes.Equal(enc, c.bytes) {
			t.Errorf("%s: encoded as % x, the layout is % x", c.name, enc, c.bytes)
		}
		for version := OldestCodecVersion; version <= CodecVersion; version++ {
			got, rest, err := DecodeCodec(append(enc, 0x7f), version)
			switch {
			case version < c.since:
				if !errors.Is(err, ErrCodec) {
					t.Errorf("%s: a version %d value decoded (%v, %v); the kind came in version %d", c.name, version, got, err, c.since)
				}
			case err != nil || Compare(got, c.v) != 0 || got.K != c.v.K || !bytes.Equal(rest, []byte{0x7f}):
				t.Errorf("%s at version %d = %v, rest % x, %v", c.name, version, got, rest, err)
			}
		}
	}
}

// TestCodecCorrupt: malformed bytes are errors wrapping ErrCodec, never a
// panic.
func TestCodecCorrupt(t *testing.T) {
	for _, b := range [][]byte{
		nil, {byte(Float), 1, 2}, {byte(String), 5, 'a'}, {byte(Int)}, {byte(Int), 0x80},
		{0x3f}, {CodecIntervalParts}, {byte(Array)}, {byte(Decimal)},
	} {
		if _, _, err := DecodeCodec(b, CodecVersion); !errors.Is(err, ErrCodec) {
			t.Errorf("DecodeCodec(% x) = %v, want ErrCodec", b, err)
		}
	}
}

// TestAppendKeyCodec: values SQL's = holds equal encode alike as keys.
func TestAppendKeyCodec(t *testing.T) {
	a, _ := ParseDecimal("1.50")
	b, _ := ParseDecimal("1.5")
	for _, p := range [][2]Value{
		{a, b}, {FloatValue(0), FloatValue(math.Copysign(0, -1))}, {Value{K: JSONB, S: `{"a": 1.0}`}, Value{K: JSONB, S: `{"a": 1}`}},
	} {
		if x, y := AppendKeyCodec(nil, p[0]), AppendKeyCodec(nil, p[1]); !bytes.Equal(x, y) {
			t.Errorf("keys of %v and %v differ: % x, % x", p[0], p[1], x, y)
		}
	}
}
