package pgcatalog

import (
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Type OIDs of the catalog-only Postgres types the catalog uses (pg_type.oid
// in Postgres 15); the types values are exchanged as have theirs in
// types/oid.go.
const (
	OIDInt2Vector uint32 = 22
	OIDRegproc    uint32 = 24
	OIDXid        uint32 = 28
	OIDOidVector  uint32 = 30
	OIDNodeTree   uint32 = 194
	OIDInet       uint32 = 869
	OIDAclArr     uint32 = 1034
	OIDRegclass   uint32 = 2205
	OIDRegtype    uint32 = 2206
	OIDAnyArray   uint32 = 2277
	OIDRegnamesp  uint32 = 4089
)

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
	types.OIDBool:           {name: "boolean", array: types.OIDBoolArray, class: 'b', length: 1},
	types.OIDBytea:          {name: "bytea", array: types.OIDByteaArray, class: 's', length: -1},
	types.OIDChar:           {name: "\"char\"", array: types.OIDCharArray, class: 's', length: 1},
	types.OIDName:           {name: "name", array: types.OIDNameArray, class: 's', length: 64},
	types.OIDInt8:           {name: "bigint", array: types.OIDInt8Array, class: 'i', length: 8},
	types.OIDInt2:           {name: "smallint", array: types.OIDInt2Array, class: 'i', length: 2},
	OIDInt2Vector:           {name: "int2vector", elem: types.OIDInt2, class: 'v', length: -1},
	types.OIDInt4:           {name: "integer", array: types.OIDInt4Array, class: 'i', length: 4},
	OIDRegproc:              {name: "regproc", array: 1008, class: 's', length: 4},
	types.OIDText:           {name: "text", array: types.OIDTextArray, class: 's', length: -1},
	types.OIDOid:            {name: "oid", array: types.OIDOidArray, class: 'i', length: 4},
	OIDXid:                  {name: "xid", array: 1011, class: 'i', length: 4},
	OIDOidVector:            {name: "oidvector", elem: types.OIDOid, class: 'v', length: -1},
	OIDNodeTree:             {name: "pg_node_tree", class: 's', length: -1},
	types.OIDFloat4:         {name: "real", array: types.OIDFloat4Array, class: 'f', length: 4},
	types.OIDFloat8:         {name: "double precision", array: types.OIDFloat8Array, class: 'f', length: 8},
	types.OIDUnknown:        {name: "unknown", class: 's', length: -2},
	OIDInet:                 {name: "inet", array: 1041, class: 's', length: -1},
	types.OIDBoolArray:      {name: "boolean[]", elem: types.OIDBool, class: 'a', length: -1},
	types.OIDCharArray:      {name: "\"char\"[]", elem: types.OIDChar, class: 'a', length: -1},
	types.OIDNameArray:      {name: "name[]", elem: types.OIDName, class: 'a', length: -1},
	types.OIDInt2Array:      {name: "smallint[]", elem: types.OIDInt2, class: 'a', length: -1},
	types.OIDInt4Array:      {name: "integer[]", elem: types.OIDInt4, class: 'a', length: -1},
	types.OIDTextArray:      {name: "text[]", elem: types.OIDText, class: 'a', length: -1},
	types.OIDInt8Array:      {name: "bigint[]", elem: types.OIDInt8, class: 'a', length: -1},
	types.OIDFloat8Array:    {name: "double precision[]", elem: types.OIDFloat8, class: 'a', length: -1},
	types.OIDOidArray:       {name: "oid[]", elem: types.OIDOid, class: 'a', length: -1},
	OIDAclArr:               {name: "aclitem[]", elem: 1033, class: 'a', length: -1},
	types.OIDVarchar:        {name: "character varying", array: types.OIDVarcharArray, class: 's', length: -1},
	types.OIDVarcharArray:   {name: "character varying[]", elem: types.OIDVarchar, class: 'a', length: -1},
	types.OIDTimestamp:      {name: "timestamp without time zone", array: types.OIDTimestampArray, class: 's', length: 8},
	types.OIDTimestampTZ:    {name: "timestamp with time zone", array: types.OIDTimestampTZArray, class: 's', length: 8},
	types.OIDTime:           {name: "time without time zone", array: types.OIDTimeArray, class: 't', length: 8},
	types.OIDInterval:       {name: "interval", array: types.OIDIntervalArray, class: 's', length: 16},
	types.OIDNumeric:        {name: "numeric", array: types.OIDNumericArray, class: 'f', length: -1},
	types.OIDDate:           {name: "date", array: types.OIDDateArray, class: 's', length: 4},
	types.OIDJSONB:          {name: "jsonb", array: types.OIDJSONBArray, class: 's', length: -1},
	OIDRegclass:             {name: "regclass", array: 2210, class: 'i', length: 4},
	OIDRegtype:              {name: "regtype", array: 2211, class: 'i', length: 4},
	OIDAnyArray:             {name: "anyarray", class: 'a', length: -1},
	types.OIDByteaArray:     {name: "bytea[]", elem: types.OIDBytea, class: 'a', length: -1},
	types.OIDTimestampArray: {name: "timestamp without time zone[]", elem: types.OIDTimestamp, class: 'a', length: -1},
	types.OIDIntervalArray:  {name: "interval[]", elem: types.OIDInterval, class: 'a', length: -1},
	types.OIDNumericArray:   {name: "numeric[]", elem: types.OIDNumeric, class: 'a', length: -1},
	types.OIDDateArray:      {name: "date[]", elem: types.OIDDate, class: 'a', length: -1},
	types.OIDJSONBArray:     {name: "jsonb[]", elem: types.OIDJSONB, class: 'a', length: -1},
	OIDRegnamesp:            {name: "regnamespace", array: 4090, class: 'i', length: 4},
	1033:                    {name: "aclitem", array: OIDAclArr, class: 's', length: 12},
	3220:                    {name: "pg_lsn", class: 's', length: 8},
	2202:                    {name: "regprocedure", class: 's', length: 4},
	2203:                    {name: "regoper", class: 's', length: 4},
	2204:                    {name: "regoperator", class: 's', length: 4},
	3734:                    {name: "regconfig", class: 's', length: 4},
	3769:                    {name: "regdictionary", class: 's', length: 4},
	4096:                    {name: "regrole", class: 's', length: 4},
	4191:                    {name: "regcollation", class: 's', length: 4},
	3361:                    {name: "pg_ndistinct", class: 's', length: -1},
	3402:                    {name: "pg_dependencies", class: 's', length: -1},
	5017:                    {name: "pg_mcv_list", class: 's', length: -1},
}

// typeByName maps the type names a query or the seed schema may use
// (lower case, without a pg_catalog. prefix) to OIDs.
var typeByName = map[string]uint32{
	"bool": types.OIDBool, "boolean": types.OIDBool, "bytea": types.OIDBytea, "\"char\"": types.OIDChar, "char": types.OIDChar,
	"name": types.OIDName, "int8": types.OIDInt8, "bigint": types.OIDInt8, "int2": types.OIDInt2, "smallint": types.OIDInt2,
	"int2vector": OIDInt2Vector, "int4": types.OIDInt4, "int": types.OIDInt4, "integer": types.OIDInt4, "regproc": OIDRegproc,
	"text": types.OIDText, "oid": types.OIDOid, "xid": OIDXid, "oidvector": OIDOidVector, "pg_node_tree": OIDNodeTree,
	"float4": types.OIDFloat4, "real": types.OIDFloat4, "float8": types.OIDFloat8, "double precision": types.OIDFloat8, "float": types.OIDFloat8,
	"unknown": types.OIDUnknown, "inet": OIDInet, "aclitem": 1033, "aclitem[]": OIDAclArr,
	"varchar": types.OIDVarchar, "character varying": types.OIDVarchar, "bpchar": types.OIDVarchar, "character": types.OIDVarchar,
	"timestamp": types.OIDTimestamp, "timestamp without time zone": types.OIDTimestamp,
	"timestamptz": types.OIDTimestampTZ, "timestamp with time zone": types.OIDTimestampTZ,
	"interval": types.OIDInterval, "numeric": types.OIDNumeric, "decimal": types.OIDNumeric, "jsonb": types.OIDJSONB,
	"regclass": OIDRegclass, "regtype": OIDRegtype, "regnamespace": OIDRegnamesp, "anyarray": OIDAnyArray,
	"information_schema.sql_identifier": types.OIDName, "sql_identifier": types.OIDName,
	"information_schema.character_data": types.OIDVarchar, "character_data": types.OIDVarchar,
	"information_schema.cardinal_number": types.OIDInt4, "cardinal_number": types.OIDInt4,
	"information_schema.yes_or_no": types.OIDVarchar, "yes_or_no": types.OIDVarchar,
	"information_schema.time_stamp": types.OIDTimestampTZ, "time_stamp": types.OIDTimestampTZ,
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
			return types.OIDTextArray, true // arrays of types we do not model read as text[]
		}
		if el == types.OIDInt2 || el == types.OIDOid || el == types.OIDChar || el == types.OIDText || el == types.OIDName ||
			el == types.OIDInt4 || el == types.OIDInt8 || el == types.OIDBool || el == types.OIDFloat8 || el == types.OIDVarchar || el == 1033 {
			return typeInfos[el].array, true
		}
		return types.OIDTextArray, true
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
	if t == types.OIDVarchar && mod > 4 {
		return ti.name + "(" + itoa(mod-4) + ")"
	}
	if t == types.OIDNumeric && mod > 4 {
		return ti.name + "(" + itoa((mod-4)>>16) + "," + itoa((mod-4)&0xffff) + ")"
	}
	return ti.name
}

// SQLSTATE codes sqlerr does not name.
const (
	codeInvalidText     = "22P02"
	codeUndefinedObject = "42704"
)
