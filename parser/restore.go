package parser

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"

	"github.com/streamsql/streamsql/types"
)

// restoreFlags make TiDB write SQL our Parse reads back: "double-quoted"
// names, ” strings without charset introducers, upper-case keywords.
const restoreFlags = format.RestoreStringSingleQuotes | format.RestoreKeyWordUppercase |
	format.RestoreNameDoubleQuotes | format.RestoreStringWithoutCharset |
	format.RestoreSpacesAroundBinaryOperation

// restoreNode renders a TiDB node and puts back what the pass took out:
// window calls for their placeholders, * for StarArg, BOOLEAN for the
// TypeTiny casts (TiDB writes `CAST(x AS )` for them) and JSONB for the
// JSON casts (the only JSON the pass lets through is JSONB), and quotes
// the JSONB operators' call names (`->`(a, b)), which TiDB writes bare,
// names the JSONB aggregates as Postgres does, and writes FULL JOIN for
// FullJoinMarker.
func restoreNode(n ast.Node, windows []*WindowTVFClause) string {
	var b strings.Builder
	if err := n.Restore(format.NewRestoreCtx(restoreFlags, &b)); err != nil {
		return fmt.Sprintf("/* cannot restore: %v */", err)
	}
	out := separateMinuses(b.String())
	lx := lex(out)
	rw := &rewriter{src: out, limit: len(out)}
	for i, t := range lx.toks {
		switch {
		case t.kind == tIdent && strings.EqualFold(t.text, SetFuncMarker):
			restoreSetFunc(rw, lx.toks, i)
		case t.kind == tQIdent && t.val() == StarArg:
			rw.edits = append(rw.edits, edit{t.off, t.end, "*"}) // unpadded
		case t.kind == tQIdent:
			for _, w := range windows {
				if t.val() == w.Placeholder {
					rw.replace(t.off, t.end, restoreWindow(w))
				}
			}
		case t.is("AS") && i+1 < len(lx.toks) && lx.toks[i+1].isOp(")"):
			rw.replace(lx.toks[i+1].off, lx.toks[i+1].end, "BOOLEAN)")
		case isJSONOp(t) || t.isOp("||"):
			rw.replace(t.off, t.end, "`"+t.text+"`")
		case t.isOp("[") && i+2 < len(lx.toks) && lx.toks[i+1].isOp("]") && lx.toks[i+2].isOp("("):
			rw.replace(t.off, lx.toks[i+1].end, "`"+SubscriptFunc+"`")
		case (t.is("ARRAY") || t.is("CARDINALITY") || t.is("SIMILAR_TO")) && i+1 < len(lx.toks) && lx.toks[i+1].isOp("("):
			rw.replace(t.off, t.end, "`"+strings.ToLower(t.text)+"`")
		case t.kind == tIdent && i+1 < len(lx.toks) && lx.toks[i+1].isOp("(") && (t.is("JSON_ARRAYAGG") || t.is("JSON_OBJECTAGG")):
			rw.replace(t.off, t.end, map[bool]string{true: "jsonb_agg", false: "jsonb_object_agg"}[t.is("JSON_ARRAYAGG")])
		case t.kind == tIdent && t.is(FullJoinMarker):
			rw.edits = append(rw.edits, edit{t.off, t.end, "FULL JOIN"}) // unpadded
		case t.is("AS") && i+2 < len(lx.toks) && lx.toks[i+1].is("JSON") && lx.toks[i+2].isOp(")"):
			rw.replace(lx.toks[i+1].off, lx.toks[i+1].end, "JSONB")
		}
	}
	s, _ := rw.build()
	return s
}

