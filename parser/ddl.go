package parser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// createSource parses CREATE SOURCE / CREATE TABLE name [(elements)]
// [WITH (options)].
func (p *stmtParser) createSource(c *cursor) (Stmt, *sqlerr.Error) {
	s := &CreateSourceStmt{StmtBase: p.base(c.toks)}
	c.next()
	s.IsTable = c.next().is("TABLE")
	s.IfNotExists = c.accept("IF", "NOT", "EXISTS")
	var err *sqlerr.Error
	if s.Name, _, err = c.name("a name"); err != nil {
		return nil, err
	}
	if c.peek(0).isOp("(") {
		if err := c.sourceElements(s); err != nil {
			return nil, err
		}
	}
	if s.Options, err = c.withOptions(); err != nil {
		return nil, err
	}
	return s, c.done()
}

// sourceElements parses the parenthesised columns, PRIMARY KEY and
// WATERMARK of a source.
func (c *cursor) sourceElements(s *CreateSourceStmt) *sqlerr.Error {
	open := c.next()
	var pkTok token
	seen := map[string]bool{}
	for {
		t := c.peek(0)
		switch {
		case t.is("PRIMARY") && c.peek(1).is("KEY"):
			c.i += 2
			if s.PrimaryKey != nil {
				return c.errAt(t, "the primary key is declared twice")
			}
			names, err := c.nameList("a key column")
			if err != nil {
				return err
			}
			s.PrimaryKey, pkTok = names, t
		case t.is("WATERMARK") && c.peek(1).is("FOR"):
			if s.Watermark != nil {
				return c.errAt(t, "a source has one WATERMARK")
			}
			w, err := c.watermark()
			if err != nil {
				return err
			}
			s.Watermark = w
		default:
			col, err := c.columnDef()
			if err != nil && t.is("WATERMARK") {
				return c.errAt(t, "expected WATERMARK FOR col AS col - INTERVAL '<n>' <unit>")
			}
			if err != nil {
				return err
			}
			key := strings.ToLower(col.Name)
			if seen[key] {
				return c.p.src.syntaxErr(col.Pos.Offset, max(c.end, c.limit), fmt.Sprintf("column %q is declared twice", col.Name))
			}
			seen[key] = true
			if col.PrimaryKey {
				if s.PrimaryKey != nil {
					return c.p.src.syntaxErr(col.Pos.Offset, max(c.end, c.limit), "the primary key is declared twice")
				}
				s.PrimaryKey = []string{col.Name}
			}
			s.Columns = append(s.Columns, col)
		}
		if c.acceptOp(")") {
			break
		}
		if !c.acceptOp(",") {
			return c.errAt(c.peek(0), `expected "," or ")"`)
		}
	}
	if len(s.Columns) == 0 {
		return c.errAt(open, "expected at least one column")
	}
	return c.checkSource(s, pkTok)
}

// checkSource checks that the key and watermark columns exist and marks
// the key columns.
func (c *cursor) checkSource(s *CreateSourceStmt, pkTok token) *sqlerr.Error {
	find := func(name string) int {
		for i, col := range s.Columns {
			if strings.EqualFold(col.Name, name) {
				return i
			}
		}
		return -1
	}
	for _, k := range s.PrimaryKey {
		i := find(k)
		if i < 0 {
			return c.p.src.syntaxErr(pkTok.off, max(c.end, c.limit), fmt.Sprintf("key column %q is not declared", k))
		}
		s.Columns[i].PrimaryKey = true
	}
	if w := s.Watermark; w != nil {
		if i := find(w.Column); i < 0 {
			return c.p.src.syntaxErr(w.Pos.Offset, max(c.end, c.limit), fmt.Sprintf("watermark column %q is not declared", w.Column))
		} else if s.Columns[i].Type != types.Timestamp {
			return c.p.src.syntaxErr(w.Pos.Offset, max(c.end, c.limit), fmt.Sprintf("watermark column %q must be a TIMESTAMP", w.Column))
		}
	}
	return nil
}

// nameList parses ( name, ... ).
func (c *cursor) nameList(what string) ([]string, *sqlerr.Error) {
	if err := c.expectOp("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		n, _, err := c.name(what)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if c.acceptOp(")") {
			return out, nil
		}
		if err := c.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// watermark parses WATERMARK FOR col AS col [- INTERVAL ...].
