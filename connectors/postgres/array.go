package postgres

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// The sink sends each column of a bulk statement as one array parameter,
// encoded here straight into Postgres's binary array format: one pass
// over the rows, no per-value boxing (pgx's generic array path boxes every
// element, which costs more than the rest of the client side together).
// rawArrayCodec passes these bytes through for the array types the sink
// uses and leaves every other value to pgx.

// binaryArray is a one-dimensional array in Postgres's binary format.
type binaryArray struct{ b []byte }

// arrayOIDs holds the element and array type OIDs of the arrays the sink
// sends, by element kind.
var arrayOIDs = func() map[types.Kind][2]uint32 {
	m := map[types.Kind][2]uint32{}
	for _, k := range []types.Kind{
		types.Bool, types.Int, types.Float, types.String, types.Timestamp, types.TimestampTZ,
		types.Time, types.Interval, types.Decimal, types.Date, types.JSONB, types.Bytea,
	} {
		m[k] = [2]uint32{types.OIDOf(k), types.OIDOf(types.ArrayOf(k))}
	}
	return m
}()

// pgEpochDays is 2000-01-01 in days since the Unix epoch: binary dates
// count from it.
const pgEpochDays = 10957

// pgEpoch is 2000-01-01 00:00:00 UTC in µs since the Unix epoch: binary
// timestamps count from it.
const pgEpoch = int64(946684800) * 1_000_000

// columnArrays turns the rows into one array per column.
func columnArrays(schema types.Schema, cols []int, changes []connectors.Change) ([]any, error) {
	args := make([]any, len(cols))
	for i, c := range cols {
		a, err := columnArray(schema[c], c, changes)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	return args, nil
}

// columnArray encodes column c of the rows as an array of the column's
// kind (text for NULL-typed columns). A value of another kind is an error,
// except an integer in a DOUBLE column.
func columnArray(col types.Column, c int, changes []connectors.Change) (*binaryArray, error) {
	kind := col.Type
	oids, ok := arrayOIDs[kind]
	if !ok {
		kind, oids = types.String, arrayOIDs[types.String]
	}
	n := len(changes)
	b := make([]byte, 20, 20+n*(4+elemSize(kind)))
	binary.BigEndian.PutUint32(b[0:], 1) // dimensions
	binary.BigEndian.PutUint32(b[8:], oids[0])
	binary.BigEndian.PutUint32(b[12:], uint32(n))
	binary.BigEndian.PutUint32(b[16:], 1) // lower bound
	hasNull := false
	for _, ch := range changes {
		v := at(ch.Row, c)
		if v.K == types.Null {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32) // length -1
			hasNull = true
			continue
		}
		var err error
		if b, err = appendElem(b, kind, v); err != nil {
			return nil, fmt.Errorf("column %s is %s but a change carries a %s value (%s)", col.Name, col.Type, v.K, v)
		}
	}
	if hasNull {
		binary.BigEndian.PutUint32(b[4:], 1)
	}
	return &binaryArray{b: b}, nil
}

func elemSize(k types.Kind) int {
	switch k {
	case types.Bool:
		return 1
	case types.Interval, types.String, types.Decimal, types.JSONB, types.Bytea:
		return 16
	case types.Date:
		return 4
	}
	return 8
}

var errKind = fmt.Errorf("value of another kind")

// appendElem appends one non-NULL element: its length, then its bytes.
func appendElem(b []byte, kind types.Kind, v types.Value) ([]byte, error) {
	if kind.IsArray() {
		return appendArrayValue(b, kind, v)
	}
	switch kind {
	case types.Bool:
		if v.K != types.Bool {
			return b, errKind
		}
		b = binary.BigEndian.AppendUint32(b, 1)
		if v.I != 0 {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case types.Int, types.Timestamp, types.TimestampTZ, types.Time:
		if v.K != kind {
			return b, errKind
		}
		i := v.I
		if kind == types.Timestamp || kind == types.TimestampTZ {
			i -= pgEpoch
		}
		b = binary.BigEndian.AppendUint32(b, 8)
		return binary.BigEndian.AppendUint64(b, uint64(i)), nil
	case types.Float:
		f := v.F
		switch v.K {
		case types.Float:
		case types.Int:
			f = float64(v.I)
		default:
			return b, errKind
		}
		b = binary.BigEndian.AppendUint32(b, 8)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f)), nil
	case types.Interval:
		if v.K != types.Interval {
			return b, errKind
		}
		b = binary.BigEndian.AppendUint32(b, 16)
		return types.AppendIntervalBinary(b, v), nil
	case types.Decimal:
		switch v.K {
		case types.Decimal:
		case types.Int:
			v = types.DecimalFromInt(v.I)
		default:
			return b, errKind
		}
		at := len(b)
		b = types.AppendNumericBinary(append(b, 0, 0, 0, 0), v)
		binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
		return b, nil
	case types.Date:
		if v.K != types.Date {
			return b, errKind
		}
		b = binary.BigEndian.AppendUint32(b, 4)
		return binary.BigEndian.AppendUint32(b, uint32(int32(v.I-pgEpochDays))), nil
	case types.JSONB: // jsonb's binary format: version 1, then the text
		if v.K != types.JSONB {
			return b, errKind
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v.S)+1))
		return append(append(b, 1), v.S...), nil
	case types.Bytea: // bytea's binary format: the bytes
		if v.K != types.Bytea {
			return b, errKind
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v.S)))
		return append(b, v.S...), nil
	}
	s := v.S
	if v.K != types.String {
		s = v.String()
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...), nil
}

// rawArrayCodec is a connection's codec for one array type: it sends a
// binaryArray as is and hands anything else to pgx's own codec.
type rawArrayCodec struct{ pgtype.Codec }

func (c rawArrayCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(*binaryArray); ok && format == pgtype.BinaryFormatCode {
		return rawArrayPlan{}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

type rawArrayPlan struct{}

func (rawArrayPlan) Encode(value any, buf []byte) ([]byte, error) {
	return append(buf, value.(*binaryArray).b...), nil
}

// registerArrays installs rawArrayCodec for the sink's array types in a
// connection's type map.
func registerArrays(m *pgtype.Map) {
	for _, oids := range arrayOIDs {
		t, ok := m.TypeForOID(oids[1])
		if !ok {
			continue
		}
		if _, done := t.Codec.(rawArrayCodec); done {
			continue
		}
		m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: rawArrayCodec{t.Codec}})
	}
}

// appendArrayValue appends an array value (of an array column, in a COPY
// tuple) in Postgres's binary array format: its length, one dimension
// (none when empty), the element type and each element as appendElem
// writes it.
func appendArrayValue(b []byte, kind types.Kind, v types.Value) ([]byte, error) {
	if v.K != kind {
		return b, errKind
	}
	elem := kind.Elem()
	elems := types.ArrayElems(v)
	at := len(b)
	b = append(b, 0, 0, 0, 0) // the length, filled in below
	b = types.AppendArrayBinaryHeader(b, arrayOIDs[elem][0], elems)
	for _, e := range elems {
		if e.K == types.Null {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
			continue
		}
		var err error
		if b, err = appendElem(b, elem, e); err != nil {
			return b, err
		}
	}
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b, nil
}
