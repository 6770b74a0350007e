package format

import (
	"errors"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// CSVDecoder decodes one CSV line per record (see the package doc). With
// a header it implements HeaderSetter. Not safe for concurrent use.
type CSVDecoder struct {
	schema    types.Schema
	delim     byte
	useHeader bool
	// fieldCol maps field position → column (or -1) once a header is set;
	// nil means the fields are the columns in order.
	fieldCol []int
	rows     rowAlloc
	fields   []csvField
	scratch  []byte
}

// csvField is one split field: its text (unescaped) and whether it was
// quoted (a quoted empty field is the empty string, an unquoted one NULL).
type csvField struct {
	text   []byte
	quoted bool
}

var errNoHeader = errors.New("csv: no header yet (csv.header = true needs SetHeader before Decode)")

func newCSVDecoder(schema types.Schema, delim byte, header bool) *CSVDecoder {
	return &CSVDecoder{schema: schema, delim: delim, useHeader: header, rows: rowAlloc{width: len(schema)}}
}

// SetHeader maps field positions to columns by name, case-insensitively;
// names that are no column are skipped.
func (d *CSVDecoder) SetHeader(names []string) error {
	ix := newColumnIndex(d.schema)
	m := make([]int, len(names))
	seen := make(map[int]bool, len(names))
	for i, n := range names {
		m[i] = ix.find([]byte(strings.TrimSpace(n)))
		if m[i] >= 0 {
			if seen[m[i]] {
				return fmt.Errorf("csv header: column %s appears twice", d.schema[m[i]].Name)
			}
			seen[m[i]] = true
		}
	}
	d.fieldCol = m
	return nil
}

// SetHeaderLine splits line (a trailing newline is ignored) and calls
// SetHeader with the field texts.
func (d *CSVDecoder) SetHeaderLine(line []byte) error {
	fields, err := d.split(trimEOL(line))
	if err != nil {
		return fmt.Errorf("csv header: %w", err)
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = string(f.text)
	}
	return d.SetHeader(names)
}

// Decode splits record into fields and converts them.
func (d *CSVDecoder) Decode(record []byte) (types.Row, error) {
	if d.useHeader && d.fieldCol == nil {
		return nil, errNoHeader
	}
	fields, err := d.split(trimEOL(record))
	if err != nil {
		return nil, err
	}
	if d.fieldCol == nil && len(fields) != len(d.schema) {
		return nil, fmt.Errorf("csv record has %d fields, want %d (%s)", len(fields), len(d.schema), strings.Join(d.schema.Names(), ", "))
	}
	if d.fieldCol != nil && len(fields) != len(d.fieldCol) {
		return nil, fmt.Errorf("csv record has %d fields, the header %d", len(fields), len(d.fieldCol))
	}
	row := d.rows.next()
	for i, f := range fields {
		c := i
		if d.fieldCol != nil {
			c = d.fieldCol[i]
			if c < 0 {
				continue
			}
		}
		if len(f.text) == 0 && !f.quoted {
			continue // NULL
		}
		col := d.schema[c]
		if col.Type == types.String {
			row[c] = types.StringValue(string(f.text))
			continue
		}
		v, err := parseText(col, f.text, "field")
		if err != nil {
			clear(row)
			return nil, err
		}
		row[c] = v
	}
	return row, nil
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// split cuts a line into fields. Unquoted fields alias line; quoted ones
// are unescaped into the decoder's scratch buffer. The result is valid
// until the next call.
func (d *CSVDecoder) split(line []byte) ([]csvField, error) {
	d.fields = d.fields[:0]
	d.scratch = d.scratch[:0]
	type span struct{ start, end int } // quoted field text in scratch
	var quotedAt []int                 // index into fields of quoted ones
	var spans []span
	i := 0
	for {
		if i < len(line) && line[i] == '"' {
			start := len(d.scratch)
			i++
			for {
				if i >= len(line) {
					return nil, errors.New("csv: unterminated quoted field")
				}
				c := line[i]
				if c == '"' {
					if i+1 < len(line) && line[i+1] == '"' {
						d.scratch = append(d.scratch, '"')
						i += 2
						continue
					}
					i++
					break
				}
				d.scratch = append(d.scratch, c)
				i++
			}
			if i < len(line) && line[i] != d.delim {
				return nil, fmt.Errorf("csv: unexpected %q after a quoted field", line[i])
			}
			quotedAt = append(quotedAt, len(d.fields))
			spans = append(spans, span{start, len(d.scratch)})
			d.fields = append(d.fields, csvField{quoted: true})
		} else {
			j := i
			for j < len(line) && line[j] != d.delim {
				if line[j] == '"' {
					return nil, errors.New("csv: quote inside an unquoted field")
				}
				j++
			}
			d.fields = append(d.fields, csvField{text: line[i:j]})
			i = j
		}
		if i >= len(line) {
			break
		}
		i++ // the delimiter
	}
	// scratch may have moved while growing: slice it only now.
	for k, fi := range quotedAt {
		d.fields[fi].text = d.scratch[spans[k].start:spans[k].end]
	}
	return d.fields, nil
}
