package pgwire

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// COPY is how psql's \copy and drivers' bulk APIs (pgx.CopyFrom) move
// many rows: COPY t FROM STDIN appends rows to a memory source or table
// the way INSERT does, and COPY {t | (query)} TO STDOUT streams a view's
// or a query's rows out. Formats: text (the default), csv and binary, as
// Postgres defines them. Only the simple query protocol carries COPY, as
// in Postgres.

// errExtendedCopy refuses COPY sent with Parse/Bind/Execute.
var errExtendedCopy = errNotSupported("COPY in the extended query protocol (send it as a simple query, as psql and pgx do)")

// copyBatchRows is how many rows COPY FROM inserts at a time; rows of
// batches before a bad row stay inserted (there are no transactions).
const copyBatchRows = 10_000

// copyStmt is a parsed COPY statement.
type copyStmt struct {
	table    string   // COPY table ...
	columns  []string // (col, ...), nil for all
	query    string   // COPY (query) TO ...
	from     bool     // FROM STDIN, else TO STDOUT
	format   string   // text, csv, binary
	header   bool
	delim    byte
	null     string
	delimSet bool // DELIMITER given (csv defaults to a comma, text to a tab)
}

// copyLexer splits a COPY statement into words, quoted identifiers,
// string literals and punctuation; a parenthesised query stays whole.
type copyLexer struct {
	s   string
	pos int
}

type copyToken struct {
	kind byte // 'w' word, 'i' quoted identifier, 's' string, 'q' (query), or the punctuation itself
	text string
}

func (l *copyLexer) next() (copyToken, error) {
	for l.pos < len(l.s) && strings.IndexByte(" \t\r\n;", l.s[l.pos]) >= 0 {
		l.pos++
	}
	if l.pos >= len(l.s) {
		return copyToken{}, nil
	}
	c := l.s[l.pos]
	switch {
	case c == ',' || c == ')':
		l.pos++
		return copyToken{kind: c, text: string(c)}, nil
	case c == '(':
		l.pos++
		return copyToken{kind: '('}, nil
	case c == '"' || c == '\'':
		var b strings.Builder
		for i := l.pos + 1; i < len(l.s); i++ {
			if l.s[i] == c {
				if i+1 < len(l.s) && l.s[i+1] == c {
					b.WriteByte(c)
					i++
					continue
				}
				l.pos = i + 1
				kind := byte('i')
				if c == '\'' {
					kind = 's'
				}
				return copyToken{kind: kind, text: b.String()}, nil
			}
			b.WriteByte(l.s[i])
		}
		return copyToken{}, pgError(codeSyntax, "unterminated quoted string in COPY")
	}
	start := l.pos
	for l.pos < len(l.s) && strings.IndexByte(" \t\r\n;,()'\"", l.s[l.pos]) < 0 {
		l.pos++
	}
	return copyToken{kind: 'w', text: l.s[start:l.pos]}, nil
}

// query returns the text up to the parenthesis closing one already read.
func (l *copyLexer) query() (string, error) {
	depth, start := 1, l.pos
	end := -1
	scanSQL(l.s[start:], func(s, e int) bool {
		for i := s; i < e; i++ {
			switch l.s[start+i] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					end = start + i
					return false
				}
			}
		}
		return true
	})
	if end < 0 {
		return "", pgError(codeSyntax, "COPY (query) has no closing parenthesis")
	}
	l.pos = end + 1
	return strings.TrimSpace(l.s[start:end]), nil
}

