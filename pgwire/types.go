package pgwire

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/types"
)

// jsonbVersion is the version byte that starts jsonb's binary format (the
// text follows it).
const jsonbVersion = 1

// kindOf maps a parameter type OID to the engine kind its value becomes
// (Null: take the text as it is).
func kindOf(oid uint32) types.Kind { return types.KindOfOID(oid) }

// typeSize is pg_type.typlen: the RowDescription's DataTypeSize.
func typeSize(oid uint32) int16 {
	switch oid {
	case types.OIDBool, types.OIDChar:
		return 1
	case types.OIDInt2:
		return 2
	case types.OIDInt4, types.OIDOid, types.OIDFloat4, types.OIDDate:
		return 4
	case types.OIDInt8, types.OIDFloat8, types.OIDTimestamp, types.OIDTimestampTZ, types.OIDTime:
		return 8
	case types.OIDInterval:
		return 16
	case types.OIDName:
		return 64
	}
	return -1
}

// binaryOK reports whether the server can send a column of oid in binary.
// Columns of other types are described as text.
func binaryOK(oid uint32) bool {
	switch oid {
	case types.OIDBool, types.OIDChar, types.OIDName, types.OIDInt8, types.OIDInt2, types.OIDInt4, types.OIDText, types.OIDOid, types.OIDFloat4, types.OIDFloat8,
		types.OIDVarchar, types.OIDTimestamp, types.OIDTimestampTZ, types.OIDTime, types.OIDInterval, types.OIDNumeric, types.OIDDate, types.OIDJSONB, types.OIDBytea:
		return true
	}
	if elem, ok := types.ElemOID(oid); ok {
		return binaryOK(elem)
	}
	return false
}

// pgEpoch is 2000-01-01 in microseconds since 1970: binary timestamps
// count from there, binary dates from pgEpochDays.
const (
	pgEpoch     int64 = 946684800 * 1_000_000
	pgEpochDays int64 = 10957
)

// appendText appends v in Postgres text format for a column of type oid;
// a TIMESTAMPTZ prints in the session's zone loc.
func appendText(dst []byte, oid uint32, v types.Value, loc *time.Location) []byte {
	switch v.K {
	case types.Bool:
		if v.I != 0 {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case types.Int:
		return strconv.AppendInt(dst, v.I, 10)
	case types.Float:
		return append(dst, types.FormatFloat(v.F)...)
	case types.String, types.JSONB:
		return append(dst, v.S...)
	case types.Timestamp:
		dst = append(dst, types.FormatTimestamp(v.I)...)
		if oid == types.OIDTimestampTZ {
			dst = append(dst, "+00"...)
		}
		return dst
	case types.TimestampTZ:
		return append(dst, types.FormatTimestampTZ(v.I, loc)...)
	case types.Interval:
		return append(dst, types.FormatIntervalValue(v)...)
	case types.Decimal:
		return types.AppendDecimal(dst, v)
	case types.ArrayOf(types.TimestampTZ):
		return append(dst, types.FormatArrayIn(v, loc)...)
	}
	return append(dst, v.String()...)
}

// appendBinary appends v in Postgres binary format for a column of type
// oid (one of binaryOK's).
func appendBinary(dst []byte, oid uint32, v types.Value) []byte {
	switch oid {
	case types.OIDBool:
		if b, _ := types.ParseBool(v.S); v.Bool() || (v.K == types.String && b) {
			return append(dst, 1)
		}
		return append(dst, 0)
	case types.OIDInt8:
		return binary.BigEndian.AppendUint64(dst, uint64(asInt(v)))
	case types.OIDInt4, types.OIDOid:
		return binary.BigEndian.AppendUint32(dst, uint32(asInt(v)))
	case types.OIDInt2:
		return binary.BigEndian.AppendUint16(dst, uint16(asInt(v)))
	case types.OIDFloat8:
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(asFloat(v)))
	case types.OIDFloat4:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(asFloat(v))))
	case types.OIDTimestamp, types.OIDTimestampTZ:
		return binary.BigEndian.AppendUint64(dst, uint64(v.I-pgEpoch))
	case types.OIDTime:
		return binary.BigEndian.AppendUint64(dst, uint64(v.I))
	case types.OIDInterval:
		return types.AppendIntervalBinary(dst, v)
	case types.OIDNumeric:
		return types.AppendNumericBinary(dst, asDecimal(v))
	case types.OIDDate:
		return binary.BigEndian.AppendUint32(dst, uint32(int32(v.I-pgEpochDays)))
	case types.OIDJSONB:
		return append(append(dst, jsonbVersion), v.S...)
	case types.OIDBytea: // the bytes themselves
		if v.K == types.Bytea {
			return append(dst, v.S...)
		}
	}
	if _, ok := types.ElemOID(oid); ok && v.K.IsArray() {
		return appendArrayBinary(dst, oid, v)
	}
	return appendText(dst, oid, v, time.UTC)
}

