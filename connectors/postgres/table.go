package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/streamsql/streamsql/types"
)

// pgType is the column type create_table uses for a view column.
func pgType(k types.Kind) string {
	if k.IsArray() {
		return pgType(k.Elem()) + "[]"
	}
	switch k {
	case types.Bool:
		return "BOOLEAN"
	case types.Int:
		return "BIGINT"
	case types.Float:
		return "DOUBLE PRECISION"
	case types.Timestamp:
		return "TIMESTAMP"
	case types.TimestampTZ:
		return "TIMESTAMPTZ"
	case types.Time:
		return "TIME"
	case types.Interval:
		return "INTERVAL"
	case types.Decimal:
		return "NUMERIC"
	case types.Date:
		return "DATE"
	case types.JSONB:
		return "JSONB"
	case types.Bytea:
		return "BYTEA"
	}
	return "TEXT" // String, and NULL-typed columns
}

// columnType is pgType with a DECIMAL(p, s) column's precision and scale:
// NUMERIC(12,2).
func columnType(c types.Column) string {
	if c.Type == types.Decimal && c.Precision > 0 {
		return fmt.Sprintf("NUMERIC(%d,%d)", c.Precision, c.Scale)
	}
	return pgType(c.Type)
}

// arrayType is the array type the sink sends a view column's values as.
func arrayType(k types.Kind) string {
	switch k {
	case types.Bool:
		return "bool[]"
	case types.Int:
		return "int8[]"
	case types.Float:
		return "float8[]"
	case types.Timestamp:
		return "timestamp[]"
	case types.TimestampTZ:
		return "timestamptz[]"
	case types.Time:
		return "time[]"
	case types.Interval:
		return "interval[]"
	case types.Decimal:
		return "numeric[]"
	case types.Date:
		return "date[]"
	case types.JSONB:
		return "jsonb[]"
	case types.Bytea:
		return "bytea[]"
	}
	return "text[]"
}

// compatible reports whether a column of type oid accepts a view column of
// kind k through Postgres's assignment casts without losing meaning.
// Narrower numeric types are accepted; a value out of their range is a
// (permanent) write error. A DECIMAL goes only into numeric: a double
// would round it. A DATE also goes into timestamps (its midnight). A
// JSONB goes only into jsonb: the write compares the target's values with
// the staged jsonb ones, and json and text have no = with jsonb. A BYTEA
// goes only into bytea, and an array only into its element type's array
// type, for the same reason.
func compatible(k types.Kind, oid uint32) bool {
	if k.IsArray() { // only the element type's own array type
		oids, known := arrayOIDs[k.Elem()]
		return known && oid == oids[1]
	}
	var ok []uint32
	switch k {
	case types.Bool:
		ok = []uint32{types.OIDBool}
	case types.Int:
		ok = []uint32{types.OIDInt8, types.OIDInt4, types.OIDInt2, types.OIDNumeric, types.OIDFloat8}
	case types.Float:
		ok = []uint32{types.OIDFloat8, types.OIDFloat4, types.OIDNumeric}
	case types.Timestamp:
		ok = []uint32{types.OIDTimestamp, types.OIDTimestampTZ}
	case types.TimestampTZ: // an instant: a timestamp column would take the sink session's wall time
		ok = []uint32{types.OIDTimestampTZ}
	case types.Time:
		ok = []uint32{types.OIDTime}
	case types.Interval:
		ok = []uint32{types.OIDInterval}
	case types.Decimal:
		ok = []uint32{types.OIDNumeric}
	case types.Date:
		ok = []uint32{types.OIDDate, types.OIDTimestamp, types.OIDTimestampTZ}
	case types.JSONB:
		ok = []uint32{types.OIDJSONB}
	case types.Bytea:
		ok = []uint32{types.OIDBytea}
	default:
		ok = []uint32{types.OIDText, types.OIDVarchar, types.OIDBpchar}
	}
	return slices.Contains(ok, oid)
}

// createTableSQL creates the target table with the view's columns and the
// primary key (none for a keyless view).
func createTableSQL(c *config) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS ")
	b.WriteString(pgx.Identifier(c.table).Sanitize())
	b.WriteString(" (")
	for i, col := range c.schema {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteIdent(col.Name))
		b.WriteByte(' ')
		b.WriteString(columnType(col))
	}
	if len(c.key) > 0 {
		b.WriteString(", PRIMARY KEY (")
		b.WriteString(quoteIdents(c.keyNames()))
		b.WriteByte(')')
	}
	b.WriteByte(')')
	if c.fillfactor > 0 && c.fillfactor < 100 {
		fmt.Fprintf(&b, " WITH (fillfactor = %d)", c.fillfactor)
	}
	return b.String()
}

// pgColumn is one column of an existing table.
type pgColumn struct {
	name       string
	typeName   string // format_type(): "text", "double precision", ...
	oid        uint32
	typmod     int32 // atttypmod: numeric(p,s) is ((p << 16) | s) + 4, -1 for none
	notNull    bool
	hasDefault bool
}

// tableInfo is what the fit check needs from the catalog.
type tableInfo struct {
	name    string // schema.table as resolved
	columns []pgColumn
	uniques [][]string // columns of each unique, non-partial, plain index
}

