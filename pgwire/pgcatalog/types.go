package pgcatalog

import (
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Type OIDs of the Postgres types the catalog uses (pg_type.oid in
// Postgres 15).
const (
	OIDBool        uint32 = 16
	OIDBytea       uint32 = 17
	OIDChar        uint32 = 18 // "char"
	OIDName        uint32 = 19
	OIDInt8        uint32 = 20
	OIDInt2        uint32 = 21
	OIDInt2Vector  uint32 = 22
	OIDInt4        uint32 = 23
	OIDRegproc     uint32 = 24
	OIDText        uint32 = 25
	OIDOid         uint32 = 26
	OIDXid         uint32 = 28
	OIDOidVector   uint32 = 30
	OIDNodeTree    uint32 = 194
	OIDFloat4      uint32 = 700
	OIDFloat8      uint32 = 701
	OIDUnknown     uint32 = 705
	OIDInet        uint32 = 869
	OIDBoolArr     uint32 = 1000
	OIDCharArr     uint32 = 1002
	OIDNameArr     uint32 = 1003
	OIDInt2Arr     uint32 = 1005
	OIDInt4Arr     uint32 = 1007
	OIDTextArr     uint32 = 1009
	OIDInt8Arr     uint32 = 1016
	OIDFloat8Arr   uint32 = 1022
	OIDOidArr      uint32 = 1028
	OIDAclArr      uint32 = 1034
	OIDVarchar     uint32 = 1043
	OIDVarcharArr  uint32 = 1015
	OIDTimestamp   uint32 = 1114
	OIDTimestampTZ uint32 = 1184
	OIDTime        uint32 = 1083
	OIDInterval    uint32 = 1186
	OIDNumeric     uint32 = 1700
	OIDDate        uint32 = 1082
	OIDJSONB       uint32 = 3802
	OIDRegclass    uint32 = 2205
	OIDRegtype     uint32 = 2206
	OIDAnyArray    uint32 = 2277
	OIDRegnamesp   uint32 = 4089
)

// TypeOID maps a streamsql kind to the Postgres type a client sees.
func TypeOID(k types.Kind) uint32 {
	if k.IsArray() { // the element type's array type
		return typeInfos[TypeOID(k.Elem())].array
	}
	switch k {
	case types.Bool:
		return OIDBool
	case types.Int:
		return OIDInt8
	case types.Float:
		return OIDFloat8
	case types.String:
		return OIDText
	case types.Timestamp:
		return OIDTimestamp
	case types.TimestampTZ:
		return OIDTimestampTZ
	case types.Time:
		return OIDTime
	case types.Interval:
		return OIDInterval
	case types.Decimal:
		return OIDNumeric
	case types.Date:
		return OIDDate
	case types.JSONB:
		return OIDJSONB
	case types.Bytea:
		return OIDBytea
	}
	return OIDText
}

// typeMod is pg_attribute.atttypmod of a column: a DECIMAL(p, s)'s
// ((p << 16) | s) + 4, as Postgres stores it; -1 for none.
func typeMod(c Column) int64 {
	if c.Type == types.Decimal && c.Precision > 0 {
		return int64(c.Precision)<<16 | int64(c.Scale) + 4
	}
	return -1
}

// typeInfo describes how a type behaves in the evaluator.
type typeInfo struct {
	name   string // format_type's name
	elem   uint32 // element type of an array, 0 otherwise
	array  uint32 // array type of this element type
	class  byte   // 'i' integer, 'f' float, 'b' bool, 's' string, 'a' array
	length int    // typlen
}

var typeInfos = map[uint32]typeInfo{
	OIDBool:        {name: "boolean", array: OIDBoolArr, class: 'b', length: 1},
	OIDBytea:       {name: "bytea", array: 1001, class: 's', length: -1},
	OIDChar:        {name: "\"char\"", array: OIDCharArr, class: 's', length: 1},
	OIDName:        {name: "name", array: OIDNameArr, class: 's', length: 64},
	OIDInt8:        {name: "bigint", array: OIDInt8Arr, class: 'i', length: 8},
	OIDInt2:        {name: "smallint", array: OIDInt2Arr, class: 'i', length: 2},
	OIDInt2Vector:  {name: "int2vector", elem: OIDInt2, class: 'v', length: -1},
	OIDInt4:        {name: "integer", array: OIDInt4Arr, class: 'i', length: 4},
	OIDRegproc:     {name: "regproc", array: 1008, class: 's', length: 4},
	OIDText:        {name: "text", array: OIDTextArr, class: 's', length: -1},
	OIDOid:         {name: "oid", array: OIDOidArr, class: 'i', length: 4},
	OIDXid:         {name: "xid", array: 1011, class: 'i', length: 4},
	OIDOidVector:   {name: "oidvector", elem: OIDOid, class: 'v', length: -1},
	OIDNodeTree:    {name: "pg_node_tree", class: 's', length: -1},
	OIDFloat4:      {name: "real", array: 1021, class: 'f', length: 4},
	OIDFloat8:      {name: "double precision", array: OIDFloat8Arr, class: 'f', length: 8},
	OIDUnknown:     {name: "unknown", class: 's', length: -2},
	OIDInet:        {name: "inet", array: 1041, class: 's', length: -1},
	OIDBoolArr:     {name: "boolean[]", elem: OIDBool, class: 'a', length: -1},
	OIDCharArr:     {name: "\"char\"[]", elem: OIDChar, class: 'a', length: -1},
	OIDNameArr:     {name: "name[]", elem: OIDName, class: 'a', length: -1},
	OIDInt2Arr:     {name: "smallint[]", elem: OIDInt2, class: 'a', length: -1},
	OIDInt4Arr:     {name: "integer[]", elem: OIDInt4, class: 'a', length: -1},
	OIDTextArr:     {name: "text[]", elem: OIDText, class: 'a', length: -1},
	OIDInt8Arr:     {name: "bigint[]", elem: OIDInt8, class: 'a', length: -1},
	OIDFloat8Arr:   {name: "double precision[]", elem: OIDFloat8, class: 'a', length: -1},
	OIDOidArr:      {name: "oid[]", elem: OIDOid, class: 'a', length: -1},
	OIDAclArr:      {name: "aclitem[]", elem: 1033, class: 'a', length: -1},
	OIDVarchar:     {name: "character varying", array: OIDVarcharArr, class: 's', length: -1},
	OIDVarcharArr:  {name: "character varying[]", elem: OIDVarchar, class: 'a', length: -1},
	OIDTimestamp:   {name: "timestamp without time zone", array: 1115, class: 's', length: 8},
	OIDTimestampTZ: {name: "timestamp with time zone", array: 1185, class: 's', length: 8},
	OIDTime:        {name: "time without time zone", array: 1183, class: 't', length: 8},
	OIDInterval:    {name: "interval", array: 1187, class: 's', length: 16},
	OIDNumeric:     {name: "numeric", array: 1231, class: 'f', length: -1},
	OIDDate:        {name: "date", array: 1182, class: 's', length: 4},
	OIDJSONB:       {name: "jsonb", array: 3807, class: 's', length: -1},
	OIDRegclass:    {name: "regclass", array: 2210, class: 'i', length: 4},
	OIDRegtype:     {name: "regtype", array: 2211, class: 'i', length: 4},
	OIDAnyArray:    {name: "anyarray", class: 'a', length: -1},
	1001:           {name: "bytea[]", elem: OIDBytea, class: 'a', length: -1},
	1115:           {name: "timestamp without time zone[]", elem: OIDTimestamp, class: 'a', length: -1},
	1187:           {name: "interval[]", elem: OIDInterval, class: 'a', length: -1},
	1231:           {name: "numeric[]", elem: OIDNumeric, class: 'a', length: -1},
	1182:           {name: "date[]", elem: OIDDate, class: 'a', length: -1},
	3807:           {name: "jsonb[]", elem: OIDJSONB, class: 'a', length: -1},
	OIDRegnamesp:   {name: "regnamespace", array: 4090, class: 'i', length: 4},
	1033:           {name: "aclitem", array: OIDAclArr, class: 's', length: 12},
	3220:           {name: "pg_lsn", class: 's', length: 8},
	2202:           {name: "regprocedure", class: 's', length: 4},
	2203:           {name: "regoper", class: 's', length: 4},
	2204:           {name: "regoperator", class: 's', length: 4},
	3734:           {name: "regconfig", class: 's', length: 4},
	3769:           {name: "regdictionary", class: 's', length: 4},
	4096:           {name: "regrole", class: 's', length: 4},
	4191:           {name: "regcollation", class: 's', length: 4},
	3361:           {name: "pg_ndistinct", class: 's', length: -1},
	3402:           {name: "pg_dependencies", class: 's', length: -1},
	5017:           {name: "pg_mcv_list", class: 's', length: -1},
}

// typeByName maps the type names a query or the seed schema may use
// (lower case, without a pg_catalog. prefix) to OIDs.
var typeByName = map[string]uint32{
	"bool": OIDBool, "boolean": OIDBool, "bytea": OIDBytea, "\"char\"": OIDChar, "char": OIDChar,
	"name": OIDName, "int8": OIDInt8, "bigint": OIDInt8, "int2": OIDInt2, "smallint": OIDInt2,
	"int2vector": OIDInt2Vector, "int4": OIDInt4, "int": OIDInt4, "integer": OIDInt4, "regproc": OIDRegproc,
	"text": OIDText, "oid": OIDOid, "xid": OIDXid, "oidvector": OIDOidVector, "pg_node_tree": OIDNodeTree,
	"float4": OIDFloat4, "real": OIDFloat4, "float8": OIDFloat8, "double precision": OIDFloat8, "float": OIDFloat8,
	"unknown": OIDUnknown, "inet": OIDInet, "aclitem": 1033, "aclitem[]": OIDAclArr,
	"varchar": OIDVarchar, "character varying": OIDVarchar, "bpchar": OIDVarchar, "character": OIDVarchar,
	"timestamp": OIDTimestamp, "timestamp without time zone": OIDTimestamp,
	"timestamptz": OIDTimestampTZ, "timestamp with time zone": OIDTimestampTZ,
	"interval": OIDInterval, "numeric": OIDNumeric, "decimal": OIDNumeric, "jsonb": OIDJSONB,
	"regclass": OIDRegclass, "regtype": OIDRegtype, "regnamespace": OIDRegnamesp, "anyarray": OIDAnyArray,
	"information_schema.sql_identifier": OIDName, "sql_identifier": OIDName,
	"information_schema.character_data": OIDVarchar, "character_data": OIDVarchar,
	"information_schema.cardinal_number": OIDInt4, "cardinal_number": OIDInt4,
	"information_schema.yes_or_no": OIDVarchar, "yes_or_no": OIDVarchar,
	"information_schema.time_stamp": OIDTimestampTZ, "time_stamp": OIDTimestampTZ,
	"pg_lsn": 3220, "pg_ndistinct": 3361, "pg_dependencies": 3402, "pg_mcv_list": 5017,
	"regprocedure": 2202, "regoper": 2203, "regoperator": 2204, "regconfig": 3734, "regdictionary": 3769,
	"regrole": 4096, "regcollation": 4191,
}

// lookupType resolves a type name; a trailing [] makes the array type.
func lookupType(name string) (uint32, bool) {
	name = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "pg_catalog.")
	if strings.HasSuffix(name, "[]") {
		el, ok := lookupType(strings.TrimSuffix(name, "[]"))
		if !ok {
			return OIDTextArr, true // arrays of types we do not model read as text[]
		}
		if el == OIDInt2 || el == OIDOid || el == OIDChar || el == OIDText || el == OIDName ||
			el == OIDInt4 || el == OIDInt8 || el == OIDBool || el == OIDFloat8 || el == OIDVarchar || el == 1033 {
			return typeInfos[el].array, true
		}
		return OIDTextArr, true
	}
	o, ok := typeByName[name]
	return o, ok
}

func classOf(t uint32) byte {
	if ti, ok := typeInfos[t]; ok {
		return ti.class
	}
	return 's'
}

// formatType is format_type(oid, typmod).
func formatType(t uint32, mod int64) string {
	ti, ok := typeInfos[t]
	if !ok {
		if r, ok := seedTypeName(t); ok {
			return r
		}
		return "???"
	}
	if t == OIDVarchar && mod > 4 {
		return ti.name + "(" + itoa(mod-4) + ")"
	}
	if t == OIDNumeric && mod > 4 {
		return ti.name + "(" + itoa((mod-4)>>16) + "," + itoa((mod-4)&0xffff) + ")"
	}
	return ti.name
}

// SQLSTATE codes sqlerr does not name.
const (
	codeInvalidText     = "22P02"
	codeUndefinedObject = "42704"
)