func (c *cursor) watermark() (*WatermarkClause, *sqlerr.Error) {
	const form = "expected WATERMARK FOR col AS col - INTERVAL '<n>' <unit>"
	t := c.next()
	c.next() // FOR
	w := &WatermarkClause{Pos: c.p.src.pos(t.off)}
	var err *sqlerr.Error
	if w.Column, _, err = c.name("the event-time column"); err != nil {
		return nil, err
	}
	if !c.accept("AS") {
		return nil, c.errAt(c.peek(0), form)
	}
	col, ct, err := c.name("the event-time column")
	if err != nil {
		return nil, c.errAt(ct, form)
	}
	if !strings.EqualFold(col, w.Column) {
		return nil, c.errAt(ct, fmt.Sprintf("the watermark must be %s minus an interval (bounded out-of-orderness)", w.Column))
	}
	if c.peek(0).isOp(",") || c.peek(0).isOp(")") {
		return w, nil
	}
	if !c.acceptOp("-") {
		return nil, c.errAt(c.peek(0), form)
	}
	if w.Delay, err = c.interval(true); err != nil {
		return nil, err
	}
	return w, nil
}

// columnDef parses name [type] [AS INGESTION_TIME() | AS PROCTIME() |
// AS (expression)] [NOT NULL | NULL] [PRIMARY KEY].
func (c *cursor) columnDef() (ColumnDef, *sqlerr.Error) {
	var col ColumnDef
	name, nt, err := c.name("a column name")
	if err != nil {
		return col, err
	}
	col.Name, col.Pos = name, c.p.src.pos(nt.off)
	hasType := !c.peek(0).is("AS")
	if hasType {
		if err = c.columnType(&col); err != nil {
			return col, err
		}
	}
	if hasType && c.peek(0).is("AS") && c.peek(1).isOp("(") {
		c.next()
		if err := c.computed(&col); err != nil {
			return col, err
		}
	} else if c.accept("AS") {
		g := c.peek(0)
		switch {
		case g.is("INGESTION_TIME"):
			col.Generated = IngestionTime
		case g.is("PROCTIME"):
			col.Generated = ProcTime
		default:
			return col, c.errAt(g, "expected INGESTION_TIME() or PROCTIME()")
		}
		c.next()
		if err := c.expectOp("("); err != nil {
			return col, err
		}
		if err := c.expectOp(")"); err != nil {
			return col, err
		}
		if hasType && col.Type != types.Timestamp {
			return col, c.errAt(g, "a generated time column must be a TIMESTAMP")
		}
		col.Type = types.Timestamp
	} else if !hasType {
		return col, c.errAt(c.peek(0), "expected a column type")
	}
	if !c.accept("NOT", "NULL") {
		c.accept("NULL")
	}
	if c.accept("PRIMARY", "KEY") {
		col.PrimaryKey = true
	}
	return col, nil
}

// computed parses the (expression) of a computed column at the cursor:
// parsed as `SELECT expression`, so it takes every operator and function
// a query does; the planner binds it over the source's other columns.
func (c *cursor) computed(col *ColumnDef) *sqlerr.Error {
	open := c.next()
	depth, end := 1, -1
	for k := c.i; k < len(c.toks) && end < 0; k++ {
		switch {
		case c.toks[k].isOp("("):
			depth++
		case c.toks[k].isOp(")"):
			if depth--; depth == 0 {
				end = k
			}
		}
	}
	if end < 0 || end == c.i {
		return c.errAt(open, "expected (expression) after AS")
	}
	text := c.p.src.text[c.toks[c.i].off:c.toks[end-1].end]
	q, err := ParseExpr(text)
	if err != nil {
		return &sqlerr.Error{Code: sqlerr.Code(err), Msg: "in the expression of column " + col.Name, Err: err, Pos: c.p.src.pos(c.toks[c.i].off)}
	}
	col.Generated, col.Expr = Computed, q
	col.ExprText = strings.TrimPrefix(q.Restore(), "SELECT ")
	c.i = end + 1
	return nil
}

// ParseExpr parses one scalar expression (a computed column's), as the
// query `SELECT expression`, whose one field the planner binds.
func ParseExpr(text string) (*QueryStmt, error) {
	stmts, err := Parse("SELECT " + text)
	if err != nil {
		return nil, err
	}
	if len(stmts) == 1 {
		if q, ok := stmts[0].(*QueryStmt); ok {
			if sel, ok := q.Select.(*ast.SelectStmt); ok && sel.From == nil && sel.Fields != nil &&
				len(sel.Fields.Fields) == 1 && sel.Fields.Fields[0].Expr != nil && sel.Where == nil {
				return q, nil
			}
		}
	}
	return nil, sqlerr.New(sqlerr.SyntaxError, "expected one expression, got %q", text)
}