// parseCopy parses COPY t [(cols)] FROM STDIN [options] and
// COPY {t [(cols)] | (query)} TO STDOUT [options], options in the WITH
// (...) form or the older bare words (BINARY, CSV, HEADER, DELIMITER 'c',
// NULL 's').
func parseCopy(sql string) (*copyStmt, error) {
	l := &copyLexer{s: sql}
	tok := func() (copyToken, error) { return l.next() }
	t, err := tok()
	if err != nil || !strings.EqualFold(t.text, "copy") {
		return nil, pgError(codeSyntax, "not a COPY statement")
	}
	c := &copyStmt{format: "text", delim: '\t', null: `\N`}
	if t, err = tok(); err != nil {
		return nil, err
	}
	switch t.kind {
	case '(':
		if c.query, err = l.query(); err != nil {
			return nil, err
		}
	case 'w', 'i':
		c.table = t.text
		if t.kind == 'w' {
			c.table = strings.ToLower(t.text)
		}
	default:
		return nil, pgError(codeSyntax, "COPY needs a table name or a (query)")
	}
	if t, err = tok(); err != nil {
		return nil, err
	}
	if t.kind == '(' && c.query == "" {
		for {
			if t, err = tok(); err != nil {
				return nil, err
			}
			switch t.kind {
			case 'w':
				c.columns = append(c.columns, strings.ToLower(t.text))
			case 'i':
				c.columns = append(c.columns, t.text)
			default:
				return nil, pgError(codeSyntax, "COPY column list: expected a column name")
			}
			if t, err = tok(); err != nil {
				return nil, err
			}
			if t.kind == ')' {
				break
			}
			if t.kind != ',' {
				return nil, pgError(codeSyntax, "COPY column list: expected , or )")
			}
		}
		if t, err = tok(); err != nil {
			return nil, err
		}
	}
	dir := strings.ToLower(t.text)
	where, err := tok()
	if err != nil {
		return nil, err
	}
	switch {
	case dir == "from" && strings.EqualFold(where.text, "stdin"):
		c.from = true
		if c.query != "" {
			return nil, pgError(codeSyntax, "COPY (query) can only be TO STDOUT")
		}
	case dir == "to" && strings.EqualFold(where.text, "stdout"):
	case dir == "from" || dir == "to":
		return nil, pgError(sqlerr.FeatureNotSupport, "COPY "+strings.ToUpper(dir)+" a file or program is not supported: the server reads no files; use STDIN/STDOUT (psql's \\copy does)")
	default:
		return nil, pgError(codeSyntax, "COPY: expected FROM STDIN or TO STDOUT")
	}
	if err := c.parseOptions(l); err != nil {
		return nil, err
	}
	if c.format == "csv" && c.null == `\N` {
		c.null = ""
	}
	if c.format == "csv" && !c.delimSet {
		c.delim = ','
	}
	return c, nil
}

func (c *copyStmt) parseOptions(l *copyLexer) error {
	t, err := l.next()
	if err != nil {
		return err
	}
	if strings.EqualFold(t.text, "with") {
		if t, err = l.next(); err != nil {
			return err
		}
	}
	if t.kind == '(' { // WITH (option value, ...)
		for {
			name, err := l.next()
			if err != nil {
				return err
			}
			val, err := l.next()
			if err != nil {
				return err
			}
			sep := val
			if val.kind != ',' && val.kind != ')' {
				if sep, err = l.next(); err != nil {
					return err
				}
			} else {
				val = copyToken{kind: 'w', text: "true"}
			}
			if err := c.option(strings.ToLower(name.text), val.text); err != nil {
				return err
			}
			if sep.kind == ')' {
				break
			}
			if sep.kind != ',' {
				return pgError(codeSyntax, "COPY options: expected , or )")
			}
		}
		t, err = l.next()
		if err != nil {
			return err
		}
		if t.kind != 0 {
			return pgError(codeSyntax, fmt.Sprintf("COPY: unexpected %q after the options", t.text))
		}
		return nil
	}
	for t.kind != 0 { // the older bare-word options
		w := strings.ToLower(t.text)
		switch w {
		case "binary", "csv":
			if err := c.option("format", w); err != nil {
				return err
			}
		case "header":
			c.header = true
		case "delimiter", "null":
			v, err := l.next()
			if err != nil {
				return err
			}
			if strings.EqualFold(v.text, "as") {
				if v, err = l.next(); err != nil {
					return err
				}
			}
			if err := c.option(w, v.text); err != nil {
				return err
			}
		default:
			return pgError(sqlerr.FeatureNotSupport, fmt.Sprintf("COPY option %q is not supported (FORMAT, HEADER, DELIMITER and NULL are)", t.text))
		}
		if t, err = l.next(); err != nil {
			return err
		}
	}
	return nil
}

