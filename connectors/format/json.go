package format

import (
	"errors"
	"strconv"
	"time"

	"github.com/streamsql/streamsql/types"
	"github.com/valyala/fastjson"
)

// JSONDecoder decodes one JSON object per record (see the package doc for
// the rules). It reuses one fastjson parser; not safe for concurrent use.
type JSONDecoder struct {
	schema types.Schema
	cols   columnIndex
	order  []int // the column of each key position in the last record (column)
	p      fastjson.Parser
	rows   rowAlloc

	// per-record state used by visit
	row   types.Row
	err   error
	strs  []byte   // the record's VARCHAR bytes, turned into one string
	spans []strRef // where each VARCHAR column's value lies in strs
	visit func(key []byte, v *fastjson.Value)
}

type strRef struct{ col, start, end int }

var errNotObject = errors.New("record is not a JSON object")

// NewJSONDecoder returns a JSON decoder for rows of schema.
func NewJSONDecoder(schema types.Schema) *JSONDecoder {
	d := &JSONDecoder{schema: schema, cols: newColumnIndex(schema), rows: rowAlloc{width: len(schema)}}
	d.visit = d.field
	return d
}

// Decode parses record and returns its row. Flat objects take a
// single-pass scanner (scan); anything it does not handle (escaped keys,
// nested values for VARCHAR columns, syntax errors) goes through fastjson,
// which applies the same rules.
func (d *JSONDecoder) Decode(record []byte) (types.Row, error) {
	row := d.rows.next()
	d.strs = d.strs[:0]
	d.spans = d.spans[:0]
	if ok, err := d.scan(record, row); ok {
		if err != nil {
			clear(row) // the slab slot is simply wasted
			return nil, err
		}
		d.finishStrings(row)
		return row, nil
	}
	clear(row)
	v, err := d.p.ParseBytes(record)
	if err != nil {
		return nil, err
	}
	return d.decodeInto(v, row)
}

// DecodeValue converts an already parsed JSON object (for example the
// "after" of a change event) to a row.
func (d *JSONDecoder) DecodeValue(v *fastjson.Value) (types.Row, error) {
	return d.decodeInto(v, d.rows.next())
}

func (d *JSONDecoder) decodeInto(v *fastjson.Value, row types.Row) (types.Row, error) {
	obj, err := v.Object()
	if err != nil {
		return nil, errNotObject
	}
	d.row = row
	d.err = nil
	d.strs = d.strs[:0]
	d.spans = d.spans[:0]
	obj.Visit(d.visit)
	if d.err != nil {
		clear(row)
		return nil, d.err
	}
	d.finishStrings(row)
	return row, nil
}

// finishStrings turns the record's VARCHAR bytes into one string and
// points each VARCHAR column at its part.
func (d *JSONDecoder) finishStrings(row types.Row) {
	if len(d.spans) == 0 {
		return
	}
	all := string(d.strs)
	for _, s := range d.spans {
		row[s.col] = types.StringValue(all[s.start:s.end])
	}
}

// field stores one object field into the row being built.
func (d *JSONDecoder) field(key []byte, v *fastjson.Value) {
	if d.err != nil {
		return
	}
	i := d.cols.find(key)
	if i < 0 {
		return
	}
	col := d.schema[i]
	if v.Type() == fastjson.TypeNull {
		d.row[i] = types.NullValue
		d.dropSpan(i)
		return
	}
	if col.Type == types.String {
		d.dropSpan(i)
		start := len(d.strs)
		if v.Type() == fastjson.TypeString {
			d.strs = append(d.strs, v.GetStringBytes()...)
		} else {
			d.strs = v.MarshalTo(d.strs)
		}
		d.spans = append(d.spans, strRef{col: i, start: start, end: len(d.strs)})
		return
	}
	val, err := jsonValue(col, v)
	if err != nil {
		d.err = err
		return
	}
	d.row[i] = val
}

// dropSpan forgets an earlier VARCHAR value of column i (duplicate keys:
// the last one wins).
func (d *JSONDecoder) dropSpan(i int) {
	for k := range d.spans {
		if d.spans[k].col == i {
			d.spans = append(d.spans[:k], d.spans[k+1:]...)
			return
		}
	}
}

