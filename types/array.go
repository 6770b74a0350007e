package types

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// A one-dimensional array of scalars. Its type is the kind ArrayOf(elem)
// (BIGINT[] is ArrayOf(Int)), which a Value holds in K like any kind; the
// codecs persist it as the kind byte Array and the element kind. The
// elements live in Value.S in a compact encoding (appendElem), so a Value
// stays a flat, comparable struct: equal arrays of one spelling have
// equal bytes. NULL elements are allowed; the lower bound is always 1.

// arrayBit marks an array kind: ArrayOf(elem) is arrayBit | elem.
const arrayBit Kind = 0x80

// ArrayOf is the kind of arrays whose elements are of kind elem.
func ArrayOf(elem Kind) Kind { return arrayBit | elem }

// IsArray reports whether k is an array kind.
func (k Kind) IsArray() bool { return k&0xC0 == arrayBit }

// Elem is the element kind of array kind k.
func (k Kind) Elem() Kind { return k &^ arrayBit }

// ArrayElemOK reports whether arrays of kind k are supported: the scalar
// kinds.
func ArrayElemOK(k Kind) bool {
	return k != Null && k <= Bytea
}

// ZoneDependent reports whether the text form of values of kind k (and
// so casts between it and text) depends on the session's time zone:
// TIMESTAMPTZ and arrays of it.
func ZoneDependent(k Kind) bool {
	return k == TimestampTZ || k == ArrayOf(TimestampTZ)
}

// ArrayValue returns the array of elem-kind values vals (NULL elements
// allowed). Values of another kind must have been cast by the caller.
func ArrayValue(elem Kind, vals []Value) Value {
	b := binary.AppendUvarint(nil, uint64(len(vals)))
	for _, v := range vals {
		b = appendElem(b, elem, v)
	}
	return Value{K: ArrayOf(elem), S: string(b)}
}

// AppendArrayBinaryHeader appends the header of Postgres's binary array
// format (array_send) for elems of element type elemOID: the dimensions
// (one, or none when empty), the has-NULLs flag, the element type and,
// for one dimension, its length and lower bound (1). The elements follow
// it, each as a length (-1 for NULL) and its binary form.
func AppendArrayBinaryHeader(dst []byte, elemOID uint32, elems []Value) []byte {
	ndim, hasNull := uint32(1), uint32(0)
	if len(elems) == 0 {
		ndim = 0
	}
	for _, e := range elems {
		if e.K == Null {
			hasNull = 1
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, ndim)
	dst = binary.BigEndian.AppendUint32(dst, hasNull)
	dst = binary.BigEndian.AppendUint32(dst, elemOID)
	if ndim == 0 {
		return dst
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(elems)))
	return binary.BigEndian.AppendUint32(dst, 1)
}

// ArrayElems returns the elements of array v.
func ArrayElems(v Value) []Value {
	out, _ := decodeElems(v.K.Elem(), []byte(v.S))
	return out
}

// ArrayLen is the number of elements of array v.
func ArrayLen(v Value) int {
	n, _ := binary.Uvarint([]byte(v.S))
	return int(n)
}

var errArrayBytes = errors.New("bad array encoding")

// DecodeArrayBytes reads an array's element encoding (as Value.S holds
// it) of elements of kind elem, checking it, and returns the array.
func DecodeArrayBytes(elem Kind, b []byte) (Value, error) {
	if !ArrayElemOK(elem) {
		return NullValue, errArrayBytes
	}
	if _, err := decodeElems(elem, b); err != nil {
		return NullValue, err
	}
	return Value{K: ArrayOf(elem), S: string(b)}, nil
}

// appendElem appends one element: 0 for NULL, else 1 and the payload.
func appendElem(b []byte, elem Kind, v Value) []byte {
	if v.K == Null {
		return append(b, 0)
	}
	b = append(b, 1)
	switch elem {
	case Float:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.F))
	case String, JSONB, Bytea:
		b = binary.AppendUvarint(b, uint64(len(v.S)))
		return append(b, v.S...)
	case Decimal:
		return AppendDecimalBytes(b, v)
	case Interval:
		return AppendIntervalParts(b, v)
	}
	return binary.AppendVarint(b, v.I)
}

func decodeElems(elem Kind, b []byte) ([]Value, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errArrayBytes
	}
	b = b[k:]
	out := make([]Value, n)
	for i := range out {
		if len(b) == 0 || b[0] > 1 {
			return nil, errArrayBytes
		}
		null := b[0] == 0
		b = b[1:]
		if null {
			continue
		}
		v, rest, err := decodeElem(elem, b)
		if err != nil {
			return nil, err
		}
		out[i], b = v, rest
	}
	if len(b) != 0 {
		return nil, errArrayBytes
	}
	return out, nil
}

