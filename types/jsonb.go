package types

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A JSONB value is held as its canonical text in Value.S: the text
// Postgres prints for jsonb (`{"a": 1, "b": [1, 2]}`), object keys sorted
// as jsonb stores them (shorter keys first, then bytewise) with the last
// of duplicate keys kept, numbers as numeric text (1e2 as 100). Every
// JSONB value passes through ParseJSON once, where it enters; operators
// read the canonical text back with ParseJSON, which cannot fail on it.

// JSONKind is the type of one JSON node. The order is jsonb's order of
// types (jsonb.h): null < string < number < boolean < array < object.
type JSONKind uint8

// The JSON node kinds.
const (
	JSONNull JSONKind = iota
	JSONString
	JSONNumber
	JSONBool
	JSONArray
	JSONObject
)

// String is the name jsonb_typeof gives the kind.
func (k JSONKind) String() string {
	return [...]string{"null", "string", "number", "boolean", "array", "object"}[k]
}

// JSON is one parsed JSON node. Str holds a string; Num a number as a
// DECIMAL value; Bool a boolean; Elems an array's elements; Keys and Vals
// an object's members in jsonb order (SortKeys).
type JSON struct {
	Kind  JSONKind
	Str   string
	Num   Value
	Bool  bool
	Elems []*JSON
	Keys  []string
	Vals  []*JSON
}

// MaxJSONDepth bounds how deeply JSON text may nest.
const MaxJSONDepth = 1000

// JSONError is a JSON input or operator failure with its SQLSTATE.
type JSONError struct {
	Code string
	Msg  string
}

func (e *JSONError) Error() string { return e.Msg }

func badJSON(detail string) error {
	return &JSONError{Code: "22P02", Msg: "invalid input syntax for type json: " + detail}
}

// JSONBValue returns the JSONB value of j.
func JSONBValue(j *JSON) Value { return Value{K: JSONB, S: string(j.AppendText(nil))} }

// ParseJSONB reads JSON text into a JSONB value in canonical form.
func ParseJSONB(s string) (Value, error) {
	j, err := ParseJSON(s)
	if err != nil {
		return NullValue, err
	}
	return JSONBValue(j), nil
}

// JSONOf returns the node a JSONB value holds (JSON null for text that is
// not JSON, which a JSONB value never holds).
func JSONOf(v Value) *JSON {
	j, err := ParseJSON(v.S)
	if err != nil {
		return &JSON{}
	}
	return j
}

// ParseJSON parses JSON text (RFC 8259, one value, surrounding white
// space allowed) as jsonb input does: \u0000 is refused, numbers become
// DECIMALs, object keys are sorted and deduplicated (the last wins).
func ParseJSON(s string) (*JSON, error) {
	p := jsonParser{s: s}
	j, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, badJSON("unexpected text after the value at offset " + strconv.Itoa(p.i))
	}
	return j, nil
}

type jsonParser struct {
	s string
	i int
}

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*JSON, error) {
	if depth > MaxJSONDepth {
		return nil, &JSONError{Code: "54001", Msg: "JSON nests deeper than " + strconv.Itoa(MaxJSONDepth) + " levels"}
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, badJSON("the input ends before a value")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return &JSON{Kind: JSONString, Str: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	for _, w := range [...]struct {
		text string
		node JSON
	}{{"true", JSON{Kind: JSONBool, Bool: true}}, {"false", JSON{Kind: JSONBool}}, {"null", JSON{}}} {
		if strings.HasPrefix(p.s[p.i:], w.text) {
			p.i += len(w.text)
			n := w.node
			return &n, nil
		}
	}
	return nil, badJSON("unexpected character at offset " + strconv.Itoa(p.i))
}

func (p *jsonParser) object(depth int) (*JSON, error) {
	p.i++ // {
	j := &JSON{Kind: JSONObject}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return j, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, badJSON("expected an object key at offset " + strconv.Itoa(p.i))
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, badJSON("expected ':' at offset " + strconv.Itoa(p.i))
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		j.Keys, j.Vals = append(j.Keys, k), append(j.Vals, v)
		if done, err := p.next('}'); done || err != nil {
			j.SortKeys()
			return j, err
		}
	}
}

func (p *jsonParser) array(depth int) (*JSON, error) {
	p.i++ // [
	j := &JSON{Kind: JSONArray, Elems: []*JSON{}}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return j, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		j.Elems = append(j.Elems, v)
		if done, err := p.next(']'); done || err != nil {
			return j, err
		}
	}
}

// next consumes the ',' between members or the closing character.
func (p *jsonParser) next(closing byte) (bool, error) {
	p.space()
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case ',':
			p.i++
			return false, nil
		case closing:
			p.i++
			return true, nil
		}
	}
	return true, badJSON("expected ',' or '" + string(closing) + "' at offset " + strconv.Itoa(p.i))
}