// columnType parses a column type and maps it to a kind (and a
// DECIMAL's precision and scale) in col.
func (c *cursor) columnType(col *ColumnDef) *sqlerr.Error {
	t := c.next()
	if t.kind != tIdent {
		return c.errAt(t, "expected a column type")
	}
	var k types.Kind
	switch strings.ToUpper(t.text) {
	case "BIGINT", "INT", "INTEGER", "SMALLINT", "TINYINT", "INT2", "INT4", "INT8":
		k = types.Int
	case "DOUBLE":
		c.accept("PRECISION")
		k = types.Float
	case "FLOAT", "FLOAT4", "FLOAT8", "REAL":
		k = types.Float
	case "DECIMAL", "NUMERIC":
		k = types.Decimal
	case "VARCHAR", "TEXT", "CHAR", "STRING":
		k = types.String
	case "CHARACTER":
		c.accept("VARYING")
		k = types.String
	case "TIMESTAMP", "DATETIME":
		k = types.Timestamp
	case "TIMESTAMPTZ":
		k = types.TimestampTZ
	case "TIME":
		k = types.Time
	case "DATE":
		k = types.Date
	case "BOOLEAN", "BOOL":
		k = types.Bool
	case "INTERVAL":
		k = types.Interval
	case "JSONB":
		k = types.JSONB
	case "BYTEA":
		k = types.Bytea
	default:
		return c.typeErr(t)
	}
	col.Type = k
	switch {
	case k == types.Decimal && c.peek(0).isOp("("):
		p, s, err := c.decimalArgs()
		if err != nil {
			return err
		}
		col.Precision, col.Scale = p, s
	case c.peek(0).isOp("(") && k != types.Bool && k != types.Interval && k != types.Date && k != types.JSONB && k != types.TimestampTZ && k != types.Bytea:
		if err := c.typeArgs(); err != nil {
			return err
		}
	}
	if (k == types.Timestamp || k == types.Time) && (c.peek(0).is("WITH") || c.peek(0).is("WITHOUT")) && c.peek(1).is("TIME") && c.peek(2).is("ZONE") {
		if c.peek(0).is("WITH") {
			if k == types.Time {
				return c.errAt(c.peek(0), "type TIME WITH TIME ZONE is not supported")
			}
			col.Type = types.TimestampTZ
		}
		c.i += 3
	}
	if c.peek(0).isOp("[") && c.peek(1).isOp("]") { // an array of k
		if col.Precision > 0 {
			return c.p.src.unsupported(c.peek(0).off, "DECIMAL(p,s)[] (use NUMERIC[])")
		}
		if !types.ArrayElemOK(col.Type) {
			return c.p.src.unsupported(c.peek(0).off, "arrays of "+col.Type.String())
		}
		c.i += 2
		col.Type = types.ArrayOf(col.Type)
	}
	return nil
}

// decimalArgs parses the (p) or (p, s) of a DECIMAL, with Postgres's
// limits: 1 <= p <= 1000 and 0 <= s <= p.
func (c *cursor) decimalArgs() (precision, scale int, err *sqlerr.Error) {
	c.next()
	pt := c.next()
	p, perr := strconv.Atoi(pt.text)
	if pt.kind != tNumber || perr != nil || p < 1 || p > types.MaxDecimalPrecision {
		return 0, 0, c.errAt(pt, fmt.Sprintf("NUMERIC precision must be between 1 and %d", types.MaxDecimalPrecision))
	}
	if c.acceptOp(")") {
		return p, 0, nil
	}
	if err := c.expectOp(","); err != nil {
		return 0, 0, err
	}
	st := c.next()
	s, serr := strconv.Atoi(st.text)
	if st.kind != tNumber || serr != nil || s < 0 || s > p {
		return 0, 0, c.errAt(st, fmt.Sprintf("NUMERIC scale must be between 0 and precision %d", p))
	}
	return p, s, c.expectOp(")")
}

// knownTypes are SQL types streamsql does not (yet) have: naming one is
// FeatureNotSupport, any other unknown word a syntax error.
var knownTypes = map[string]bool{
	"TIME": true, "JSON": true, "BLOB": true,
	"BINARY": true, "VARBINARY": true, "UUID": true, "ARRAY": true, "MAP": true, "ROW": true,
	"STRUCT": true, "BIT": true, "MONEY": true, "YEAR": true, "ENUM": true, "SET": true,
	"UNSIGNED": true, "SIGNED": true, "INTERVAL": true,
}