func asInt(v types.Value) int64 {
	switch v.K {
	case types.Float:
		return int64(v.F)
	case types.String:
		n, _ := strconv.ParseInt(v.S, 10, 64)
		return n
	}
	return v.I
}

func asFloat(v types.Value) float64 {
	switch v.K {
	case types.Float:
		return v.F
	case types.Decimal:
		return types.DecimalToFloat(v)
	case types.String:
		f, _ := strconv.ParseFloat(v.S, 64)
		return f
	}
	return float64(v.I)
}

// asDecimal reads a value of a numeric column as a Decimal (a catalog
// answer's text or number; 0 when it is not one).
func asDecimal(v types.Value) types.Value {
	switch v.K {
	case types.Decimal:
		return v
	case types.Float:
		if d, err := types.DecimalFromFloat(v.F); err == nil {
			return d
		}
	case types.String:
		if d, err := types.ParseDecimal(v.S); err == nil {
			return d
		}
	case types.Int:
		return types.DecimalFromInt(v.I)
	}
	return types.DecimalFromInt(0)
}

// textValue converts a catalog answer's text cell to a value of the
// column's type, so both result paths encode the same way.
func textValue(oid uint32, s *string) types.Value {
	if s == nil {
		return types.NullValue
	}
	switch oid {
	case types.OIDBool:
		b, _ := types.ParseBool(*s)
		return types.BoolValue(b)
	case types.OIDInt2, types.OIDInt4, types.OIDInt8, types.OIDOid:
		if n, err := strconv.ParseInt(*s, 10, 64); err == nil {
			return types.IntValue(n)
		}
	case types.OIDFloat4, types.OIDFloat8:
		if f, err := strconv.ParseFloat(*s, 64); err == nil {
			return types.FloatValue(f)
		}
	}
	return types.StringValue(*s)
}

// decodeParam turns a Bind parameter of type oid in format (0 text, 1
// binary) into a value. Text parameters of unknown type stay strings: the
// engine converts a string compared with or inserted into a typed column.
func decodeParam(oid uint32, format int16, b []byte) (types.Value, error) {
	if b == nil {
		return types.NullValue, nil
	}
	if format == 0 {
		return decodeTextParam(oid, string(b))
	}
	bad := func() (types.Value, error) {
		return types.NullValue, fmt.Errorf("invalid binary value of %d bytes for type %d", len(b), oid)
	}
	if _, ok := types.ElemOID(oid); ok {
		return decodeArrayBinary(oid, b)
	}
	switch oid {
	case types.OIDBool:
		if len(b) != 1 {
			return bad()
		}
		return types.BoolValue(b[0] != 0), nil
	case types.OIDInt2:
		if len(b) != 2 {
			return bad()
		}
		return types.IntValue(int64(int16(binary.BigEndian.Uint16(b)))), nil
	case types.OIDInt4:
		if len(b) != 4 {
			return bad()
		}
		return types.IntValue(int64(int32(binary.BigEndian.Uint32(b)))), nil
	case types.OIDOid:
		if len(b) != 4 {
			return bad()
		}
		return types.IntValue(int64(binary.BigEndian.Uint32(b))), nil
	case types.OIDInt8:
		if len(b) != 8 {
			return bad()
		}
		return types.IntValue(int64(binary.BigEndian.Uint64(b))), nil
	case types.OIDFloat4:
		if len(b) != 4 {
			return bad()
		}
		return types.FloatValue(float64(math.Float32frombits(binary.BigEndian.Uint32(b)))), nil
	case types.OIDFloat8:
		if len(b) != 8 {
			return bad()
		}
		return types.FloatValue(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	case types.OIDNumeric:
		return types.ParseNumericBinary(b)
	case types.OIDDate:
		if len(b) != 4 {
			return bad()
		}
		return types.DateValue(int64(int32(binary.BigEndian.Uint32(b))) + pgEpochDays), nil
	case types.OIDTimestamp, types.OIDTimestampTZ:
		if len(b) != 8 {
			return bad()
		}
		us := int64(binary.BigEndian.Uint64(b)) + pgEpoch
		if oid == types.OIDTimestampTZ {
			return types.TimestampTZValue(us), nil
		}
		return types.TimestampValue(us), nil
	case types.OIDTime:
		if len(b) != 8 {
			return bad()
		}
		return types.TimeValue(int64(binary.BigEndian.Uint64(b))), nil
	case types.OIDInterval:
		if len(b) != 16 {
			return bad()
		}
		return types.ParseIntervalBinary(b)
	case types.OIDBytea:
		return types.ByteaValue(string(b)), nil
	case types.OIDJSONB:
		if len(b) == 0 || b[0] != jsonbVersion {
			return types.NullValue, fmt.Errorf("unsupported jsonb version number %d", firstByte(b))
		}
		return types.ParseJSONB(string(b[1:]))
	}
	// text, varchar, name, unknown and anything else: the bytes are the text.
	return types.StringValue(string(b)), nil
}

func decodeTextParam(oid uint32, s string) (types.Value, error) {
	if k := kindOf(oid); k.IsArray() {
		elemOID, _ := types.ElemOID(oid)
		return types.ParseArray(s, k.Elem(), func(e string) (types.Value, error) { return decodeTextParam(elemOID, e) })
	}
	switch kindOf(oid) {
	case types.Bool:
		if b, ok := types.ParseBool(s); ok {
			return types.BoolValue(b), nil
		}
		return types.NullValue, fmt.Errorf("invalid input syntax for type boolean: %q", s)
	case types.Int:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return types.NullValue, fmt.Errorf("invalid input syntax for type bigint: %q", s)
		}
		return types.IntValue(n), nil
	case types.Float:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return types.NullValue, fmt.Errorf("invalid input syntax for type double precision: %q", s)
		}
		return types.FloatValue(f), nil
	case types.Timestamp:
		us, err := parseTimestamp(s)
		if err != nil {
			return types.NullValue, err
		}
		return types.TimestampValue(us), nil
	case types.Interval:
		return types.ParseIntervalValue(s, "")
	case types.Decimal:
		return types.ParseDecimal(s)
	case types.Date:
		d, err := types.ParseDate(s)
		if err != nil {
			return types.NullValue, err
		}
		return types.DateValue(d), nil
	case types.JSONB:
		return types.ParseJSONB(s)
	case types.Time:
		us, err := types.ParseTime(s)
		if err != nil {
			return types.NullValue, err
		}
		return types.TimeValue(us), nil
	case types.TimestampTZ:
		// With an offset it is an instant; without, it stays text, which
		// the engine reads in the session's zone where it meets a
		// timestamptz.
		if us, explicit, err := types.ParseTimestampTZExplicit(s); err == nil && explicit {
			return types.TimestampTZValue(us), nil
		}
	case types.Bytea:
		return types.ParseBytea(s)
	}
	return types.StringValue(s), nil
}