func (c *copyStmt) option(name, val string) error {
	switch name {
	case "format":
		switch f := strings.ToLower(val); f {
		case "text", "csv", "binary":
			c.format = f
		default:
			return pgError(sqlerr.InvalidParameter, fmt.Sprintf("COPY format %q not recognized", val))
		}
	case "header":
		b, ok := types.ParseBool(val)
		if !ok {
			return pgError(sqlerr.InvalidParameter, fmt.Sprintf("COPY header requires a Boolean value, got %q", val))
		}
		c.header = b
	case "delimiter":
		if len(val) != 1 {
			return pgError(sqlerr.InvalidParameter, "COPY delimiter must be a single one-byte character")
		}
		c.delim, c.delimSet = val[0], true
	case "null":
		c.null = val
	default:
		return pgError(sqlerr.FeatureNotSupport, fmt.Sprintf("COPY option %q is not supported (FORMAT, HEADER, DELIMITER and NULL are)", name))
	}
	return nil
}

// copy runs a COPY statement of a simple query under a statement context
// (cancel and statement_timeout apply).
func (s *session) copy(sql string) error {
	c, err := parseCopy(sql)
	if err != nil {
		return err
	}
	ctx, done := s.statementContext()
	defer done()
	if c.from {
		return s.copyIn(ctx, c)
	}
	return s.copyOut(ctx, c)
}

// reCopyTarget is the statement pgx.CopyFrom describes to learn a COPY
// target's column types: select "a", "b" from "t" (or "schema"."t").
var reCopyTarget = regexp.MustCompile(`(?is)^\s*select\s+(.+?)\s+from\s+(?:"(?:[^"]|"")+"\.)?("(?:[^"]|"")+")\s*;?\s*$`)

// copyTargetColumns describes a COPY target the way a driver asks for it
// (reCopyTarget): a memory source cannot be queried, but its columns can
// be copied into, so describing that SELECT gives the columns COPY FROM
// takes. ok is false for any other statement.
func (s *session) copyTargetColumns(ctx context.Context, sql string) (cols []column, ok bool) {
	m := reCopyTarget.FindStringSubmatch(sql)
	if m == nil {
		return nil, false
	}
	var names []string
	l := &copyLexer{s: m[1]}
	for {
		t, err := l.next()
		if err != nil || t.kind != 'i' {
			return nil, false
		}
		names = append(names, t.text)
		if t, err = l.next(); err != nil || (t.kind != ',' && t.kind != 0) {
			return nil, false
		}
		if t.kind == 0 {
			break
		}
	}
	table := strings.ReplaceAll(m[2][1:len(m[2])-1], `""`, `"`)
	schema, err := s.srv.cfg.Engine.InsertSchema(ctx, table, names)
	if err != nil {
		return nil, false
	}
	return columnsOf(schema), true
}

// formatCodes are the overall and per-column format codes of the
// CopyOut/CopyInResponse for n columns: 1 for binary, else 0 (text).
func (c *copyStmt) formatCodes(n int) (byte, []uint16) {
	format := byte(0)
	if c.format == "binary" {
		format = 1
	}
	formats := make([]uint16, n)
	for i := range formats {
		formats[i] = uint16(format)
	}
	return format, formats
}

// binarySignature starts a binary COPY stream.
var binarySignature = []byte("PGCOPY\n\xff\r\n\x00")

