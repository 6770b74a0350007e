package types

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The value codec: the binary form of a value that the state store
// (exec/state) and the sinks' staged changes (connectors) both write. A
// value is a kind byte and a payload: nothing for NULL, a little-endian
// float64 for DOUBLE, a uvarint length and the bytes for VARCHAR, JSONB
// (its canonical text) and BYTEA, AppendDecimalBytes for DECIMAL, the
// CodecIntervalParts byte and AppendIntervalParts for an interval with
// months or days, the Array byte and AppendArrayCodec for an array, and a
// varint of Value.I for every other kind.
//
// CodecVersion is the layout version the writers stamp on what they write
// (a checkpoint's values, a sink's staged bytes); DecodeCodec reads every
// version from OldestCodecVersion on. Version 1 had NULL, BOOLEAN,
// BIGINT, DOUBLE, VARCHAR, TIMESTAMP and INTERVAL (microseconds); version
// 2 added DECIMAL and DATE, version 3 intervals with months or days,
// version 4 JSONB, version 5 TIMESTAMPTZ and TIME, version 6 BYTEA and
// arrays. A kind's encoding never changes once written, so an older
// layout decodes as it is; a value whose kind its version did not have is
// refused rather than read into garbage.
const (
	CodecVersion       byte = 6
	OldestCodecVersion byte = 1
)

// ErrCodec reports bytes that are not a value of the codec.
var ErrCodec = errors.New("corrupt value encoding")

// AppendCodec appends v's codec encoding to dst.
func AppendCodec(dst []byte, v Value) []byte {
	if HasIntervalParts(v) {
		return AppendIntervalParts(append(dst, CodecIntervalParts), v)
	}
	if v.K.IsArray() {
		return AppendArrayCodec(append(dst, byte(Array)), v)
	}
	dst = append(dst, byte(v.K))
	switch v.K {
	case Null:
	case Float:
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F))
	case String, JSONB, Bytea:
		dst = binary.AppendUvarint(dst, uint64(len(v.S)))
		dst = append(dst, v.S...)
	case Decimal:
		dst = AppendDecimalBytes(dst, v)
	default:
		dst = binary.AppendVarint(dst, v.I)
	}
	return dst
}

// AppendKeyCodec appends the codec encoding of v's key form (KeyForm):
// values that SQL's = treats as equal encode alike.
func AppendKeyCodec(dst []byte, v Value) []byte {
	if NeedsKeyForm(v.K) {
		v = KeyForm(v)
	}
	return AppendCodec(dst, v)
}

// NeedsKeyForm reports whether values of kind k can differ from their key
// form; a check the hot key-building loops inline, so BIGINT and VARCHAR
// keys do not pay for KeyForm's copy of the value.
func NeedsKeyForm(k Kind) bool {
	return k == Float || k == Decimal || k == JSONB || k.IsArray()
}

// KeyForm is the one value that stands for v in keys: a DOUBLE -0 as 0
// and every NaN as one NaN (Postgres' float8 equality holds 0 = -0 and
// NaN = NaN), a DECIMAL without trailing fractional zeros (1.50 as 1.5:
// numeric equality ignores the scale), a JSONB or an array with its
// elements so. Any other value is its own key form, so keys written
// before keep their bytes.
func KeyForm(v Value) Value {
	switch v.K {
	case Float:
		return FloatValue(KeyFloat(v.F))
	case Decimal:
		return DecimalNormalize(v)
	case JSONB:
		return JSONBKeyForm(v)
	}
	if v.K.IsArray() {
		return ArrayKeyForm(v)
	}
	return v
}

// CodecKindVersion is the layout version that added kind k.
func CodecKindVersion(k Kind) byte {
	switch k {
	case Decimal, Date:
		return 2
	case JSONB:
		return 4
	case TimestampTZ, Time:
		return 5
	case Bytea:
		return 6
	}
	if k.IsArray() {
		return 6
	}
	return 1
}

// DecodeCodec decodes one value written by layout version and returns
// the rest of b. A kind (or an interval with months or days) that version
// did not have is an error wrapping ErrCodec, as are malformed bytes.
func DecodeCodec(b []byte, version byte) (Value, []byte, error) {
	if len(b) == 0 {
		return NullValue, nil, fmt.Errorf("%w: truncated", ErrCodec)
	}
	kind := Kind(b[0])
	b = b[1:]
	if byte(kind) == CodecIntervalParts {
		if version < 3 {
			return NullValue, nil, fmt.Errorf("%w: a version %d value holds an interval with months or days", ErrCodec, version)
		}
		v, rest, err := DecodeIntervalParts(b)
		if err != nil {
			return NullValue, nil, fmt.Errorf("%w: %w", ErrCodec, err)
		}
		return v, rest, nil
	}
	if kind != Array && CodecKindVersion(kind) > version {
		return NullValue, nil, fmt.Errorf("%w: a version %d value holds %s, a kind added later", ErrCodec, version, kind)
	}
	return decodePayload(kind, b, version)
}

// decodePayload decodes the payload of a value of kind.
func decodePayload(kind Kind, b []byte, version byte) (Value, []byte, error) {
	switch kind {
	case Array:
		if version < 6 {
			return NullValue, nil, fmt.Errorf("%w: a version %d value holds an array, a kind added later", ErrCodec, version)
		}
		v, rest, err := DecodeArrayCodec(b)
		if err != nil {
			return NullValue, nil, fmt.Errorf("%w: %w", ErrCodec, err)
		}
		return v, rest, nil
	case Null:
		return NullValue, b, nil
	case Float:
		if len(b) < 8 {
			return NullValue, nil, fmt.Errorf("%w: truncated float", ErrCodec)
		}
		return FloatValue(math.Float64frombits(binary.LittleEndian.Uint64(b))), b[8:], nil
	case String, JSONB, Bytea:
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return NullValue, nil, fmt.Errorf("%w: bad string length", ErrCodec)
		}
		return Value{K: kind, S: string(b[k : k+int(l)])}, b[k+int(l):], nil
	case Decimal:
		v, rest, err := DecodeDecimalBytes(b)
		if err != nil {
			return NullValue, nil, fmt.Errorf("%w: %w", ErrCodec, err)
		}
		return v, rest, nil
	case Bool, Int, Timestamp, Interval, Date, TimestampTZ, Time:
		x, k := binary.Varint(b)
		if k <= 0 {
			return NullValue, nil, fmt.Errorf("%w: bad integer", ErrCodec)
		}
		return Value{K: kind, I: x}, b[k:], nil
	}
	return NullValue, nil, fmt.Errorf("%w: unknown kind %d", ErrCodec, kind)
}