func (p *jsonParser) number() (*JSON, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	intStart := p.i
	if n := digits(); n == 0 || (n > 1 && p.s[intStart] == '0') {
		return nil, badJSON("malformed number at offset " + strconv.Itoa(start))
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, badJSON("malformed number at offset " + strconv.Itoa(start))
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, badJSON("malformed number at offset " + strconv.Itoa(start))
		}
	}
	d, err := ParseDecimal(p.s[start:p.i])
	if err != nil {
		return nil, err
	}
	return &JSON{Kind: JSONNumber, Num: d}, nil
}

// str reads a quoted string at p.i and decodes its escapes.
func (p *jsonParser) str() (string, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != '"' && p.s[p.i] != '\\' && p.s[p.i] >= 0x20 {
		p.i++
	}
	if p.i < len(p.s) && p.s[p.i] == '"' {
		p.i++
		return p.s[start : p.i-1], nil
	}
	b := []byte(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c < 0x20:
			return "", badJSON("a control character inside a string at offset " + strconv.Itoa(p.i))
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		var err error
		if b, err = p.escape(b); err != nil {
			return "", err
		}
	}
	return "", badJSON("unterminated string")
}

// escape decodes the escape at p.i (a backslash) onto b.
func (p *jsonParser) escape(b []byte) ([]byte, error) {
	if p.i+1 >= len(p.s) {
		return nil, badJSON("unterminated string")
	}
	c := p.s[p.i+1]
	p.i += 2
	if r, ok := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[c]; ok {
		return append(b, r), nil
	}
	if c != 'u' {
		return nil, badJSON("invalid escape \\" + string(c))
	}
	r, err := p.hex4()
	if err != nil {
		return nil, err
	}
	switch {
	case r == 0:
		return nil, &JSONError{Code: "22P05", Msg: "unsupported Unicode escape sequence: \\u0000 cannot be converted to text"}
	case utf16.IsSurrogate(r):
		if r >= 0xDC00 || !strings.HasPrefix(p.s[p.i:], "\\u") {
			return nil, badJSON("a Unicode low surrogate must follow a high surrogate")
		}
		p.i += 2
		lo, err := p.hex4()
		if err != nil {
			return nil, err
		}
		if r = utf16.DecodeRune(r, lo); r == utf8.RuneError {
			return nil, badJSON("a Unicode low surrogate must follow a high surrogate")
		}
	}
	return utf8.AppendRune(b, r), nil
}

func (p *jsonParser) hex4() (rune, error) {
	if p.i+4 > len(p.s) {
		return 0, badJSON("\\u must be followed by four hexadecimal digits")
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, badJSON("\\u must be followed by four hexadecimal digits")
	}
	p.i += 4
	return rune(n), nil
}

// SortKeys puts an object's members in jsonb order (shorter keys first,
// then bytewise), keeping the last member of each duplicated key.
func (j *JSON) SortKeys() {
	idx := make([]int, len(j.Keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keyLess(j.Keys[idx[a]], j.Keys[idx[b]]) })
	keys, vals := make([]string, 0, len(idx)), make([]*JSON, 0, len(idx))
	for n, i := range idx {
		if n+1 < len(idx) && j.Keys[idx[n+1]] == j.Keys[i] {
			continue // a later duplicate follows (stable order): it wins
		}
		keys, vals = append(keys, j.Keys[i]), append(vals, j.Vals[i])
	}
	j.Keys, j.Vals = keys, vals
}

func keyLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// Field returns the value of an object's key, or nil.
func (j *JSON) Field(key string) *JSON {
	if j.Kind != JSONObject {
		return nil
	}
	i := sort.Search(len(j.Keys), func(i int) bool { return !keyLess(j.Keys[i], key) })
	if i < len(j.Keys) && j.Keys[i] == key {
		return j.Vals[i]
	}
	return nil
}

// Index returns an array's element i (negative counts from the end), or
// nil.
func (j *JSON) Index(i int64) *JSON {
	if j.Kind != JSONArray {
		return nil
	}
	if i < 0 {
		i += int64(len(j.Elems))
	}
	if i < 0 || i >= int64(len(j.Elems)) {
		return nil
	}
	return j.Elems[i]
}