// copyOut runs COPY ... TO STDOUT: the rows, then CommandComplete.
func (s *session) copyOut(ctx context.Context, c *copyStmt) error {
	q := c.query
	if q == "" {
		cols := "*"
		if len(c.columns) > 0 {
			quoted := make([]string, len(c.columns))
			for i, n := range c.columns {
				quoted[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
			}
			cols = strings.Join(quoted, ", ")
		}
		q = "SELECT " + cols + ` FROM "` + strings.ReplaceAll(c.table, `"`, `""`) + `"`
	}
	r, err := s.srv.cfg.Engine.Exec(ctx, q)
	if err != nil {
		return err
	}
	if r == nil || r.Schema == nil {
		return pgError(codeSyntax, "COPY (query) must be a query that returns rows")
	}
	cols := columnsOf(r.Schema)
	format, formats := c.formatCodes(len(cols))
	s.be.Send(&pgproto3.CopyOutResponse{OverallFormat: format, ColumnFormatCodes: formats})
	var buf []byte
	send := func() {
		s.be.Send(&pgproto3.CopyData{Data: buf})
		buf = nil
	}
	switch c.format {
	case "binary":
		buf = append(buf, binarySignature...)
		buf = binary.BigEndian.AppendUint32(buf, 0) // flags
		buf = binary.BigEndian.AppendUint32(buf, 0) // header extension
		send()
	case "csv":
		if c.header {
			for i, col := range cols {
				if i > 0 {
					buf = append(buf, c.delim)
				}
				buf = appendCSVField(buf, []byte(col.name), c)
			}
			buf = append(buf, '\n')
			send()
		}
	}
	var field []byte
	for n, row := range r.Rows {
		switch c.format {
		case "binary":
			buf = binary.BigEndian.AppendUint16(buf, uint16(len(cols)))
			for j, col := range cols {
				if j >= len(row) || row[j].IsNull() {
					buf = binary.BigEndian.AppendUint32(buf, 0xffffffff)
					continue
				}
				field = appendBinary(field[:0], col.oid, row[j])
				buf = binary.BigEndian.AppendUint32(buf, uint32(len(field)))
				buf = append(buf, field...)
			}
		default:
			for j, col := range cols {
				if j > 0 {
					buf = append(buf, c.delim)
				}
				if j >= len(row) || row[j].IsNull() {
					buf = append(buf, c.null...)
					continue
				}
				field = appendText(field[:0], col.oid, row[j], s.zone())
				if c.format == "csv" {
					buf = appendCSVField(buf, field, c)
				} else {
					buf = appendTextField(buf, field, c.delim)
				}
			}
			buf = append(buf, '\n')
		}
		send()
		if n%512 == 511 {
			if err := s.be.Flush(); err != nil {
				return err
			}
		}
	}
	if c.format == "binary" {
		buf = binary.BigEndian.AppendUint16(buf, 0xffff) // trailer
		send()
	}
	s.be.Send(&pgproto3.CopyDone{})
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("COPY " + strconv.Itoa(len(r.Rows)))})
	return nil
}

// appendTextField escapes a value for the text format: backslash, the
// delimiter, newline and carriage return.
func appendTextField(dst, v []byte, delim byte) []byte {
	for _, b := range v {
		switch b {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			if b == delim {
				dst = append(dst, '\\')
			}
			dst = append(dst, b)
		}
	}
	return dst
}

// appendCSVField quotes a value when it holds the delimiter, a quote, a
// line break, or equals the NULL string (so it reads back as itself).
func appendCSVField(dst, v []byte, c *copyStmt) []byte {
	if len(v) > 0 && bytes.IndexByte(v, c.delim) < 0 && !bytes.ContainsAny(v, "\"\r\n") && string(v) != c.null {
		return append(dst, v...)
	}
	if len(v) == 0 && c.null != "" {
		return dst
	}
	dst = append(dst, '"')
	for _, b := range v {
		if b == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, b)
	}
	return append(dst, '"')
}

// copyIn runs COPY ... FROM STDIN: CopyInResponse, then CopyData until
// CopyDone (or CopyFail), inserting copyBatchRows rows at a time.
func (s *session) copyIn(ctx context.Context, c *copyStmt) error {
	e := s.srv.cfg.Engine
	schema, err := e.InsertSchema(ctx, c.table, c.columns)
	if err != nil {
		return err
	}
	cols := columnsOf(schema)
	format, formats := c.formatCodes(len(cols))
	s.be.Send(&pgproto3.CopyInResponse{OverallFormat: format, ColumnFormatCodes: formats})
	if err := s.be.Flush(); err != nil {
		return err
	}
	p := &copyParser{c: c, cols: cols}
	total := 0
	var failed error
	insert := func() {
		if failed != nil || len(p.rows) == 0 {
			p.rows = p.rows[:0]
			return
		}
		if _, err := e.InsertRows(ctx, c.table, c.columns, p.rows); err != nil {
			failed = fmt.Errorf("COPY %s, before line %d: %w", c.table, p.line+1, err)
		} else {
			total += len(p.rows)
		}
		p.rows = p.rows[:0]
	}
	for {
		msg, err := s.be.Receive()
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			if failed != nil {
				continue // keep reading to CopyDone, as Postgres does
			}
			if err := p.feed(m.Data, false); err != nil {
				failed = err
				continue
			}
			if len(p.rows) >= copyBatchRows {
				insert()
			}
		case *pgproto3.CopyDone:
			if failed == nil {
				if err := p.feed(nil, true); err != nil {
					failed = err
				}
			}
			insert()
			if failed != nil {
				return failed
			}
			s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("COPY " + strconv.Itoa(total))})
			return nil
		case *pgproto3.CopyFail:
			return pgError(sqlerr.QueryCanceled, fmt.Sprintf("COPY from stdin failed: %s (%d rows were inserted before)", m.Message, total))
		case *pgproto3.Flush, *pgproto3.Sync:
			// allowed during COPY IN; nothing to do
		default:
			return pgError(codeProtocolViolation, fmt.Sprintf("unexpected message %T during COPY FROM STDIN", msg))
		}
	}
}

