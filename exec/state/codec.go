package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/streamsql/streamsql/types"
)

// Version is the layout version stamped on every encoded state value. A
// value with a version this build does not know is refused (ErrVersion)
// rather than decoded into garbage.
//
// Version 2 added the DECIMAL and DATE kinds (JSONB, added in version 4,
// is encoded as a string: its canonical text); values of an older version (every
// checkpoint written before) hold only the older kinds, whose encoding is
// unchanged, so they still decode. An older reader refuses newer values
// instead of failing on an unknown kind halfway. Version 3 added
// intervals with months and days (types.CodecIntervalParts; intervals of
// microseconds only keep their version 1 encoding), version 4 JSONB,
// version 5 TIMESTAMPTZ and TIME (varints, as timestamps), version 6
// BYTEA (its bytes, as a string) and arrays (the Array kind byte, the
// element kind, then types.ArrayValue's element bytes).
const Version byte = 6

// oldestVersion is the oldest layout version DecodeValue reads.
const oldestVersion byte = 1

// ErrVersion reports a state value written by an incompatible layout.
var ErrVersion = errors.New("state layout version mismatch")

// AppendRow appends the encoding of r (kind byte + payload per value) to
// dst. Keys use it without the version byte; values use EncodeValue.
func AppendRow(dst []byte, r types.Row) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(r)))
	for _, v := range r {
		dst = appendValue(dst, v)
	}
	return dst
}

// AppendRowPrefix appends the bytes AppendRow starts with for every row of
// width values whose first values are vals: a key prefix to seek rows
// stored under their AppendRow encoding.
func AppendRowPrefix(dst []byte, width int, vals ...types.Value) []byte {
	dst = binary.AppendUvarint(dst, uint64(width))
	for _, v := range vals {
		dst = appendValue(dst, v)
	}
	return dst
}

func appendValue(dst []byte, v types.Value) []byte {
	if types.HasIntervalParts(v) {
		dst = append(dst, types.CodecIntervalParts)
		return types.AppendIntervalParts(dst, v)
	}
	if v.K.IsArray() {
		return types.AppendArrayCodec(append(dst, byte(types.Array)), v)
	}
	dst = append(dst, byte(v.K))
	switch v.K {
	case types.Null:
	case types.Float:
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F))
	case types.String, types.JSONB, types.Bytea:
		dst = binary.AppendUvarint(dst, uint64(len(v.S)))
		dst = append(dst, v.S...)
	case types.Decimal:
		dst = types.AppendDecimalBytes(dst, v)
	default:
		dst = binary.AppendVarint(dst, v.I)
	}
	return dst
}

// DecodeRow decodes one row encoded by AppendRow and returns the rest.
func DecodeRow(b []byte) (types.Row, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, nil, fmt.Errorf("decode row: bad length")
	}
	b = b[k:]
	r := make(types.Row, n)
	for i := range r {
		if len(b) == 0 {
			return nil, nil, fmt.Errorf("decode row: truncated at value %d", i)
		}
		kind := types.Kind(b[0])
		b = b[1:]
		r[i].K = kind
		if byte(kind) == types.CodecIntervalParts {
			v, rest, err := types.DecodeIntervalParts(b)
			if err != nil {
				return nil, nil, fmt.Errorf("decode row: %w", err)
			}
			r[i], b = v, rest
			continue
		}
		switch kind {
		case types.Array:
			v, rest, err := types.DecodeArrayCodec(b)
			if err != nil {
				return nil, nil, fmt.Errorf("decode row: %w", err)
			}
			r[i], b = v, rest
		case types.Null:
		case types.Float:
			if len(b) < 8 {
				return nil, nil, fmt.Errorf("decode row: truncated float")
			}
			r[i].F = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		case types.String, types.JSONB, types.Bytea:
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return nil, nil, fmt.Errorf("decode row: bad string length")
			}
			r[i].S = string(b[k : k+int(l)])
			b = b[k+int(l):]
		case types.Decimal:
			v, rest, err := types.DecodeDecimalBytes(b)
			if err != nil {
				return nil, nil, fmt.Errorf("decode row: %w", err)
			}
			r[i], b = v, rest
		case types.Bool, types.Int, types.Timestamp, types.Interval, types.Date, types.TimestampTZ, types.Time:
			x, k := binary.Varint(b)
			if k <= 0 {
				return nil, nil, fmt.Errorf("decode row: bad integer")
			}
			r[i].I = x
			b = b[k:]
		default:
			return nil, nil, fmt.Errorf("decode row: unknown kind %d", kind)
		}
	}
	return r, b, nil
}

// EncodeValue encodes rows as a versioned state value.
func EncodeValue(rows ...types.Row) []byte {
	b := []byte{Version}
	b = binary.AppendUvarint(b, uint64(len(rows)))
	for _, r := range rows {
		b = AppendRow(b, r)
	}
	return b
}