// jsonValue converts a non-null JSON value to a non-VARCHAR column's kind;
// a JSONB column takes the value whole.
func jsonValue(col types.Column, v *fastjson.Value) (types.Value, error) {
	if col.Type == types.JSONB {
		return types.ParseJSONB(string(v.MarshalTo(nil)))
	}
	switch v.Type() {
	case fastjson.TypeString:
		return parseText(col, v.GetStringBytes(), "string")
	case fastjson.TypeNumber:
		switch col.Type {
		case types.Int:
			if n, err := v.Int64(); err == nil {
				return types.IntValue(n), nil
			}
		case types.Float: // strconv rounds exactly; fastjson's Float64 may not
			if f, err := strconv.ParseFloat(string(v.MarshalTo(nil)), 64); err == nil {
				return types.FloatValue(f), nil
			}
		case types.Timestamp, types.TimestampTZ:
			if n, err := v.Int64(); err == nil {
				if us, ok := epochMillis(n); ok {
					return types.Value{K: col.Type, I: us}, nil
				}
			}
		case types.Interval:
			if n, err := v.Int64(); err == nil {
				return types.IntervalValue(n), nil
			}
		case types.Decimal: // the number's text, exactly
			return parseDecimal(col, v.MarshalTo(nil), "number")
		}
		return types.Value{}, typeError(col, "number", v.MarshalTo(nil))
	case fastjson.TypeTrue, fastjson.TypeFalse:
		if col.Type == types.Bool {
			return types.BoolValue(v.Type() == fastjson.TypeTrue), nil
		}
		return types.Value{}, typeError(col, "boolean", nil)
	case fastjson.TypeObject:
		return types.Value{}, typeError(col, "object", nil)
	case fastjson.TypeArray:
		return types.Value{}, typeError(col, "array", nil)
	}
	return types.Value{}, typeError(col, v.Type().String(), nil)
}

// AppendJSON appends row (in schema order) as a JSON object whose keys are
// the column names.
func AppendJSON(dst []byte, schema types.Schema, row types.Row) []byte {
	dst = append(dst, '{')
	for i, c := range schema {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, c.Name)
		dst = append(dst, ':')
		dst = appendJSONValue(dst, row[i])
	}
	return append(dst, '}')
}

// AppendJSONCols appends the columns cols of row as a JSON object (for
// example a sink's key: {"id":1}).
func AppendJSONCols(dst []byte, schema types.Schema, row types.Row, cols []int) []byte {
	dst = append(dst, '{')
	for n, i := range cols {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, schema[i].Name)
		dst = append(dst, ':')
		dst = appendJSONValue(dst, row[i])
	}
	return append(dst, '}')
}

func appendJSONValue(dst []byte, v types.Value) []byte {
	switch v.K {
	case types.Null:
		return append(dst, "null"...)
	case types.Bool:
		return strconv.AppendBool(dst, v.I != 0)
	case types.Int:
		return strconv.AppendInt(dst, v.I, 10)
	case types.Float:
		f := v.F
		if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
			return appendJSONString(dst, strconv.FormatFloat(f, 'g', -1, 64))
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64)
	case types.String:
		return appendJSONString(dst, v.S)
	case types.Timestamp:
		dst = append(dst, '"')
		return append(appendTimestamp(dst, v.I), '"')
	case types.Interval:
		return appendJSONString(dst, types.FormatIntervalValue(v))
	case types.Decimal: // a JSON number, every digit kept
		return types.AppendDecimal(dst, v)
	case types.Date:
		return appendJSONString(dst, types.FormatDate(v.I))
	case types.TimestampTZ: // with its offset: an instant
		return appendJSONString(dst, types.FormatTimestampTZ(v.I, time.UTC))
	case types.Time:
		return appendJSONString(dst, types.FormatTime(v.I))
	case types.JSONB: // nested, as it is
		return append(dst, v.S...)
	}
	return append(dst, "null"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string (RFC 8259 escaping; valid
// UTF-8 passes through, so it stays readable).
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// JSONValue converts one parsed JSON value to col's type by the rules of
// the package doc (null gives NULL).
func JSONValue(col types.Column, v *fastjson.Value) (types.Value, error) {
	switch {
	case v.Type() == fastjson.TypeNull:
		return types.NullValue, nil
	case col.Type != types.String:
		return jsonValue(col, v)
	case v.Type() == fastjson.TypeString:
		return types.StringValue(string(v.GetStringBytes())), nil
	}
	return types.StringValue(string(v.MarshalTo(nil))), nil
}

// appendTimestamp appends types.FormatTimestamp(us) without allocating:
// 'YYYY-MM-DD HH:MM:SS' plus the non-zero fraction, trailing zeros trimmed.
func appendTimestamp(dst []byte, us int64) []byte {
	t := time.UnixMicro(us).UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return append(dst, types.FormatTimestamp(us)...)
	}
	h, mi, sec := t.Clock()
	dst = appendDigits(dst, y, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, int(mo), 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, d, 2)
	dst = append(dst, ' ')
	dst = appendDigits(dst, h, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, mi, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, sec, 2)
	frac := t.Nanosecond() / 1000
	if frac == 0 {
		return dst
	}
	n := 6
	for frac%10 == 0 {
		frac /= 10
		n--
	}
	dst = append(dst, '.')
	return appendDigits(dst, frac, n)
}

// appendDigits appends v zero-padded to width digits.
func appendDigits(dst []byte, v, width int) []byte {
	var buf [8]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:width]...)
}