func decodeElem(elem Kind, b []byte) (Value, []byte, error) {
	switch elem {
	case Float:
		if len(b) < 8 {
			return NullValue, nil, errArrayBytes
		}
		return FloatValue(math.Float64frombits(binary.LittleEndian.Uint64(b))), b[8:], nil
	case String, JSONB, Bytea:
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return NullValue, nil, errArrayBytes
		}
		return Value{K: elem, S: string(b[k : k+int(l)])}, b[k+int(l):], nil
	case Decimal:
		return DecodeDecimalBytes(b)
	case Interval:
		return DecodeIntervalParts(b)
	}
	x, k := binary.Varint(b)
	if k <= 0 {
		return NullValue, nil, errArrayBytes
	}
	return Value{K: elem, I: x}, b[k:], nil
}

// CompareArrays orders arrays as Postgres does: element by element (a
// NULL element after every value, NULLs equal), then the shorter first.
func CompareArrays(a, b Value) int {
	if a.S == b.S {
		return 0
	}
	x, y := ArrayElems(a), ArrayElems(b)
	for i := 0; i < len(x) && i < len(y); i++ {
		switch xn, yn := x[i].K == Null, y[i].K == Null; {
		case xn && yn:
			continue
		case xn:
			return 1
		case yn:
			return -1
		}
		if c := Compare(x[i], y[i]); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(x)), int64(len(y)))
}

// ArrayKeyForm is the array whose elements are in their key forms (1.0
// as 1, -0 as 0, jsonb numbers so), the one value that stands for every
// array equal to v.
func ArrayKeyForm(v Value) Value {
	elem := v.K.Elem()
	if elem != Float && elem != Decimal && elem != JSONB {
		return v
	}
	vals := ArrayElems(v)
	for i, e := range vals {
		switch e.K {
		case Float:
			vals[i] = FloatValue(KeyFloat(e.F))
		case Decimal:
			vals[i] = DecimalNormalize(e)
		case JSONB:
			vals[i] = JSONBKeyForm(e)
		}
	}
	return ArrayValue(elem, vals)
}

// FormatArray is Postgres's text form of an array: `{1,2,NULL}`, an
// element in double quotes (with `"` and `\` backslashed) when it is
// empty, is NULL spelled as text, or holds braces, quotes, a comma, a
// backslash or white space. TIMESTAMPTZ elements print in UTC;
// FormatArrayIn prints them in a session's zone.
func FormatArray(v Value) string { return FormatArrayIn(v, time.UTC) }

// FormatArrayIn is FormatArray with TIMESTAMPTZ elements printed in zone
// loc, as Postgres prints them in the session's TimeZone.
func FormatArrayIn(v Value, loc *time.Location) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range ArrayElems(v) {
		if i > 0 {
			b.WriteByte(',')
		}
		if e.K == Null {
			b.WriteString("NULL")
			continue
		}
		writeArrayElem(&b, elemText(e, loc))
	}
	b.WriteByte('}')
	return b.String()
}

// elemText is an element's text form (booleans as t/f, as in arrays; a
// TIMESTAMPTZ in zone loc).
func elemText(e Value, loc *time.Location) string {
	if e.K == TimestampTZ {
		return FormatTimestampTZ(e.I, loc)
	}
	return e.String()
}

func writeArrayElem(b *strings.Builder, s string) {
	if !needsQuotes(s) {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
}

func needsQuotes(s string) bool {
	if s == "" || strings.EqualFold(s, "NULL") {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '}', '"', ',', '\\', ' ', '\t', '\n', '\r', '\v', '\f':
			return true
		}
	}
	return false
}

// ArrayError is an array input failure with its SQLSTATE.
type ArrayError struct {
	Code string
	Msg  string
}

func (e *ArrayError) Error() string { return e.Msg }

func malformedArray(s, detail string) error {
	return &ArrayError{Code: "22P02", Msg: `malformed array literal: "` + s + `": ` + detail}
}

// ParseArray reads a one-dimensional array's text form into an array of
// elem-kind values: `{a,"b c",NULL}`, white space around elements
// ignored, a quoted "NULL" a string. Each element is read by parse.
func ParseArray(s string, elem Kind, parse func(string) (Value, error)) (Value, error) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return NullValue, malformedArray(s, `Array value must start with "{" or dimension information.`)
	}
	body := t[1 : len(t)-1]
	var vals []Value
	if strings.TrimSpace(body) == "" {
		return ArrayValue(elem, nil), nil
	}
	for i := 0; ; {
		text, quoted, next, bad := arrayToken(body, i)
		if bad != nil {
			return NullValue, malformedArray(s, bad.msg)
		}
		if !quoted && strings.EqualFold(text, "NULL") {
			vals = append(vals, NullValue)
		} else {
			v, err := parse(text)
			if err != nil {
				return NullValue, err
			}
			vals = append(vals, v)
		}
		if next >= len(body) {
			break
		}
		i = next + 1 // past the comma
	}
	return ArrayValue(elem, vals), nil
}

