// Package types holds the value model shared by every layer: kinds, values,
// rows and schemas, and their text forms. It is a leaf: it imports nothing
// of streamsql.
package types

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind is the SQL type of a value or column.
type Kind uint8

// The kinds streamsql knows. Timestamps and intervals are microseconds,
// dates days since 1970-01-01, decimals exact (decimal.go). The numbers
// are persisted (state and change codecs): new kinds go at the end.
const (
	Null Kind = iota
	Bool
	Int
	Float
	String
	Timestamp
	Interval
	Decimal
	Date
	JSONB
	TimestampTZ
	Time
	Bytea
	// Array is the kind byte the codecs write for an array value (then
	// its element kind); an array's own kind is ArrayOf(elem) (array.go).
	Array
)

// String returns the SQL name of the kind.
func (k Kind) String() string {
	switch k {
	case Null:
		return "NULL"
	case Bool:
		return "BOOLEAN"
	case Int:
		return "BIGINT"
	case Float:
		return "DOUBLE"
	case String:
		return "VARCHAR"
	case Timestamp:
		return "TIMESTAMP"
	case Interval:
		return "INTERVAL"
	case Decimal:
		return "DECIMAL"
	case Date:
		return "DATE"
	case JSONB:
		return "JSONB"
	case TimestampTZ:
		return "TIMESTAMPTZ"
	case Time:
		return "TIME"
	case Bytea:
		return "BYTEA"
	}
	if k.IsArray() {
		return k.Elem().String() + "[]"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Value is one SQL value. I holds Bool (0/1), Int, Timestamp, TimestampTZ
// (UTC microseconds since the epoch), Time (microseconds since midnight)
// and Interval (microseconds) and Date (days); F holds Float; S holds String and a
// JSONB's canonical text (jsonb.go) and a BYTEA's bytes (bytea.go). A Decimal
// is I (or S, when large) scaled by Scale digits (decimal.go). An Interval
// also has months and days, as Postgres's does: D holds its days and F its
// months, a whole number (interval.go; use IntervalOf and IntervalParts).
// K == Null is SQL NULL. Value is a plain struct so rows are flat slices
// with no boxing; Scale and D sit in K's padding, so they cost no space.
type Value struct {
	K     Kind
	Scale uint16
	D     int32
	I     int64
	F     float64
	S     string
}

// Constructors for values; they never allocate beyond the string itself.

// NullValue is SQL NULL.
var NullValue = Value{}

// IntValue returns an Int value.
func IntValue(i int64) Value { return Value{K: Int, I: i} }

// FloatValue returns a Float value.
func FloatValue(f float64) Value { return Value{K: Float, F: f} }

// StringValue returns a String value.
func StringValue(s string) Value { return Value{K: String, S: s} }

// BoolValue returns a Bool value.
func BoolValue(b bool) Value {
	if b {
		return Value{K: Bool, I: 1}
	}
	return Value{K: Bool}
}

// TimestampValue returns a Timestamp value from microseconds since the epoch.
func TimestampValue(us int64) Value { return Value{K: Timestamp, I: us} }

// IntervalValue returns an Interval value of us microseconds (no months
// or days).
func IntervalValue(us int64) Value { return Value{K: Interval, I: us} }

// IsNull reports whether v is SQL NULL.
func (v Value) IsNull() bool { return v.K == Null }

// Bool reports the truth of a Bool value (NULL is false).
func (v Value) Bool() bool { return v.K == Bool && v.I != 0 }

// AsFloat returns v as a float64 for Int, Float and Decimal values.
func (v Value) AsFloat() float64 {
	switch v.K {
	case Float:
		return v.F
	case Decimal:
		return DecimalToFloat(v)
	}
	return float64(v.I)
}

// IsNumeric reports whether k is Int, Float or Decimal.
func IsNumeric(k Kind) bool { return k == Int || k == Float || k == Decimal }

// Compare orders two values: NULL first, then by value. Values of different
// numeric kinds compare numerically (exactly between Int and Decimal);
// otherwise kinds order by Kind.
func Compare(a, b Value) int {
	if a.K == b.K {
		if a.K.IsArray() {
			return CompareArrays(a, b)
		}
		switch a.K {
		case Null:
			return 0
		case Float:
			return cmpFloat(a.F, b.F)
		case Decimal:
			return DecimalCmp(a, b)
		case Interval:
			return IntervalCmp(a, b)
		case JSONB:
			return CompareJSONB(a, b)
		case String, Bytea: // bytea orders as memcmp, then length
			switch {
			case a.S < b.S:
				return -1
			case a.S > b.S:
				return 1
			}
			return 0
		default:
			return cmpInt(a.I, b.I)
		}
	}
	if IsNumeric(a.K) && IsNumeric(b.K) {
		if a.K != Float && b.K != Float {
			return DecimalCmp(asDecimal(a), asDecimal(b))
		}
		return cmpFloat(a.AsFloat(), b.AsFloat())
	}
	return cmpInt(int64(a.K), int64(b.K))
}

// asDecimal returns an Int as a Decimal of scale 0, a Decimal as it is.
func asDecimal(v Value) Value {
	if v.K == Int {
		return DecimalFromInt(v.I)
	}
	return v
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case math.IsNaN(a) && !math.IsNaN(b):
		return -1
	case !math.IsNaN(a) && math.IsNaN(b):
		return 1
	}
	return 0
}

// KeyFloat returns the one float that stands for f in keys (groups, join
// keys, hash partitioning): 0 for -0 and one NaN for every NaN, the floats
// Compare finds equal.
func KeyFloat(f float64) float64 {
	switch {
	case f == 0:
		return 0
	case math.IsNaN(f):
		return math.NaN()
	}
	return f
}

// Equal reports whether a and b are the same value (NULL equals NULL here:
// this is grouping equality, not SQL's three-valued =).
func Equal(a, b Value) bool { return Compare(a, b) == 0 }

// String formats v as Postgres prints it in text format.
func (v Value) String() string {
	switch v.K {
	case Null:
		return "NULL"
	case Bool:
		if v.I != 0 {
			return "t"
		}
		return "f"
	case Int:
		return strconv.FormatInt(v.I, 10)
	case Float:
		return FormatFloat(v.F)
	case String, JSONB:
		return v.S
	case Timestamp:
		return FormatTimestamp(v.I)
	case Interval:
		return FormatIntervalValue(v)
	case Decimal:
		return FormatDecimal(v)
	case Date:
		return FormatDate(v.I)
	case TimestampTZ:
		return FormatTimestampTZ(v.I, time.UTC)
	case Time:
		return FormatTime(v.I)
	case Bytea:
		return FormatBytea(v.S)
	}
	if v.K.IsArray() {
		return FormatArray(v)
	}
	return "?"
}

// FormatFloat prints a float the way Postgres does for double precision:
// the shortest digits that read back exactly, in exponent form when the
// decimal exponent is below -4 or at least 15 (1e+15, 1.5e-05), plain
// otherwise (66666666.656666666).
func FormatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(s[strings.LastIndexByte(s, 'e')+1:])
	if exp < -4 || exp >= 15 {
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
