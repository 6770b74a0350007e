package format

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamsql/streamsql/types"
)

// scan decodes a flat JSON object into row in one pass over the bytes,
// without building a tree. ok = false means the record needs the general
// path (it has a construct scan leaves to fastjson, or is malformed, so
// fastjson produces the syntax error); with ok = true, err is the
// record's type error, if any.
func (d *JSONDecoder) scan(b []byte, row types.Row) (ok bool, err error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false, nil
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return skipWS(b, i+1) == len(b), nil
	}
	for field := 0; ; {
		if i >= len(b) || b[i] != '"' {
			return false, nil
		}
		ks := i + 1
		ke := ks
		for ke < len(b) && b[ke] != '"' && b[ke] != '\\' {
			ke++
		}
		if ke >= len(b) || b[ke] == '\\' {
			return false, nil // escaped key: leave it to fastjson
		}
		col := d.column(field, b[ks:ke])
		field++
		i = skipWS(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return false, nil
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return false, nil
		}
		var handled bool
		i, handled, err = d.scanValue(b, i, col, row)
		if !handled {
			return false, nil
		}
		if err != nil {
			return true, err
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false, nil
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return skipWS(b, i+1) == len(b), nil
		default:
			return false, nil
		}
	}
}

// scanValue reads the value at b[i] into column col (-1: skip it) and
// returns the index after it.
func (d *JSONDecoder) scanValue(b []byte, i, col int, row types.Row) (int, bool, error) {
	if col >= 0 && d.schema[col].Type == types.JSONB {
		return d.scanJSONB(b, i, col, row)
	}
	switch c := b[i]; {
	case c == '"':
		s, end, ok := d.scanString(b, i+1, col >= 0 && d.schema[col].Type == types.String)
		if !ok {
			return 0, false, nil
		}
		if col < 0 {
			return end, true, nil
		}
		if d.schema[col].Type == types.String {
			d.setSpan(col, s)
			return end, true, nil
		}
		text := b[s.start:s.end]
		if s.col == 1 { // unescaped into scratch
			text = d.strs[s.start:s.end]
			d.strs = d.strs[:s.start]
		}
		v, err := parseText(d.schema[col], text, "string")
		row[col] = v
		return end, true, err
	case c == '-' || (c >= '0' && c <= '9'):
		if col >= 0 {
			if v, end, ok := d.fastNumber(b, i, col); ok {
				row[col] = v
				return end, true, nil
			}
		}
		end := i + 1
		for end < len(b) && isNumberByte(b[end]) {
			end++
		}
		if !validNumber(b[i:end]) {
			return 0, false, nil
		}
		if col < 0 {
			return end, true, nil
		}
		v, err := d.number(col, b[i:end])
		row[col] = v
		return end, true, err
	case c == 't' || c == 'f' || c == 'n':
		var lit string
		switch c {
		case 't':
			lit = "true"
		case 'f':
			lit = "false"
		default:
			lit = "null"
		}
		end := i + len(lit)
		if end > len(b) || string(b[i:end]) != lit {
			return 0, false, nil
		}
		if col < 0 {
			return end, true, nil
		}
		d.dropSpan(col)
		switch {
		case c == 'n':
			row[col] = types.NullValue
		case d.schema[col].Type == types.Bool:
			row[col] = types.BoolValue(c == 't')
		case d.schema[col].Type == types.String:
			d.setSpan(col, d.appendStr([]byte(lit)))
		default:
			return end, true, typeError(d.schema[col], "boolean", nil)
		}
		return end, true, nil
	case c == '{' || c == '[':
		if col >= 0 {
			if d.schema[col].Type == types.String {
				return 0, false, nil // compact re-encoding: fastjson does it
			}
			what := "object"
			if c == '[' {
				what = "array"
			}
			return 0, true, typeError(d.schema[col], what, nil)
		}
		end, ok := skipNested(b, i)
		return end, ok, nil
	}
	return 0, false, nil
}

// scanJSONB reads the value at b[i], whole, into the JSONB column col
// (JSON null is SQL NULL, as for every column).
func (d *JSONDecoder) scanJSONB(b []byte, i, col int, row types.Row) (int, bool, error) {
	end, ok := skipValue(b, i, 0)
	if !ok {
		return 0, false, nil
	}
	if string(b[i:end]) == "null" {
		row[col] = types.NullValue
		return end, true, nil
	}
	v, err := types.ParseJSONB(string(b[i:end]))
	row[col] = v
	return end, true, err
}

// column returns the column of the record's field'th key, or -1. Records
// of one source mostly list their keys in the same order, so the column
// the same position named last time is tried first, by comparing names,
// before the name index.
func (d *JSONDecoder) column(field int, key []byte) int {
	if field < len(d.order) {
		if c := d.order[field]; c >= 0 && d.schema[c].Name == string(key) {
			return c
		}
	}
	c := d.cols.find(key)
	if field < maxOrder {
		for len(d.order) <= field {
			d.order = append(d.order, -1)
		}
		d.order[field] = c
	}
	return c
}

// maxOrder bounds how many key positions column remembers.
const maxOrder = 64