// arrayToken reads one element starting at body[i] and returns its text,
// whether it was quoted, and the index of the comma after it (or
// len(body)).
func arrayToken(body string, i int) (string, bool, int, *arrayDetail) {
	for i < len(body) && isArraySpace(body[i]) {
		i++
	}
	var b strings.Builder
	quoted := false
	if i < len(body) && body[i] == '"' {
		quoted = true
		i++
		for ; i < len(body) && body[i] != '"'; i++ {
			if body[i] == '\\' && i+1 < len(body) {
				i++
			}
			b.WriteByte(body[i])
		}
		if i >= len(body) {
			return "", false, 0, &arrayDetail{"Unexpected end of input."}
		}
		i++
		for i < len(body) && isArraySpace(body[i]) {
			i++
		}
	} else {
		start := i
		for ; i < len(body) && body[i] != ','; i++ {
			switch body[i] {
			case '{', '}', '"':
				return "", false, 0, &arrayDetail{"Unexpected \"" + string(body[i]) + "\" character."}
			case '\\':
				i++
			}
		}
		raw := strings.TrimRightFunc(body[start:min(i, len(body))], func(r rune) bool { return r < 128 && isArraySpace(byte(r)) })
		if raw == "" {
			return "", false, 0, &arrayDetail{"Unexpected \",\" character."}
		}
		b.WriteString(unbackslash(raw))
	}
	if i < len(body) && body[i] != ',' {
		return "", false, 0, &arrayDetail{"Unexpected array element."}
	}
	return b.String(), quoted, i, nil
}

// arrayDetail is the detail of a malformed array literal, as Postgres
// words it.
type arrayDetail struct{ msg string }

func unbackslash(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// ParseScalar reads the text form of a value of scalar kind k (the form
// String prints), as array elements and casts from text need it. A
// TIMESTAMPTZ without an offset is read in UTC; ParseScalarIn reads it in
// a session's zone.
func ParseScalar(s string, k Kind) (Value, error) { return ParseScalarIn(s, k, time.UTC) }

// ParseScalarIn is ParseScalar with a TIMESTAMPTZ that has no offset read
// as wall time in zone loc.
func ParseScalarIn(s string, k Kind, loc *time.Location) (Value, error) {
	bad := func() (Value, error) {
		return NullValue, &ArrayError{Code: "22P02", Msg: "invalid input syntax for type " + strings.ToLower(k.String()) + `: "` + s + `"`}
	}
	t := strings.TrimSpace(s)
	switch k {
	case String:
		return StringValue(s), nil
	case Int:
		i, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return bad()
		}
		return IntValue(i), nil
	case Float:
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return bad()
		}
		return FloatValue(f), nil
	case Bool:
		if b, ok := ParseBool(t); ok {
			return BoolValue(b), nil
		}
		return bad()
	case Decimal:
		return ParseDecimal(t)
	case Timestamp:
		us, err := ParseTimestamp(t)
		if err != nil {
			return bad()
		}
		return TimestampValue(us), nil
	case Date:
		d, err := ParseDate(t)
		if err != nil {
			return bad()
		}
		return DateValue(d), nil
	case Interval:
		return ParseIntervalValue(t, "")
	case Time:
		us, err := ParseTime(t)
		if err != nil {
			return bad()
		}
		return TimeValue(us), nil
	case TimestampTZ:
		us, err := ParseTimestampTZ(t, loc)
		if err != nil {
			return bad()
		}
		return TimestampTZValue(us), nil
	case JSONB:
		return ParseJSONB(s)
	case Bytea:
		return ParseBytea(s)
	}
	return bad()
}

// AppendArrayCodec appends the state and change codecs' payload of array
// v (after the Array kind byte): its element kind, then its element
// bytes with their length.
func AppendArrayCodec(dst []byte, v Value) []byte {
	dst = append(dst, byte(v.K.Elem()))
	dst = binary.AppendUvarint(dst, uint64(len(v.S)))
	return append(dst, v.S...)
}

// DecodeArrayCodec reads AppendArrayCodec's payload, checking it, and
// returns the array and the rest of b.
func DecodeArrayCodec(b []byte) (Value, []byte, error) {
	if len(b) == 0 {
		return NullValue, nil, errArrayBytes
	}
	elem := Kind(b[0])
	l, k := binary.Uvarint(b[1:])
	if k <= 0 || l > uint64(len(b)-1-k) {
		return NullValue, nil, errArrayBytes
	}
	body := b[1+k : 1+k+int(l)]
	v, err := DecodeArrayBytes(elem, body)
	return v, b[1+k+int(l):], err
}