// typeErr reports the type name t that is not one of ours.
func (c *cursor) typeErr(t token) *sqlerr.Error {
	if knownTypes[strings.ToUpper(t.text)] {
		return c.p.src.unsupported(t.off, "type "+strings.ToUpper(t.text))
	}
	return c.errAt(t, "expected a type name")
}

// typeArgs skips the (n) or (p, s) of a type.
func (c *cursor) typeArgs() *sqlerr.Error {
	c.next()
	for {
		if t := c.next(); t.kind != tNumber {
			return c.errAt(t, "expected a number")
		}
		if c.acceptOp(")") {
			return nil
		}
		if err := c.expectOp(","); err != nil {
			return err
		}
	}
}

// withOptions parses an optional WITH (key = value, ...). Keys may be
// dotted or quoted and are lower-cased; values are strings, numbers or
// words and are kept as text.
func (c *cursor) withOptions() ([]Option, *sqlerr.Error) {
	if !c.accept("WITH") {
		return nil, nil
	}
	if err := c.expectOp("("); err != nil {
		return nil, err
	}
	var out []Option
	seen := map[string]bool{}
	for {
		kt := c.peek(0)
		key, err := c.optionKey()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, c.errAt(kt, fmt.Sprintf("option %q is given twice", key))
		}
		seen[key] = true
		if err := c.expectOp("="); err != nil {
			return nil, err
		}
		val, err := c.optionValue()
		if err != nil {
			return nil, err
		}
		out = append(out, Option{Name: key, Value: val, Pos: c.p.src.pos(kt.off)})
		if c.acceptOp(")") {
			return out, nil
		}
		if err := c.expectOp(","); err != nil {
			return nil, c.errAt(c.peek(0), `expected "," or ")"`)
		}
	}
}

// optionKey parses key, a.b.c, "key" or 'key'.
func (c *cursor) optionKey() (string, *sqlerr.Error) {
	t := c.next()
	switch t.kind {
	case tString, tQIdent:
		return strings.ToLower(t.val()), nil
	case tIdent:
	default:
		return "", c.errAt(t, "expected an option name")
	}
	key := t.text
	for c.peek(0).isOp(".") && c.peek(1).kind == tIdent && c.peek(0).off == c.toks[c.i-1].end {
		key += "." + c.peek(1).text
		c.i += 2
	}
	return strings.ToLower(key), nil
}

// optionValue parses 'text', a number (maybe signed) or a word.
func (c *cursor) optionValue() (string, *sqlerr.Error) {
	t := c.next()
	switch {
	case t.kind == tString || t.kind == tIdent:
		return t.val(), nil
	case t.kind == tNumber:
		return t.text, nil
	case (t.isOp("-") || t.isOp("+")) && c.peek(0).kind == tNumber:
		n := c.next()
		return strings.TrimPrefix(t.text, "+") + n.text, nil
	}
	return "", c.errAt(t, "expected a value: a quoted string, a number or a word")
}

// createSink parses CREATE SINK [IF NOT EXISTS] name FROM view [WITH (...)].
func (p *stmtParser) createSink(c *cursor) (Stmt, *sqlerr.Error) {
	s := &CreateSinkStmt{StmtBase: p.base(c.toks)}
	c.i += 2
	s.IfNotExists = c.accept("IF", "NOT", "EXISTS")
	var err *sqlerr.Error
	if s.Name, _, err = c.name("a sink name"); err != nil {
		return nil, err
	}
	if c.accept("AS") {
		return p.sinkQuery(c, s)
	}
	if err := c.expect("FROM"); err != nil {
		return nil, err
	}
	if s.From, _, err = c.name("the view the sink reads"); err != nil {
		return nil, err
	}
	if s.Options, err = c.withOptions(); err != nil {
		return nil, err
	}
	return s, c.done()
}

