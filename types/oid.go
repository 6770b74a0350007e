package types

import "strings"

// Postgres type OIDs (pg_type.oid, fixed since Postgres 8) of the types
// values cross the wire and the Postgres sink as. The wire server, its
// catalog and the sink all take them from here.
const (
	OIDBool        uint32 = 16
	OIDBytea       uint32 = 17
	OIDChar        uint32 = 18 // "char"
	OIDName        uint32 = 19
	OIDInt8        uint32 = 20
	OIDInt2        uint32 = 21
	OIDInt4        uint32 = 23
	OIDText        uint32 = 25
	OIDOid         uint32 = 26
	OIDFloat4      uint32 = 700
	OIDFloat8      uint32 = 701
	OIDUnknown     uint32 = 705
	OIDBpchar      uint32 = 1042
	OIDVarchar     uint32 = 1043
	OIDDate        uint32 = 1082
	OIDTime        uint32 = 1083
	OIDTimestamp   uint32 = 1114
	OIDTimestampTZ uint32 = 1184
	OIDInterval    uint32 = 1186
	OIDNumeric     uint32 = 1700
	OIDJSONB       uint32 = 3802
)

// The array types of those element types.
const (
	OIDBoolArray        uint32 = 1000
	OIDByteaArray       uint32 = 1001
	OIDCharArray        uint32 = 1002
	OIDNameArray        uint32 = 1003
	OIDInt2Array        uint32 = 1005
	OIDInt4Array        uint32 = 1007
	OIDTextArray        uint32 = 1009
	OIDBpcharArray      uint32 = 1014
	OIDVarcharArray     uint32 = 1015
	OIDInt8Array        uint32 = 1016
	OIDFloat4Array      uint32 = 1021
	OIDFloat8Array      uint32 = 1022
	OIDOidArray         uint32 = 1028
	OIDTimestampArray   uint32 = 1115
	OIDDateArray        uint32 = 1182
	OIDTimeArray        uint32 = 1183
	OIDTimestampTZArray uint32 = 1185
	OIDIntervalArray    uint32 = 1187
	OIDNumericArray     uint32 = 1231
	OIDJSONBArray       uint32 = 3807
)

// elemOIDs maps each array type above to its element type.
var elemOIDs = map[uint32]uint32{
	OIDBoolArray: OIDBool, OIDByteaArray: OIDBytea, OIDCharArray: OIDChar, OIDNameArray: OIDName,
	OIDInt2Array: OIDInt2, OIDInt4Array: OIDInt4, OIDTextArray: OIDText, OIDBpcharArray: OIDBpchar,
	OIDVarcharArray: OIDVarchar, OIDInt8Array: OIDInt8, OIDFloat4Array: OIDFloat4, OIDFloat8Array: OIDFloat8,
	OIDOidArray: OIDOid, OIDTimestampArray: OIDTimestamp, OIDDateArray: OIDDate, OIDTimeArray: OIDTime,
	OIDTimestampTZArray: OIDTimestampTZ, OIDIntervalArray: OIDInterval, OIDNumericArray: OIDNumeric,
	OIDJSONBArray: OIDJSONB,
}

// arrayOIDs is elemOIDs the other way round.
var arrayOIDs = func() map[uint32]uint32 {
	m := make(map[uint32]uint32, len(elemOIDs))
	for a, e := range elemOIDs {
		m[e] = a
	}
	return m
}()

// ElemOID returns the element type of array type oid.
func ElemOID(oid uint32) (uint32, bool) {
	e, ok := elemOIDs[oid]
	return e, ok
}

// ArrayOID returns the array type of element type oid (0 for none here).
func ArrayOID(elem uint32) uint32 { return arrayOIDs[elem] }

// OIDOf is the Postgres type a value of kind k is shown as: BIGINT as
// bigint, DOUBLE as double precision, VARCHAR as text, an array as its
// element type's array type.
func OIDOf(k Kind) uint32 {
	if k.IsArray() {
		return ArrayOID(OIDOf(k.Elem()))
	}
	switch k {
	case Bool:
		return OIDBool
	case Int:
		return OIDInt8
	case Float:
		return OIDFloat8
	case Timestamp:
		return OIDTimestamp
	case TimestampTZ:
		return OIDTimestampTZ
	case Time:
		return OIDTime
	case Interval:
		return OIDInterval
	case Decimal:
		return OIDNumeric
	case Date:
		return OIDDate
	case JSONB:
		return OIDJSONB
	case Bytea:
		return OIDBytea
	}
	return OIDText
}

// KindOfOID is the kind a value of Postgres type oid becomes (every
// integer type BIGINT, every float DOUBLE, every string type VARCHAR);
// Null for a type without one.
func KindOfOID(oid uint32) Kind {
	if elem, ok := elemOIDs[oid]; ok {
		if k := KindOfOID(elem); k != Null && ArrayElemOK(k) {
			return ArrayOf(k)
		}
		return Null
	}
	switch oid {
	case OIDBool:
		return Bool
	case OIDInt2, OIDInt4, OIDInt8, OIDOid:
		return Int
	case OIDFloat4, OIDFloat8:
		return Float
	case OIDNumeric:
		return Decimal
	case OIDDate:
		return Date
	case OIDTimestamp:
		return Timestamp
	case OIDTimestampTZ:
		return TimestampTZ
	case OIDTime:
		return Time
	case OIDInterval:
		return Interval
	case OIDJSONB:
		return JSONB
	case OIDBytea:
		return Bytea
	case OIDText, OIDVarchar, OIDBpchar, OIDName, OIDChar:
		return String
	}
	return Null
}

// PgName is the name Postgres's messages and signatures give kind k:
// bigint, double precision, numeric, text, an array's element name with
// [], and the lower-case kind name otherwise.
func PgName(k Kind) string {
	switch k {
	case Int:
		return "bigint"
	case Float:
		return "double precision"
	case Decimal:
		return "numeric"
	case String:
		return "text"
	}
	if k.IsArray() {
		return PgName(k.Elem()) + "[]"
	}
	return strings.ToLower(k.String())
}
