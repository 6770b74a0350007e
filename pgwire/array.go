package pgwire

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/types"
)

// appendArrayBinary appends array v in Postgres's binary array format for
// a column of array type oid: dimensions, a has-NULLs flag, the element
// type, the length and lower bound (1) of the one dimension, then each
// element as a length (-1 for NULL) and its binary form.
func appendArrayBinary(dst []byte, oid uint32, v types.Value) []byte {
	elemOID, _ := types.ElemOID(oid)
	elems := types.ArrayElems(v)
	dst = types.AppendArrayBinaryHeader(dst, elemOID, elems)
	for _, e := range elems {
		if e.K == types.Null {
			dst = binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
			continue
		}
		at := len(dst)
		dst = appendBinary(append(dst, 0, 0, 0, 0), elemOID, e)
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst
}

// decodeArrayBinary reads Postgres's binary array format of a parameter
// of array type oid (one dimension, or none for an empty array).
func decodeArrayBinary(oid uint32, b []byte) (types.Value, error) {
	bad := fmt.Errorf("invalid binary array of %d bytes for type %d", len(b), oid)
	if len(b) < 12 {
		return types.NullValue, bad
	}
	ndim, elemOID := binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[8:])
	want, _ := types.ElemOID(oid)
	elem := kindOf(want)
	if elemOID != want || ndim > 1 {
		return types.NullValue, fmt.Errorf("binary array of element type %d and %d dimensions for type %d", elemOID, ndim, oid)
	}
	b = b[12:]
	if ndim == 0 {
		return types.ArrayValue(elem, nil), nil
	}
	if len(b) < 8 {
		return types.NullValue, bad
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n)*4 > uint64(len(b)) {
		return types.NullValue, bad
	}
	b = b[8:]
	vals := make([]types.Value, n)
	for i := range vals {
		if len(b) < 4 {
			return types.NullValue, bad
		}
		l := binary.BigEndian.Uint32(b)
		b = b[4:]
		if l == 0xFFFFFFFF {
			continue
		}
		if uint64(l) > uint64(len(b)) {
			return types.NullValue, bad
		}
		v, err := decodeParam(elemOID, 1, b[:l])
		if err != nil {
			return types.NullValue, err
		}
		vals[i], b = v, b[l:]
	}
	return types.ArrayValue(elem, vals), nil
}