// sinkQuery parses the rest of CREATE SINK name AS query [streaming
// clauses] WITH (...): the query ends at the last top-level WITH that is
// followed by a parenthesis.
func (p *stmtParser) sinkQuery(c *cursor, s *CreateSinkStmt) (Stmt, *sqlerr.Error) {
	rest := c.toks[c.i:]
	with, depth := -1, 0
	for k, t := range rest {
		switch {
		case t.isOp("("):
			depth++
		case t.isOp(")"):
			depth--
		}
		if depth == 0 && t.is("WITH") && k+1 < len(rest) && rest[k+1].isOp("(") && k > 0 {
			with = k
		}
	}
	body := rest
	if with >= 0 {
		body = rest[:with]
	}
	if len(body) == 0 {
		return nil, c.errAt(c.peek(0), "expected a query")
	}
	split, clauses, clauseErr := p.splitClauses(body, c.end)
	if split == 0 {
		return nil, c.errAt(body[0], "expected a query")
	}
	var errs errList
	errs.add(clauseErr)
	var err *sqlerr.Error
	if s.Query, err = p.parseQuery(body[:split], c.end, errs); err != nil {
		return nil, err
	}
	s.Streaming = clauses
	c.i += len(body)
	if s.Options, err = c.withOptions(); err != nil {
		return nil, err
	}
	return s, c.done()
}

// objectKind parses SOURCE, TABLE, MATERIALIZED VIEW, VIEW or SINK, singular or
// (for SHOW) plural.
func (c *cursor) objectKind(plural bool) ObjectKind {
	s := ""
	if plural {
		s = "S"
	}
	switch {
	case c.accept("SOURCE" + s):
		return ObjSource
	case c.accept("TABLE" + s):
		return ObjTable
	case c.accept("SINK" + s):
		return ObjSink
	case c.accept("MATERIALIZED", "VIEW"+s):
		return ObjView
	case c.accept("VIEW" + s):
		return ObjPlainView
	}
	return 0
}

// drop parses DROP kind [IF EXISTS] name.
func (p *stmtParser) drop(c *cursor) (Stmt, *sqlerr.Error) {
	s := &DropStmt{StmtBase: p.base(c.toks)}
	c.next()
	if s.Kind = c.objectKind(false); s.Kind == 0 {
		return nil, c.errAt(c.peek(0), "expected SOURCE, TABLE, MATERIALIZED VIEW, VIEW or SINK")
	}
	s.IfExists = c.accept("IF", "EXISTS")
	var err *sqlerr.Error
	if s.Name, _, err = c.name("a name"); err != nil {
		return nil, err
	}
	return s, c.done()
}

// show parses SHOW SOURCES | TABLES | MATERIALIZED VIEWS | SINKS | setting.
func (p *stmtParser) show(c *cursor) (Stmt, *sqlerr.Error) {
	s := &ShowStmt{StmtBase: p.base(c.toks)}
	c.next()
	if c.peek(0).is("TIME") && c.peek(1).is("ZONE") {
		c.i += 2
		s.Setting = "timezone"
		return s, c.done()
	}
	if s.Kind = c.objectKind(true); s.Kind == 0 {
		name, _, err := c.name("SOURCES, TABLES, MATERIALIZED VIEWS, VIEWS, SINKS or a setting")
		if err != nil {
			return nil, err
		}
		s.Setting = strings.ToLower(name)
	}
	return s, c.done()
}

// describe parses DESCRIBE name (or DESC name).
func (p *stmtParser) describe(c *cursor) (Stmt, *sqlerr.Error) {
	s := &DescribeStmt{StmtBase: p.base(c.toks)}
	c.next()
	var err *sqlerr.Error
	if s.Name, _, err = c.name("the name of a source, table, view or sink"); err != nil {
		return nil, err
	}
	return s, c.done()
}

// set parses SET name = value, SET name TO value and SET TIME ZONE value
// (the setting timezone).
func (p *stmtParser) set(c *cursor) (Stmt, *sqlerr.Error) {
	s := &SetStmt{StmtBase: p.base(c.toks)}
	c.next()
	if c.peek(0).is("SESSION") && c.peek(1).isName() && !c.peek(1).is("TO") {
		c.next()
	}
	if c.peek(0).is("TIME") && c.peek(1).is("ZONE") {
		c.i += 2
		s.Name = "timezone"
		var err *sqlerr.Error
		if s.Value, err = c.optionValue(); err != nil {
			return nil, err
		}
		return s, c.done()
	}
	name, _, err := c.name("a setting name")
	if err != nil {
		return nil, err
	}
	s.Name = strings.ToLower(name)
	if !c.acceptOp("=") && !c.accept("TO") {
		return nil, c.errAt(c.peek(0), `expected "=" or TO`)
	}
	if s.Value, err = c.optionValue(); err != nil {
		return nil, err
	}
	return s, c.done()
}