// AppendEncodedValue appends the value EncodeValue(rows...) gives, for
// rows already encoded by AppendRow: a store whose keys are row
// encodings writes them as values without decoding them.
func AppendEncodedValue(dst []byte, rows ...[]byte) []byte {
	dst = append(dst, Version)
	dst = binary.AppendUvarint(dst, uint64(len(rows)))
	for _, r := range rows {
		dst = append(dst, r...)
	}
	return dst
}

// DecodeValue decodes a value written by EncodeValue, refusing other
// layout versions.
func DecodeValue(b []byte) ([]types.Row, error) {
	if len(b) == 0 || b[0] < oldestVersion || b[0] > Version {
		v := -1
		if len(b) > 0 {
			v = int(b[0])
		}
		return nil, fmt.Errorf("%w: found %d, this build reads %d to %d", ErrVersion, v, oldestVersion, Version)
	}
	version := b[0]
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("decode value: bad row count")
	}
	b = b[k:]
	rows := make([]types.Row, n)
	for i := range rows {
		r, rest, err := DecodeRow(b)
		if err != nil {
			return nil, err
		}
		if k, ok := newerKind(r, version); ok {
			return nil, fmt.Errorf("decode value: a version %d value holds %s, a kind added later", version, k)
		}
		if version < 3 && hasIntervalParts(r) {
			return nil, fmt.Errorf("decode value: a version %d value holds an interval with months or days", version)
		}
		rows[i], b = r, rest
	}
	return rows, nil
}

// AppendKey appends the key encoding of one value: AppendRow's of a
// one-value row, but values that SQL's = treats as equal encode alike
// (keyForm), so they make one group, one join key and one DISTINCT value,
// as in Postgres. Rows stored as values keep their exact encoding.
func AppendKey(dst []byte, v types.Value) []byte {
	dst = append(dst, 1) // uvarint(1): a row of one value
	if needsKeyForm(v.K) {
		v = keyForm(v)
	}
	return appendValue(dst, v)
}

// DecodeKeys decodes a key written as a sequence of AppendKey values
// into their (key form) values.
func DecodeKeys(b []byte) (types.Row, error) {
	var out types.Row
	for len(b) > 0 {
		r, rest, err := DecodeRow(b)
		if err != nil {
			return nil, fmt.Errorf("decode key: %w", err)
		}
		out, b = append(out, r...), rest
	}
	return out, nil
}

// AppendKeyRow is AppendRow for a key: values in keyForm as AppendKey
// does.
func AppendKeyRow(dst []byte, r types.Row) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(r)))
	for _, v := range r {
		if needsKeyForm(v.K) {
			v = keyForm(v)
		}
		dst = appendValue(dst, v)
	}
	return dst
}

// needsKeyForm reports whether values of kind k can differ from their key
// form; a check the hot key-building loops inline, so BIGINT and VARCHAR
// keys do not pay for keyForm's copy of the value.
func needsKeyForm(k types.Kind) bool {
	return k == types.Float || k == types.Decimal || k == types.JSONB || k.IsArray()
}

// keyForm is the one value that stands for v in keys: a DOUBLE -0 as 0
// and every NaN as one NaN (Postgres' float8 equality holds 0 = -0 and
// NaN = NaN), a DECIMAL without trailing fractional zeros (1.50 as 1.5:
// numeric equality ignores the scale), a JSONB with its numbers so. Any other value is its own key
// form, so keys written before keep their bytes.
func keyForm(v types.Value) types.Value {
	switch v.K {
	case types.Float:
		return types.FloatValue(types.KeyFloat(v.F))
	case types.Decimal:
		return types.DecimalNormalize(v)
	case types.JSONB:
		return types.JSONBKeyForm(v)
	}
	if v.K.IsArray() {
		return types.ArrayKeyForm(v)
	}
	return v
}

// newerKind returns a kind of r that layout version did not have.
func newerKind(r types.Row, version byte) (types.Kind, bool) {
	for _, v := range r {
		if kindVersion(v.K) > version {
			return v.K, true
		}
	}
	return 0, false
}

// kindVersion is the layout version that added kind k.
func kindVersion(k types.Kind) byte {
	switch k {
	case types.Decimal, types.Date:
		return 2
	case types.JSONB:
		return 4
	case types.TimestampTZ, types.Time:
		return 5
	case types.Bytea:
		return 6
	}
	if k.IsArray() {
		return 6
	}
	return 1
}

// hasIntervalParts reports whether r holds an interval with months or
// days, which only version 3 values encode.
func hasIntervalParts(r types.Row) bool {
	for _, v := range r {
		if types.HasIntervalParts(v) {
			return true
		}
	}
	return false
}
