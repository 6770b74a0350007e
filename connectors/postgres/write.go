package postgres

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// statements is the SQL a sink sends, built once from its config.
type statements struct {
	stage          string // creates the transaction's staging table
	copy           string // COPY into the staging table
	upsert         string // from the staging table; ON CONFLICT by key
	merge          string // the same as one MERGE (Postgres 15+); "" without a key
	delete         string // key columns as arrays
	progress       string // $1 sink, $2 checkpoint
	readProgress   string // $1 sink; locks the row
	laneProgress   string // $1 sink: every lane row of the sink (name, name#i)
	dropProgress   string // $1 names
	createProgress string
}

func buildStatements(c *config) statements {
	table := pgx.Identifier(c.table).Sanitize()
	names := c.schema.Names()
	var st statements

	st.stage = stageSQL(c.schema)
	st.copy = "COPY " + stageTable + " FROM STDIN (FORMAT binary)"
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s AS streamsql_t (%s) SELECT %s FROM %s", table, quoteIdents(names), quoteIdents(names), stageTable)
	if len(c.key) > 0 {
		fmt.Fprintf(&b, " ON CONFLICT (%s) DO ", quoteIdents(c.keyNames()))
		var set, old, upd []string
		for i, n := range names {
			if !isKey(c.key, i) {
				q := quoteIdent(n)
				set = append(set, q)
				old = append(old, "streamsql_t."+q)
				upd = append(upd, "EXCLUDED."+q)
			}
		}
		if len(set) == 0 {
			b.WriteString("NOTHING")
		} else {
			// Rows that already hold the values (a replay) are left alone:
			// no new row version, no WAL.
			fmt.Fprintf(&b, "UPDATE SET (%s) = ROW(%s) WHERE (%s) IS DISTINCT FROM (%s)",
				strings.Join(set, ", "), strings.Join(upd, ", "), strings.Join(old, ", "), strings.Join(upd, ", "))
		}
	}
	st.upsert = b.String()
	st.merge = buildMerge(c, table, names)

	if len(c.key) > 0 {
		keys := c.keyNames()
		conds := make([]string, len(keys))
		for i, k := range keys {
			conds[i] = "streamsql_t." + quoteIdent(k) + " = streamsql_d." + quoteIdent(k)
		}
		st.delete = fmt.Sprintf("DELETE FROM %s AS streamsql_t USING unnest(%s) AS streamsql_d(%s) WHERE %s",
			table, arrayParams(c.schema, c.key), quoteIdents(keys), strings.Join(conds, " AND "))
	}

	prog := pgx.Identifier(progressTable(c.table)).Sanitize()
	st.progress = "INSERT INTO " + prog + " (sink, checkpoint, updated_at) VALUES ($1, $2, now()) " +
		"ON CONFLICT (sink) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, updated_at = EXCLUDED.updated_at"
	st.readProgress = "SELECT checkpoint FROM " + prog + " WHERE sink = $1 FOR UPDATE"
	st.laneProgress = "SELECT sink, checkpoint FROM " + prog + " WHERE sink = $1 OR (left(sink, length($1) + 1) = $1 || '#' AND substr(sink, length($1) + 2) ~ '^[0-9]+$')"
	st.dropProgress = "DELETE FROM " + prog + " WHERE sink = ANY($1::text[])"
	st.createProgress = createProgressSQL(c.table)
	return st
}

func isKey(key []int, i int) bool {
	for _, k := range key {
		if k == i {
			return true
		}
	}
	return false
}

// arrayParams is "$1::int8[], $2::text[], ..." for the given columns.
func arrayParams(schema types.Schema, cols []int) string {
	p := make([]string, len(cols))
	for i, c := range cols {
		p[i] = fmt.Sprintf("$%d::%s", i+1, arrayType(schema[c].Type))
	}
	return strings.Join(p, ", ")
}

