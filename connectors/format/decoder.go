package format

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// Decoder turns one record (a JSON object, a CSV line) into a row in the
// schema's column order.
type Decoder interface {
	// Decode returns a new row; the error names the offending column.
	Decode(record []byte) (types.Row, error)
}

// HeaderSetter is implemented by the CSV decoder when csv.header = true:
// the connector passes the input's header before the first Decode.
type HeaderSetter interface {
	// SetHeader maps fields to columns by these names (case-insensitive).
	SetHeader(names []string) error
	// SetHeaderLine splits a raw header line with the decoder's delimiter
	// and quoting, then calls SetHeader.
	SetHeaderLine(line []byte) error
}

// Names lists the formats NewDecoder accepts.
var Names = []string{"json", "csv"}

// Options are the WITH options the decoders read; a connector that
// offers a format appends them to its own option specs.
var Options = []connectors.OptionSpec{
	{Name: "csv.header", Type: "bool", Default: "false", Doc: "With `format = 'csv'`: the input's first line names the fields, which then map to columns by name (case-insensitive); otherwise fields are the columns in order.", Example: "'true'"},
	{Name: "csv.delimiter", Type: "string", Default: ",", Doc: "With `format = 'csv'`: the one-byte field separator.", Example: "'|'"},
}

// NewDecoder returns the decoder of format name ("json" or "csv",
// case-insensitive) for rows of schema, configured by opts (see Options).
func NewDecoder(name string, schema types.Schema, opts connectors.Opts) (Decoder, error) {
	switch strings.ToLower(name) {
	case "json":
		return NewJSONDecoder(schema), nil
	case "csv":
		delim := opts.String("csv.delimiter")
		if delim == "" {
			delim = ","
		}
		if len(delim) != 1 || delim[0] == '"' || delim[0] == '\n' || delim[0] == '\r' {
			return nil, fmt.Errorf("option 'csv.delimiter' must be one byte other than a quote or newline, got %q", delim)
		}
		return newCSVDecoder(schema, delim[0], opts.Bool("csv.header")), nil
	}
	return nil, fmt.Errorf("unknown format '%s' (want %s)", name, strings.Join(Names, ", "))
}

// slabRows is how many rows one allocation of values serves.
const slabRows = 256

// rowAlloc hands out rows carved from a shared slab: one allocation per
// slabRows rows. A row's capacity is its length, so appending to one never
// touches its neighbour, and no row is ever handed out twice.
type rowAlloc struct {
	width int
	slab  []types.Value
}

func (a *rowAlloc) next() types.Row {
	if a.width == 0 {
		return types.Row{}
	}
	if len(a.slab) < a.width {
		a.slab = make([]types.Value, a.width*slabRows)
	}
	r := a.slab[:a.width:a.width]
	a.slab = a.slab[a.width:]
	return r
}

// columnIndex finds a column by name: exact first, then case-insensitive.
type columnIndex struct {
	exact map[string]int
	lower map[string]int
	buf   []byte
}

func newColumnIndex(schema types.Schema) columnIndex {
	ix := columnIndex{exact: make(map[string]int, len(schema)), lower: make(map[string]int, len(schema))}
	for i, c := range schema {
		ix.exact[c.Name] = i
		ix.lower[strings.ToLower(c.Name)] = i
	}
	return ix
}

// find returns the column named key, or -1.
func (ix *columnIndex) find(key []byte) int {
	if i, ok := ix.exact[string(key)]; ok {
		return i
	}
	ix.buf = ix.buf[:0]
	for _, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		ix.buf = append(ix.buf, c)
	}
	if i, ok := ix.lower[string(ix.buf)]; ok {
		return i
	}
	if i, ok := ix.lower[strings.ToLower(string(key))]; ok { // non-ASCII names
		return i
	}
	return -1
}

// typeError is the error of a value that does not fit its column.
func typeError(col types.Column, got string, raw []byte) error {
	const maxRaw = 64
	s := string(raw)
	if len(s) > maxRaw {
		s = s[:maxRaw] + "…"
	}
	if raw == nil {
		return fmt.Errorf("column %s: want %s, got %s", col.Name, col.Type, got)
	}
	return fmt.Errorf("column %s: want %s, got %s %q", col.Name, col.Type, got, s)
}

// Require wraps dec so that a record whose value for one of cols (the
// source's time column) is missing or NULL is a decode error, and so goes
// to the source's on_error policy instead of into the pipeline. It keeps
// dec's HeaderSetter. With no cols it returns dec.
func Require(dec Decoder, schema types.Schema, cols []int) Decoder {
	if len(cols) == 0 {
		return dec
	}
	r := required{dec: dec, schema: schema, cols: cols}
	if hs, ok := dec.(HeaderSetter); ok {
		return requiredHeader{required: r, hs: hs}
	}
	return r
}

type required struct {
	dec    Decoder
	schema types.Schema
	cols   []int
}

func (r required) Decode(record []byte) (types.Row, error) {
	row, err := r.dec.Decode(record)
	if err != nil {
		return nil, err
	}
	for _, c := range r.cols {
		if c < len(row) && row[c].IsNull() {
			return nil, fmt.Errorf("column %s: missing or null, and it is the source's time column", r.schema[c].Name)
		}
	}
	return row, nil
}

type requiredHeader struct {
	required
	hs HeaderSetter
}

func (r requiredHeader) SetHeader(names []string) error  { return r.hs.SetHeader(names) }
func (r requiredHeader) SetHeaderLine(line []byte) error { return r.hs.SetHeaderLine(line) }