// firstByte is b's first byte, -1 when it is empty.
func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

// parseTimestamp reads the timestamp forms clients send in text: the
// engine's, and Postgres's with a zone offset ("+00", "+05:30").
func parseTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if us, err := types.ParseTimestamp(s); err == nil {
		return us, nil
	}
	for _, l := range []string{"2006-01-02 15:04:05.999999999-07", "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07"} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("invalid input syntax for type timestamp: %q", s)
}

// literal renders a parameter value as SQL text for the engine's parser:
// numbers bare (negative ones in parentheses, so "x-$1" cannot become a
// comment), strings quoted with quotes doubled, timestamps and intervals
// as casts of their text.
func literal(v types.Value) (string, error) {
	switch v.K {
	case types.Null:
		return "NULL", nil
	case types.Bool:
		if v.I != 0 {
			return "TRUE", nil
		}
		return "FALSE", nil
	case types.Int:
		if v.I < 0 {
			return "(" + strconv.FormatInt(v.I, 10) + ")", nil
		}
		return strconv.FormatInt(v.I, 10), nil
	case types.Float:
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
			return "", fmt.Errorf("parameter value %s is not supported", types.FormatFloat(v.F))
		}
		s := strconv.FormatFloat(v.F, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0" // a float stays a float
		}
		if v.F < 0 {
			return "(" + s + ")", nil
		}
		return s, nil
	case types.String:
		return quote(v.S), nil
	case types.Timestamp:
		return "CAST(" + quote(types.FormatTimestamp(v.I)) + " AS TIMESTAMP)", nil
	case types.Interval:
		// A string: the engine converts it where an interval is expected
		// (it has no standalone interval literal).
		return quote(strconv.FormatInt(v.I, 10) + " microseconds"), nil
	case types.Decimal:
		// A cast keeps it a numeric of its scale (5 alone would be a
		// BIGINT, 5.0 a numeric of scale 1).
		return "CAST(" + quote(types.FormatDecimal(v)) + " AS NUMERIC)", nil
	case types.Date:
		return "CAST(" + quote(types.FormatDate(v.I)) + " AS DATE)", nil
	case types.TimestampTZ: // with its offset, so any session zone reads it alike
		return "CAST(" + quote(types.FormatTimestampTZ(v.I, time.UTC)) + " AS TIMESTAMPTZ)", nil
	case types.Time:
		return "CAST(" + quote(types.FormatTime(v.I)) + " AS TIME)", nil
	case types.JSONB:
		return "CAST(" + quote(v.S) + " AS JSONB)", nil
	case types.Bytea:
		return "CAST(" + quote(types.FormatBytea(v.S)) + " AS BYTEA)", nil
	}
	if v.K.IsArray() {
		return "CAST(" + quote(types.FormatArray(v)) + " AS " + v.K.String() + ")", nil
	}
	return "", fmt.Errorf("parameter of kind %v is not supported", v.K)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