// splitChanges separates changes (collapsed: one change per key) into
// upserts and deletes; a delete needs a key. Without deletes the upserts
// are changes itself, not a copy (a checkpoint's million changes would
// be copied slice growth by slice growth).
func splitChanges(c *config, changes []connectors.Change) (ups, dels []connectors.Change, err error) {
	if !slices.ContainsFunc(changes, func(ch connectors.Change) bool { return ch.Op == connectors.Delete }) {
		return changes, nil, nil
	}
	for _, ch := range changes {
		if ch.Op == connectors.Delete {
			dels = append(dels, ch)
		} else {
			ups = append(ups, ch)
		}
	}
	if len(dels) > 0 && len(c.key) == 0 {
		return nil, nil, permanent(fmt.Errorf("the view has no key and no primary_key option is set, so a delete (%s) cannot be applied", dels[0].Row))
	}
	return ups, dels, nil
}

func queueChunks(b *pgx.Batch, c *config, sql string, cols []int, changes []connectors.Change) error {
	for len(changes) > 0 {
		n := min(len(changes), c.batchRows)
		args, err := columnArrays(c.schema, cols, changes[:n])
		if err != nil {
			return permanent(err)
		}
		b.Queue(sql, args...)
		changes = changes[n:]
	}
	return nil
}

// at is row[c], or NULL when the row is shorter.
func at(row types.Row, c int) types.Value {
	if c < len(row) {
		return row[c]
	}
	return types.Value{}
}

// stageTable is the temporary table a transaction COPYs its upserts into
// (the session's own temporary schema, so no user table is in the way).
const stageTable = "pg_temp.streamsql_stage"

// stageSQL creates the staging table with the view's column types (the
// types COPY's binary rows carry; the upsert's assignment casts then
// convert them to the target's, as for a statement's parameters). It is
// dropped at the end of the transaction, committed or not.
func stageSQL(schema types.Schema) string {
	cols := make([]string, len(schema))
	for i, col := range schema {
		cols[i] = quoteIdent(col.Name) + " " + pgType(col.Type)
	}
	return "CREATE TEMP TABLE " + stageTable + " (" + strings.Join(cols, ", ") + ") ON COMMIT DROP"
}

// buildMerge is the upsert as MERGE, which Postgres 15 runs as one join of
// the batch with the table: new keys become plain inserts and existing
// ones updates, instead of a speculative insertion per row (measured on
// this machine: new keys about 1.5x faster than ON CONFLICT, existing
// keys the same or better). The batch holds each key once (changes are
// collapsed), as MERGE requires. Unlike ON CONFLICT it does not wait out
// a concurrent insert of the same key — the sink is the table's only
// writer (a concurrent writer gets a unique violation, not lost data).
func buildMerge(c *config, table string, names []string) string {
	if len(c.key) == 0 {
		return ""
	}
	src := make([]string, len(names))
	for i, n := range names {
		src[i] = "streamsql_s." + quoteIdent(n)
	}
	on := make([]string, len(c.key))
	for i, k := range c.keyNames() {
		on[i] = "streamsql_t." + quoteIdent(k) + " = streamsql_s." + quoteIdent(k)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "MERGE INTO %s AS streamsql_t USING %s AS streamsql_s ON %s",
		table, stageTable, strings.Join(on, " AND "))
	var set, old, upd []string
	for i, n := range names {
		if !isKey(c.key, i) {
			q := quoteIdent(n)
			set = append(set, q+" = streamsql_s."+q)
			old = append(old, "streamsql_t."+q)
			upd = append(upd, "streamsql_s."+q)
		}
	}
	if len(set) > 0 {
		fmt.Fprintf(&b, " WHEN MATCHED AND (%s) IS DISTINCT FROM (%s) THEN UPDATE SET %s",
			strings.Join(old, ", "), strings.Join(upd, ", "), strings.Join(set, ", "))
	}
	fmt.Fprintf(&b, " WHEN NOT MATCHED THEN INSERT (%s) VALUES (%s)", quoteIdents(names), strings.Join(src, ", "))
	return b.String()
}

// useMerge decides per connection whether upserts are MERGE; a variable
// so tests can run the ON CONFLICT path on a Postgres 15 server too.
var useMerge = supportsMerge

// supportsMerge reports whether the server runs Postgres 15 or later.
func supportsMerge(conn *pgx.Conn) bool {
	v := conn.PgConn().ParameterStatus("server_version")
	major := 0
	for _, r := range v {
		if r < '0' || r > '9' {
			break
		}
		major = major*10 + int(r-'0')
	}
	return major >= 15
}