// copyParser turns COPY FROM data into rows of values, one column kind
// per column, holding an incomplete trailing line until more arrives.
type copyParser struct {
	c       *copyStmt
	cols    []column
	pending []byte
	line    int // lines (text/csv) or tuples (binary) consumed
	rows    [][]types.Value
	started bool // binary: the header was read
	ended   bool // the end marker (\. or the binary trailer) was read
}

// feed adds data; final says no more comes, so a last line without a
// newline is complete.
func (p *copyParser) feed(data []byte, final bool) error {
	p.pending = append(p.pending, data...)
	if p.c.format == "binary" {
		return p.binary(final)
	}
	for !p.ended {
		rec, rest, ok, err := p.record(final)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		p.pending = rest
		p.line++
		if p.c.header && p.line == 1 {
			continue
		}
		if err := p.row(rec); err != nil {
			return err
		}
	}
	if final && len(p.pending) > 0 && !p.ended {
		return pgError(sqlerr.BadCopyFormat, fmt.Sprintf("COPY %s, line %d: unterminated CSV quoted field", p.c.table, p.line+1))
	}
	return nil
}

// record splits off one line's fields (nil for the \. end marker); ok is
// false when no whole line is buffered yet.
func (p *copyParser) record(final bool) (fields [][]byte, rest []byte, ok bool, err error) {
	b := p.pending
	if len(b) == 0 {
		return nil, b, false, nil
	}
	if p.c.format == "csv" {
		return p.csvRecord(final)
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 && !final {
		return nil, b, false, nil
	}
	line, rest := b, b[len(b):]
	if i >= 0 {
		line, rest = b[:i], b[i+1:]
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	if string(line) == `\.` {
		p.ended = true
		return nil, rest, false, nil
	}
	fields = append(fields, bytes.Split(line, []byte{p.c.delim})...)
	// A backslash before the delimiter escaped it: rejoin such splits.
	var out [][]byte
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		for endsInOddBackslashes(f) && i+1 < len(fields) {
			i++
			f = append(append(append([]byte(nil), f...), p.c.delim), fields[i]...)
		}
		out = append(out, f)
	}
	return out, rest, true, nil
}

func endsInOddBackslashes(f []byte) bool {
	n := 0
	for i := len(f) - 1; i >= 0 && f[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// csvRecord splits one CSV record, which may span lines inside quotes
// (see csvField for how quoted fields are told apart).
func (p *copyParser) csvRecord(final bool) (fields [][]byte, rest []byte, ok bool, err error) {
	b := p.pending
	var field []byte
	quotedField := false
	inQuotes := false
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch {
		case inQuotes && ch == '"':
			if i+1 < len(b) && b[i+1] == '"' {
				field = append(field, '"')
				i++
			} else if i+1 >= len(b) && !final {
				return nil, b, false, nil // "" may continue in the next chunk
			} else {
				inQuotes = false
			}
		case inQuotes:
			field = append(field, ch)
		case ch == '"':
			inQuotes, quotedField = true, true
		case ch == p.c.delim:
			fields = append(fields, csvField(field, quotedField))
			field, quotedField = nil, false
		case ch == '\n':
			if len(fields) == 0 && !quotedField && string(field) == `\.` {
				p.ended = true
				return nil, b[i+1:], false, nil
			}
			fields = append(fields, csvField(bytes.TrimSuffix(field, []byte("\r")), quotedField))
			return fields, b[i+1:], true, nil
		default:
			field = append(field, ch)
		}
	}
	if !final || inQuotes {
		return nil, b, false, nil
	}
	fields = append(fields, csvField(field, quotedField))
	return fields, b[len(b):], true, nil
}

// csvField marks a quoted field so that "" stays an empty string while an
// unquoted empty field can be NULL: quoted fields get a leading 0xff byte
// that row strips (0xff never starts valid UTF-8).
func csvField(f []byte, quoted bool) []byte {
	if quoted {
		return append([]byte{0xff}, f...)
	}
	if f == nil {
		return []byte{}
	}
	return f
}

// row converts one text or CSV record to values.
func (p *copyParser) row(fields [][]byte) error {
	if len(fields) != len(p.cols) {
		return pgError(sqlerr.BadCopyFormat, fmt.Sprintf("COPY %s, line %d: %d columns, expected %d", p.c.table, p.line, len(fields), len(p.cols)))
	}
	vals := make([]types.Value, len(fields))
	for j, f := range fields {
		var s string
		switch {
		case p.c.format == "csv" && len(f) > 0 && f[0] == 0xff:
			s = string(f[1:])
		case string(f) == p.c.null:
			continue // NULL
		case p.c.format == "csv":
			s = string(f)
		default:
			var err error
			if s, err = unescapeText(f); err != nil {
				return pgError(sqlerr.InvalidParameter, fmt.Sprintf("COPY %s, line %d, column %s: %v", p.c.table, p.line, p.cols[j].name, err))
			}
		}
		v, err := decodeTextParam(p.cols[j].oid, s)
		if err != nil {
			return pgError(sqlerr.InvalidTextRepr, fmt.Sprintf("COPY %s, line %d, column %s: %v", p.c.table, p.line, p.cols[j].name, err))
		}
		vals[j] = v
	}
	p.rows = append(p.rows, vals)
	return nil
}

// unescapeText undoes the text format's backslash escapes.
func unescapeText(f []byte) (string, error) {
	if bytes.IndexByte(f, '\\') < 0 {
		return string(f), nil
	}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '\\' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch c := f[i]; c {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			n, j := 0, i+1
			for ; j < len(f) && j < i+3 && isHex(f[j]); j++ {
				n = n*16 + hexVal(f[j])
			}
			if j == i+1 {
				b.WriteByte('x')
				continue
			}
			b.WriteByte(byte(n))
			i = j - 1
		default:
			if c >= '0' && c <= '7' {
				n, j := 0, i
				for ; j < len(f) && j < i+3 && f[j] >= '0' && f[j] <= '7'; j++ {
					n = n*8 + int(f[j]-'0')
				}
				b.WriteByte(byte(n))
				i = j - 1
				continue
			}
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// binary reads the binary format: the signature and header once, then
// tuples (int16 field count, then per field an int32 length, -1 for
// NULL, and the bytes) until the -1 trailer.
func (p *copyParser) binary(final bool) error {
	b := p.pending
	fail := func(msg string) error {
		return pgError(sqlerr.BadCopyFormat, fmt.Sprintf("COPY %s, tuple %d: %s", p.c.table, p.line+1, msg))
	}
	if !p.started {
		if len(b) < len(binarySignature)+8 {
			if final {
				return fail("the binary COPY header is missing")
			}
			return nil
		}
		if !bytes.Equal(b[:len(binarySignature)], binarySignature) {
			return fail("the input does not start with the binary COPY signature")
		}
		ext := int(binary.BigEndian.Uint32(b[len(binarySignature)+4:]))
		if ext < 0 || len(b) < len(binarySignature)+8+ext {
			if final || ext < 0 {
				return fail("truncated binary COPY header")
			}
			return nil
		}
		b = b[len(binarySignature)+8+ext:]
		p.started = true
	}
	for !p.ended && len(b) >= 2 {
		n := int(int16(binary.BigEndian.Uint16(b)))
		if n == -1 {
			p.ended = true
			b = b[2:]
			break
		}
		if n != len(p.cols) {
			return fail(fmt.Sprintf("%d fields, expected %d", n, len(p.cols)))
		}
		off := 2
		vals := make([]types.Value, n)
		complete := true
		for j := 0; j < n; j++ {
			if len(b) < off+4 {
				complete = false
				break
			}
			l := int(int32(binary.BigEndian.Uint32(b[off:])))
			off += 4
			if l == -1 {
				continue
			}
			if l < 0 {
				return fail("negative field length")
			}
			if len(b) < off+l {
				complete = false
				break
			}
			v, err := decodeParam(p.cols[j].oid, 1, b[off:off+l])
			if err != nil {
				return fail(fmt.Sprintf("column %s: %v", p.cols[j].name, err))
			}
			vals[j] = v
			off += l
		}
		if !complete {
			break
		}
		b = b[off:]
		p.line++
		p.rows = append(p.rows, vals)
	}
	p.pending = append(p.pending[:0], b...)
	if final && len(p.pending) > 0 {
		return fail("truncated binary COPY data")
	}
	return nil
}