// errNoTable is returned by loadTable when the table does not exist.
var errNoTable = errors.New("table does not exist")

// loadTable reads the table's columns and unique indexes.
func loadTable(ctx context.Context, conn *pgx.Conn, table []string) (*tableInfo, error) {
	var oid uint32
	var ti tableInfo
	err := conn.QueryRow(ctx, `SELECT c.oid, n.nspname || '.' || c.relname
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.oid = to_regclass($1)`, pgx.Identifier(table).Sanitize()).Scan(&oid, &ti.name)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNoTable
	}
	if err != nil {
		return nil, fmt.Errorf("look up table: %w", err)
	}
	rows, err := conn.Query(ctx, `SELECT attname::text, format_type(atttypid, atttypmod), atttypid, atttypmod, attnotnull,
			atthasdef OR attidentity <> '' OR attgenerated <> ''
		FROM pg_attribute WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, oid)
	if err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	for rows.Next() {
		var c pgColumn
		if err := rows.Scan(&c.name, &c.typeName, &c.oid, &c.typmod, &c.notNull, &c.hasDefault); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read columns: %w", err)
		}
		ti.columns = append(ti.columns, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	rows, err = conn.Query(ctx, `SELECT ARRAY(SELECT a.attname::text FROM unnest(i.indkey) k
			JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k)
		FROM pg_index i WHERE i.indrelid = $1 AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL`, oid)
	if err != nil {
		return nil, fmt.Errorf("read indexes: %w", err)
	}
	for rows.Next() {
		var cols []string
		if err := rows.Scan(&cols); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read indexes: %w", err)
		}
		ti.uniques = append(ti.uniques, cols)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read indexes: %w", err)
	}
	return &ti, nil
}

// checkFit says everything about the table that does not fit the view:
// missing columns, incompatible types, NOT NULL columns the sink cannot
// fill, and a missing primary key or unique index on exactly the key.
func checkFit(ti *tableInfo, schema types.Schema, key []string) error {
	var missing, problems []string
	byName := map[string]pgColumn{}
	for _, c := range ti.columns {
		byName[c.name] = c
	}
	inView := map[string]bool{}
	for _, vc := range schema {
		inView[vc.Name] = true
		pc, ok := byName[vc.Name]
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("table %s has no column %s", ti.name, vc.Name))
		case !compatible(vc.Type, pc.oid):
			problems = append(problems, fmt.Sprintf("column %s is %s, the view's column is %s", vc.Name, pc.typeName, vc.Type))
		case !numericFits(vc, pc):
			problems = append(problems, fmt.Sprintf("column %s is %s, too narrow for the view's %s (Postgres would round or refuse its values)",
				vc.Name, pc.typeName, vc.TypeName()))
		}
	}
	for _, pc := range ti.columns {
		if pc.notNull && !pc.hasDefault && !inView[pc.name] {
			problems = append(problems, fmt.Sprintf("column %s is NOT NULL without a default and the view has no such column", pc.name))
		}
	}
	if len(key) > 0 && !hasUnique(ti.uniques, key) {
		problems = append(problems, fmt.Sprintf("no primary key or unique constraint on (%s)%s", strings.Join(key, ", "), uniquesHint(ti.uniques)))
	}
	problems = append(missing, problems...)
	if len(problems) == 0 {
		return nil
	}
	msg := strings.Join(problems, "; ")
	if !strings.HasPrefix(msg, "table ") {
		msg = "table " + ti.name + ": " + msg
	}
	return errors.New(msg)
}

// numericFits reports whether a numeric(p, s) column holds every value
// of a view's DECIMAL(p2, s2) column unchanged: s2 <= s and p2 - s2 <= p
// - s. An unconstrained side fits (a sum has no declared scale; values
// beyond the column are then write errors, not silent changes).
func numericFits(vc types.Column, pc pgColumn) bool {
	if vc.Type != types.Decimal || vc.Precision == 0 || pc.oid != types.OIDNumeric || pc.typmod < 4 {
		return true
	}
	p, s := int(pc.typmod-4)>>16, int(pc.typmod-4)&0xffff
	return vc.Scale <= s && vc.Precision-vc.Scale <= p-s
}

func hasUnique(uniques [][]string, key []string) bool {
	want := slices.Sorted(slices.Values(key))
	for _, u := range uniques {
		if slices.Equal(slices.Sorted(slices.Values(u)), want) {
			return true
		}
	}
	return false
}

func uniquesHint(uniques [][]string) string {
	if len(uniques) == 0 {
		return ""
	}
	s := make([]string, len(uniques))
	for i, u := range uniques {
		s[i] = "(" + strings.Join(u, ", ") + ")"
	}
	return " (it has unique keys on " + strings.Join(s, ", ") + "; set primary_key to one of them)"
}

// progressTable is the progress table's name, in the target's schema.
func progressTable(table []string) []string {
	if len(table) == 2 {
		return []string{table[0], progressName}
	}
	return []string{progressName}
}

func createProgressSQL(table []string) string {
	return "CREATE TABLE IF NOT EXISTS " + pgx.Identifier(progressTable(table)).Sanitize() +
		" (sink TEXT PRIMARY KEY, checkpoint BIGINT NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())"
}