// fastNumber reads an integer of at most 18 digits at b[i] (no fraction or
// exponent follows) for an Int, Timestamp, TimestampTZ or Interval column
// col in one pass; ok = false leaves the number to the general path.
func (d *JSONDecoder) fastNumber(b []byte, i, col int) (types.Value, int, bool) {
	k := d.schema[col].Type
	if k != types.Int && k != types.Timestamp && k != types.TimestampTZ && k != types.Interval {
		return types.Value{}, 0, false
	}
	j := i
	neg := b[j] == '-'
	if neg {
		j++
	}
	start := j
	var n int64
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		n = n*10 + int64(b[j]-'0')
		j++
	}
	digits := j - start
	if digits == 0 || digits > 18 || (digits > 1 && b[start] == '0') ||
		(j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '-' || b[j] == '+')) {
		return types.Value{}, 0, false
	}
	if neg {
		n = -n
	}
	switch k {
	case types.Int:
		return types.IntValue(n), j, true
	case types.Interval:
		return types.IntervalValue(n), j, true
	}
	us, ok := epochMillis(n)
	return types.Value{K: k, I: us}, j, ok
}

// number converts JSON number text to column col's kind.
func (d *JSONDecoder) number(col int, raw []byte) (types.Value, error) {
	c := d.schema[col]
	switch c.Type {
	case types.Int:
		if n, ok := parseInt(raw); ok {
			return types.IntValue(n), nil
		}
	case types.Float:
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return types.FloatValue(f), nil
		}
	case types.Timestamp, types.TimestampTZ:
		if n, ok := parseInt(raw); ok {
			if us, ok := epochMillis(n); ok {
				return types.Value{K: d.schema[col].Type, I: us}, nil
			}
		}
	case types.Interval:
		if n, ok := parseInt(raw); ok {
			return types.IntervalValue(n), nil
		}
	case types.Decimal:
		return parseDecimal(c, raw, "number")
	case types.String:
		d.dropSpan(col)
		d.setSpan(col, d.appendStr(raw))
		return types.Value{}, nil
	}
	return types.Value{}, typeError(c, "number", raw)
}

// scanString reads the string whose content starts at b[i]. For VARCHAR
// columns (keep) the content goes to d.strs; otherwise an escape-free
// string is returned as a span of b (col 0) and an escaped one is
// unescaped into d.strs (col 1) for the caller to parse and drop. A
// VARCHAR span is always in d.strs.
func (d *JSONDecoder) scanString(b []byte, i int, keep bool) (strRef, int, bool) {
	j := i
	for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
		j++
	}
	if j < len(b) && b[j] == '"' {
		if keep {
			return d.appendStr(b[i:j]), j + 1, true
		}
		return strRef{start: i, end: j}, j + 1, true
	}
	if j >= len(b) || b[j] < 0x20 {
		return strRef{}, 0, false
	}
	start := len(d.strs)
	d.strs = append(d.strs, b[i:j]...)
	for j < len(b) {
		c := b[j]
		switch {
		case c == '"':
			return strRef{col: 1, start: start, end: len(d.strs)}, j + 1, true
		case c < 0x20:
			return strRef{}, 0, false
		case c != '\\':
			d.strs = append(d.strs, c)
			j++
			continue
		}
		if j+1 >= len(b) {
			return strRef{}, 0, false
		}
		j++
		switch b[j] {
		case '"', '\\', '/':
			d.strs = append(d.strs, b[j])
		case 'b':
			d.strs = append(d.strs, '\b')
		case 'f':
			d.strs = append(d.strs, '\f')
		case 'n':
			d.strs = append(d.strs, '\n')
		case 'r':
			d.strs = append(d.strs, '\r')
		case 't':
			d.strs = append(d.strs, '\t')
		case 'u':
			r, n, ok := unicodeEscape(b[j-1:])
			if !ok {
				return strRef{}, 0, false
			}
			d.strs = utf8.AppendRune(d.strs, r)
			j += n - 2
		default:
			return strRef{}, 0, false
		}
		j++
	}
	return strRef{}, 0, false
}

// unicodeEscape decodes \uXXXX (and a following low surrogate) at b and
// returns the rune and the bytes used.
func unicodeEscape(b []byte) (rune, int, bool) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0, false
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(b[6:]); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, 12, true
			}
		}
		return 0, 0, false // a lone surrogate: fastjson keeps its escape text
	}
	return r, 6, true
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendStr copies s to d.strs and returns its span.
func (d *JSONDecoder) appendStr(s []byte) strRef {
	start := len(d.strs)
	d.strs = append(d.strs, s...)
	return strRef{start: start, end: len(d.strs)}
}

// setSpan records that column col's string is span s of d.strs.
func (d *JSONDecoder) setSpan(col int, s strRef) {
	d.dropSpan(col)
	d.spans = append(d.spans, strRef{col: col, start: s.start, end: s.end})
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'
}

// validNumber checks JSON number syntax:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipNested returns the index after the object or array at b[i],
// checking its syntax. It is stricter than fastjson where that is simpler
// (control bytes in strings, depth over 64): the caller then falls back
// to fastjson, which decides.
func skipNested(b []byte, i int) (int, bool) {
	return skipValue(b, i, 0)
}

func skipValue(b []byte, i, depth int) (int, bool) {
	if depth > 64 || i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i+1)
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == closer {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return 0, false
				}
				if i, ok = skipString(b, i+1); !ok {
					return 0, false
				}
				if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
					return 0, false
				}
				i = skipWS(b, i+1)
			}
			if i, ok = skipValue(b, i, depth+1); !ok {
				return 0, false
			}
			if i = skipWS(b, i); i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case closer:
				return i + 1, true
			default:
				return 0, false
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		end := i + 1
		for end < len(b) && isNumberByte(b[end]) {
			end++
		}
		return end, validNumber(b[i:end])
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
			return i + len(lit), true
		}
	}
	return 0, false
}

// skipString returns the index after the string whose content starts at
// b[i].
func skipString(b []byte, i int) (int, bool) {
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			i += 2
		case c < 0x20:
			return 0, false
		default:
			i++
		}
	}
	return 0, false
}