// AppendText appends the text Postgres prints for j as jsonb.
func (j *JSON) AppendText(dst []byte) []byte {
	switch j.Kind {
	case JSONNull:
		return append(dst, "null"...)
	case JSONString:
		return AppendJSONString(dst, j.Str)
	case JSONNumber:
		return AppendDecimal(dst, j.Num)
	case JSONBool:
		return strconv.AppendBool(dst, j.Bool)
	case JSONArray:
		dst = append(dst, '[')
		for i, e := range j.Elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = e.AppendText(dst)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, k := range j.Keys {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = AppendJSONString(dst, k)
		dst = append(dst, ": "...)
		dst = j.Vals[i].AppendText(dst)
	}
	return append(dst, '}')
}

// Text is the text ->> gives for j: a string unquoted, anything else as
// jsonb text. JSON null has none (ok false: SQL NULL).
func (j *JSON) Text() (string, bool) {
	switch j.Kind {
	case JSONNull:
		return "", false
	case JSONString:
		return j.Str, true
	}
	return string(j.AppendText(nil)), true
}

// AppendJSONString appends s quoted as Postgres's escape_json does.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			if c < 0x20 {
				const hex = "0123456789abcdef"
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
				continue
			}
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// CompareJSON orders two JSON nodes as jsonb's btree does: by kind
// (null < string < number < boolean < array < object), arrays and objects
// first by their size, then element by element (objects key, value, key,
// ...). A top-level scalar is jsonb's one-element "raw scalar" array: it
// compares with a top-level array by size first, then sorts before it.
func CompareJSON(a, b *JSON) int {
	ra, rb := a.Kind < JSONArray, b.Kind < JSONArray
	if ra != rb && b.Kind != JSONObject && a.Kind != JSONObject {
		na, nb := 1, 1
		if !ra {
			na = len(a.Elems)
		}
		if !rb {
			nb = len(b.Elems)
		}
		if na != nb {
			return cmpInt(int64(na), int64(nb))
		}
		if ra {
			return -1
		}
		return 1
	}
	return compareNode(a, b)
}

func compareNode(a, b *JSON) int {
	if a.Kind != b.Kind {
		return cmpInt(int64(a.Kind), int64(b.Kind))
	}
	switch a.Kind {
	case JSONNull:
		return 0
	case JSONString:
		return strings.Compare(a.Str, b.Str)
	case JSONNumber:
		return DecimalCmp(a.Num, b.Num)
	case JSONBool:
		return cmpInt(boolInt(a.Bool), boolInt(b.Bool))
	case JSONArray:
		if c := cmpInt(int64(len(a.Elems)), int64(len(b.Elems))); c != 0 {
			return c
		}
		for i := range a.Elems {
			if c := compareNode(a.Elems[i], b.Elems[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	if c := cmpInt(int64(len(a.Keys)), int64(len(b.Keys))); c != 0 {
		return c
	}
	for i := range a.Keys {
		if c := strings.Compare(a.Keys[i], b.Keys[i]); c != 0 {
			return c
		}
		if c := compareNode(a.Vals[i], b.Vals[i]); c != 0 {
			return c
		}
	}
	return 0
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// CompareJSONB orders two JSONB values (CompareJSON); equal canonical
// texts are equal without parsing.
func CompareJSONB(a, b Value) int {
	if a.S == b.S {
		return 0
	}
	return CompareJSON(JSONOf(a), JSONOf(b))
}

// JSONBKeyForm returns the one JSONB value that stands for v in keys:
// numbers without trailing fractional zeros, so the values jsonb's =
// finds equal ({"a": 1.0} and {"a": 1}) make one key.
func JSONBKeyForm(v Value) Value {
	if !strings.ContainsAny(v.S, "0123456789") {
		return v
	}
	j := JSONOf(v)
	normalizeNumbers(j)
	return JSONBValue(j)
}

func normalizeNumbers(j *JSON) {
	switch j.Kind {
	case JSONNumber:
		j.Num = DecimalNormalize(j.Num)
	case JSONArray:
		for _, e := range j.Elems {
			normalizeNumbers(e)
		}
	case JSONObject:
		for _, e := range j.Vals {
			normalizeNumbers(e)
		}
	}
}

// Contains reports whether a contains b as jsonb's @> does: an object
// holds each of b's keys with a containing value, an array holds each of
// b's elements (scalars equal, containers contained by some element of
// the same kind), scalars are equal; a top-level array also contains a
// top-level scalar it holds.
func Contains(a, b *JSON) bool {
	if a.Kind == JSONArray && b.Kind < JSONArray {
		return contains(a, &JSON{Kind: JSONArray, Elems: []*JSON{b}})
	}
	return contains(a, b)
}

func contains(a, b *JSON) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case JSONObject:
		for i, k := range b.Keys {
			v := a.Field(k)
			if v == nil || !contains(v, b.Vals[i]) {
				return false
			}
		}
		return true
	case JSONArray:
		for _, e := range b.Elems {
			if !arrayHolds(a, e) {
				return false
			}
		}
		return true
	}
	return compareNode(a, b) == 0
}

func arrayHolds(a, e *JSON) bool {
	for _, x := range a.Elems {
		if contains(x, e) {
			return true
		}
	}
	return false
}

// Exists reports whether key is a top-level key of an object or a string
// element of an array (a top-level string scalar counts as one), as
// jsonb's ? does.
func Exists(j *JSON, key string) bool {
	switch j.Kind {
	case JSONObject:
		return j.Field(key) != nil
	case JSONArray:
		for _, e := range j.Elems {
			if e.Kind == JSONString && e.Str == key {
				return true
			}
		}
	case JSONString:
		return j.Str == key
	}
	return false
}

// CompareJSONElems orders two JSON nodes as elements of one container
// (jsonb's order without the top-level raw-scalar rule).
func CompareJSONElems(a, b *JSON) int { return compareNode(a, b) }