// separateMinuses puts a space between two minus signs outside quotes:
// TiDB renders `- -x` as `--x`, which reads back as a comment.
func separateMinuses(s string) string {
	if !strings.Contains(s, "--") {
		return s
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte(c)
		switch {
		case quote != 0:
			if c == quote {
				quote = 0 // a doubled quote reopens at once
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// restoreWindow renders a window TVF call.
func restoreWindow(w *WindowTVFClause) string {
	args := []string{quoteName(w.Source), quoteName(w.TimeColumn)}
	if w.Query != nil {
		args[0] = "(" + w.Query.Restore() + ")"
	}
	switch w.Kind {
	case Tumble:
		return fmt.Sprintf("TUMBLE(%s, %s, %s)", args[0], args[1], formatInterval(w.Size))
	case Hop:
		return fmt.Sprintf("HOP(%s, %s, %s, %s)", args[0], args[1], formatInterval(w.Slide), formatInterval(w.Size))
	case Session:
		return fmt.Sprintf("SESSION(%s, %s, %s)", args[0], args[1], formatInterval(w.Gap))
	}
	return fmt.Sprintf("/* unknown window kind %d */", w.Kind)
}

// quoteName writes an identifier in double quotes.
func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString writes a string literal in single quotes.
func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

var plainKey = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$`)

// restoreOptions renders WITH (...), or "" when there are no options.
func restoreOptions(opts []Option) string {
	if len(opts) == 0 {
		return ""
	}
	parts := make([]string, len(opts))
	for i, o := range opts {
		k := o.Name
		if !plainKey.MatchString(k) {
			k = quoteString(k)
		}
		parts[i] = k + " = " + quoteString(o.Value)
	}
	return " WITH (" + strings.Join(parts, ", ") + ")"
}

func ifNotExists(b bool) string {
	if b {
		return " IF NOT EXISTS"
	}
	return ""
}

// Restore implements Stmt.
func (s *CreateSourceStmt) Restore() string {
	var b strings.Builder
	b.WriteString("CREATE SOURCE")
	if s.IsTable {
		b.Reset()
		b.WriteString("CREATE TABLE")
	}
	b.WriteString(ifNotExists(s.IfNotExists) + " " + quoteName(s.Name))
	var elems []string
	for _, c := range s.Columns {
		elems = append(elems, restoreColumn(c, len(s.PrimaryKey) == 1))
	}
	if len(s.PrimaryKey) > 1 {
		keys := make([]string, len(s.PrimaryKey))
		for i, k := range s.PrimaryKey {
			keys[i] = quoteName(k)
		}
		elems = append(elems, "PRIMARY KEY ("+strings.Join(keys, ", ")+")")
	}
	if w := s.Watermark; w != nil {
		wm := "WATERMARK FOR " + quoteName(w.Column) + " AS " + quoteName(w.Column)
		if w.Delay != 0 {
			wm += " - " + formatInterval(w.Delay)
		}
		elems = append(elems, wm)
	}
	if len(elems) > 0 {
		b.WriteString(" (" + strings.Join(elems, ", ") + ")")
	}
	b.WriteString(restoreOptions(s.Options))
	return b.String()
}

// restoreColumn renders one column; the key is written on the column when
// it is the only key column.
func restoreColumn(c ColumnDef, singleKey bool) string {
	s := quoteName(c.Name)
	switch c.Generated {
	case ProcTime:
		s += " AS PROCTIME()"
	case IngestionTime:
		s += " TIMESTAMP AS INGESTION_TIME()"
	case Computed:
		s += " " + types.Column{Type: c.Type, Precision: c.Precision, Scale: c.Scale}.TypeName() + " AS (" + c.ExprText + ")"
	default:
		s += " " + types.Column{Type: c.Type, Precision: c.Precision, Scale: c.Scale}.TypeName()
	}
	if c.PrimaryKey && singleKey {
		s += " PRIMARY KEY"
	}
	return s
}

// Restore implements Stmt.
func (s *QueryStmt) Restore() string { return restoreNode(s.Select, s.Windows) }

// Restore implements Stmt.
func (s *CreateViewStmt) Restore() string {
	var b strings.Builder
	b.WriteString("CREATE MATERIALIZED VIEW" + ifNotExists(s.IfNotExists) + " " + quoteName(s.Name) + " AS ")
	if s.Query != nil {
		b.WriteString(s.Query.Restore())
	}
	b.WriteString(restoreClauses(s.Streaming))
	return b.String()
}

// Restore implements Stmt.
func (s *CreatePlainViewStmt) Restore() string {
	r := "CREATE VIEW" + ifNotExists(s.IfNotExists) + " " + quoteName(s.Name) + " AS "
	if s.Query != nil {
		r += s.Query.Restore()
	}
	return r
}

// Restore implements Stmt.
func (s *CreateSinkStmt) Restore() string {
	head := "CREATE SINK" + ifNotExists(s.IfNotExists) + " " + quoteName(s.Name)
	if s.Query != nil {
		return head + " AS " + s.Query.Restore() + restoreClauses(s.Streaming) + restoreOptions(s.Options)
	}
	return head + " FROM " + quoteName(s.From) + restoreOptions(s.Options)
}

// Restore implements Stmt.
func (s *InsertStmt) Restore() string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + quoteName(s.Table))
	if s.Partition != "" {
		b.WriteString(" PARTITION (" + quoteName(s.Partition) + ")")
	}
	if len(s.Columns) > 0 {
		cols := make([]string, len(s.Columns))
		for i, c := range s.Columns {
			cols[i] = quoteName(c)
		}
		b.WriteString(" (" + strings.Join(cols, ", ") + ")")
	}
	if s.Query != nil {
		return b.String() + " " + s.Query.Restore()
	}
	b.WriteString(" VALUES ")
	for i, row := range s.Rows {
		if i > 0 {
			b.WriteString(", ")
		}
		vals := make([]string, len(row))
		for j, e := range row {
			vals[j] = restoreNode(e, nil)
		}
		b.WriteString("(" + strings.Join(vals, ", ") + ")")
	}
	return b.String()
}

// objectWord names an object kind in DROP (singular) or SHOW (plural).
func objectWord(k ObjectKind, plural bool) string {
	var w string
	switch k {
	case ObjSource:
		w = "SOURCE"
	case ObjTable:
		w = "TABLE"
	case ObjView:
		w = "MATERIALIZED VIEW"
	case ObjSink:
		w = "SINK"
	case ObjPlainView:
		w = "VIEW"
	default:
		return fmt.Sprintf("ObjectKind(%d)", uint8(k))
	}
	if plural {
		w += "S"
	}
	return w
}

// Restore implements Stmt.
func (s *DropStmt) Restore() string {
	r := "DROP " + objectWord(s.Kind, false)
	if s.IfExists {
		r += " IF EXISTS"
	}
	return r + " " + quoteName(s.Name)
}

// Restore implements Stmt.
func (s *ShowStmt) Restore() string {
	if s.Kind == 0 {
		return "SHOW " + quoteName(s.Setting)
	}
	return "SHOW " + objectWord(s.Kind, true)
}

// Restore implements Stmt.
func (s *DescribeStmt) Restore() string { return "DESCRIBE " + quoteName(s.Name) }

// Restore implements Stmt.
func (s *ExplainStmt) Restore() string {
	out := "EXPLAIN"
	if s.Analyze {
		out += " ANALYZE"
	}
	switch {
	case s.View != "":
		return out + " " + quoteName(s.View)
	case s.Stmt == nil:
		return out
	}
	return out + " " + s.Stmt.Restore()
}

// Restore implements Stmt.
func (s *FlushStmt) Restore() string { return "FLUSH" }

// Restore implements Stmt.
func (s *SetStmt) Restore() string { return "SET " + quoteName(s.Name) + " = " + quoteString(s.Value) }

// restoreClauses renders a view's (or sink's) streaming clauses.
func restoreClauses(sc StreamingClauses) string {
	var b strings.Builder
	if sc.AllowedLateness != nil {
		b.WriteString(" ALLOWED LATENESS " + formatInterval(*sc.AllowedLateness))
	}
	if ld := sc.LateData; ld != nil {
		b.WriteString(" LATE DATA ")
		switch ld.Policy {
		case LateDrop:
			b.WriteString("DROP")
		case LateUpdate:
			b.WriteString("UPDATE")
		case LateSideOutput:
			b.WriteString("SIDE OUTPUT " + quoteName(ld.SideTable))
		case LateUpdateSideOutput:
			b.WriteString("UPDATE SIDE OUTPUT " + quoteName(ld.SideTable))
		case LateUnset:
		}
	}
	if e := sc.Emit; e != nil {
		switch e.Mode {
		case EmitOnWindowClose:
			b.WriteString(" EMIT ON WINDOW CLOSE")
		case EmitOnUpdate:
			b.WriteString(" EMIT ON UPDATE")
		case EmitEvery:
			b.WriteString(" EMIT EVERY " + formatInterval(e.Every))
		case EmitUnset:
		}
	}
	if sc.StateTTL != nil {
		b.WriteString(" STATE TTL " + formatInterval(*sc.StateTTL))
	}
	return b.String()
}

// Restore implements Stmt.
func (s *CreateFunctionStmt) Restore() string {
	r := "CREATE "
	if s.OrReplace {
		r += "OR REPLACE "
	}
	prms := make([]string, len(s.Params))
	for i, prm := range s.Params {
		prms[i] = prm.Type.TypeName()
		if prm.Name != "" {
			prms[i] = quoteName(prm.Name) + " " + prms[i]
		}
	}
	return r + "FUNCTION " + quoteName(s.Name) + "(" + strings.Join(prms, ", ") + ") RETURNS " +
		s.Returns.TypeName() + " LANGUAGE SQL IMMUTABLE RETURN " + s.BodyText
}

// Restore implements Stmt.
func (s *DropFunctionStmt) Restore() string {
	r := "DROP FUNCTION "
	if s.IfExists {
		r += "IF EXISTS "
	}
	r += quoteName(s.Name)
	if s.Args != nil {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = a.TypeName()
		}
		r += "(" + strings.Join(args, ", ") + ")"
	}
	return r
}
