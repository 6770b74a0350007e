package state

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// Version is the layout version stamped on every encoded state value:
// the value codec's (types.CodecVersion, whose comment has the history). A
// value with a version this build does not know is refused (ErrVersion)
// rather than decoded into garbage; an older reader refuses newer values
// instead of failing on an unknown kind halfway, and values of an older
// version (every checkpoint written before) still decode.
const Version = types.CodecVersion

// oldestVersion is the oldest layout version DecodeValue reads.
const oldestVersion = types.OldestCodecVersion

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

func appendValue(dst []byte, v types.Value) []byte { return types.AppendCodec(dst, v) }

// DecodeRow decodes one row encoded by AppendRow and returns the rest.
func DecodeRow(b []byte) (types.Row, []byte, error) { return decodeRow(b, Version) }

// decodeRow decodes a row of layout version.
func decodeRow(b []byte, version byte) (types.Row, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, nil, fmt.Errorf("decode row: bad length")
	}
	b = b[k:]
	r := make(types.Row, n)
	for i := range r {
		v, rest, err := types.DecodeCodec(b, version)
		if err != nil {
			return nil, nil, fmt.Errorf("decode row: value %d: %w", i, err)
		}
		r[i], b = v, rest
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
		r, rest, err := decodeRow(b, version)
		if err != nil {
			return nil, fmt.Errorf("decode value: %w", err)
		}
		rows[i], b = r, rest
	}
	return rows, nil
}

// AppendKey appends the key encoding of one value: AppendRow's of a
// one-value row, but values that SQL's = treats as equal encode alike
// (types.KeyForm), so they make one group, one join key and one DISTINCT value,
// as in Postgres. Rows stored as values keep their exact encoding.
func AppendKey(dst []byte, v types.Value) []byte {
	dst = append(dst, 1) // uvarint(1): a row of one value
	return types.AppendKeyCodec(dst, v)
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

// AppendKeyRow is AppendRow for a key: values in their key form as
// AppendKey writes them.
func AppendKeyRow(dst []byte, r types.Row) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(r)))
	for _, v := range r {
		dst = types.AppendKeyCodec(dst, v)
	}
	return dst
}

// AppendKeyCols appends AppendKeyRow's encoding of the row of r's
// columns cols, without building that row.
func AppendKeyCols(dst []byte, r types.Row, cols []int) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(cols)))
	for _, c := range cols {
		dst = types.AppendKeyCodec(dst, r[c])
	}
	return dst
}
