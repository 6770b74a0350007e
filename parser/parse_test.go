package parser

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

func i64(v int64) *int64 { return &v }

// parseOne parses sql and expects exactly one statement.
func parseOne(t *testing.T, sql string) Stmt {
	t.Helper()
	stmts, err := Parse(sql)
	if err != nil {
		t.Fatalf("Parse(%q): %v", sql, err)
	}
	if len(stmts) != 1 {
		t.Fatalf("Parse(%q): %d statements, want 1", sql, len(stmts))
	}
	checkRoundTrip(t, stmts[0])
	return stmts[0]
}

// checkRoundTrip checks that Restore parses back to the same Restore.
func checkRoundTrip(t *testing.T, s Stmt) {
	t.Helper()
	r := s.Restore()
	again, err := Parse(r)
	if err != nil {
		t.Fatalf("Parse(Restore) of %q: %v", r, err)
	}
	if len(again) != 1 || again[0].Restore() != r {
		t.Fatalf("round trip differs:\n%s\n%v", r, again)
	}
}

// stripPos zeroes the positions and texts so trees compare by content.
func stripPos(s Stmt) Stmt {
	switch x := s.(type) {
	case *CreateSourceStmt:
		c := *x
		c.StmtBase = StmtBase{}
		c.Columns = append([]ColumnDef(nil), x.Columns...)
		for i := range c.Columns {
			c.Columns[i].Pos = sqlerr.Pos{}
		}
		if x.Watermark != nil {
			w := *x.Watermark
			w.Pos = sqlerr.Pos{}
			c.Watermark = &w
		}
		c.Options = stripOpts(x.Options)
		return &c
	case *CreateSinkStmt:
		c := *x
		c.StmtBase = StmtBase{}
		c.Options = stripOpts(x.Options)
		return &c
	case *DropStmt:
		c := *x
		c.StmtBase = StmtBase{}
		return &c
	case *ShowStmt:
		c := *x
		c.StmtBase = StmtBase{}
		return &c
	case *DescribeStmt:
		c := *x
		c.StmtBase = StmtBase{}
		return &c
	case *SetStmt:
		c := *x
		c.StmtBase = StmtBase{}
		return &c
	case *FlushStmt:
		return &FlushStmt{}
	case *ExplainStmt:
		return &ExplainStmt{Stmt: stripPos(x.Stmt), Analyze: x.Analyze, View: x.View}
	}
	return s
}

func stripOpts(opts []Option) []Option {
	out := append([]Option(nil), opts...)
	for i := range out {
		out[i].Pos = sqlerr.Pos{}
	}
	return out
}

func TestParseDDL(t *testing.T) {
	bidCols := []ColumnDef{
		{Name: "auction", Type: types.Int},
		{Name: "bidder", Type: types.Int},
		{Name: "price", Type: types.Int},
		{Name: "date_time", Type: types.Timestamp},
	}
	tests := []struct {
		name, sql string
		want      Stmt
	}{
		{"source", `CREATE SOURCE bids (
    auction   BIGINT,
    bidder    BIGINT,
    price     BIGINT,
    date_time TIMESTAMP,
    WATERMARK FOR date_time AS date_time - INTERVAL '5' SECOND
) WITH (
    connector = 'kafka', topic = 'bids', brokers = '127.0.0.1:9092',
    format = 'json',                 -- json | csv | avro later
    on_error = 'dead_letter',        -- fail | skip | dead_letter
    dead_letter = 'bids_dlq'         -- a table that receives the raw bytes + error
)`, &CreateSourceStmt{Name: "bids", Columns: bidCols,
			Watermark: &WatermarkClause{Column: "date_time", Delay: 5 * types.Second},
			Options: []Option{{Name: "connector", Value: "kafka"}, {Name: "topic", Value: "bids"},
				{Name: "brokers", Value: "127.0.0.1:9092"}, {Name: "format", Value: "json"},
				{Name: "on_error", Value: "dead_letter"}, {Name: "dead_letter", Value: "bids_dlq"}}}},
		{"watermark postgres interval and no delay",
			`CREATE SOURCE IF NOT EXISTS s (ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '2 minutes')`,
			&CreateSourceStmt{IfNotExists: true, Name: "s", Columns: []ColumnDef{{Name: "ts", Type: types.Timestamp}},
				Watermark: &WatermarkClause{Column: "ts", Delay: 2 * types.Minute}}},
		{"watermark delay 0", `CREATE SOURCE s (ts TIMESTAMP, WATERMARK FOR ts AS ts)`,
			&CreateSourceStmt{Name: "s", Columns: []ColumnDef{{Name: "ts", Type: types.Timestamp}},
				Watermark: &WatermarkClause{Column: "ts"}}},
		{"watermark milliseconds", `CREATE SOURCE s (ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '500' MILLISECOND)`,
			&CreateSourceStmt{Name: "s", Columns: []ColumnDef{{Name: "ts", Type: types.Timestamp}},
				Watermark: &WatermarkClause{Column: "ts", Delay: 500 * types.Millisecond}}},
		{"all types", `CREATE SOURCE s (a INT, b INTEGER, c SMALLINT, d DOUBLE PRECISION, e FLOAT, f REAL,
			g DECIMAL(10, 2), h NUMERIC, i VARCHAR(20), j TEXT, k CHAR, l STRING, m TIMESTAMPTZ, n DATETIME,
			o BOOLEAN, p BOOL, q INTERVAL, r DOUBLE, s VARCHAR NOT NULL, t DATE, u DECIMAL(7),
			v TIMESTAMP WITH TIME ZONE, w TIMESTAMP WITHOUT TIME ZONE, x TIME, y TIME WITHOUT TIME ZONE)`,
			&CreateSourceStmt{Name: "s", Columns: []ColumnDef{
				{Name: "a", Type: types.Int}, {Name: "b", Type: types.Int}, {Name: "c", Type: types.Int},
				{Name: "d", Type: types.Float}, {Name: "e", Type: types.Float}, {Name: "f", Type: types.Float},
				{Name: "g", Type: types.Decimal, Precision: 10, Scale: 2}, {Name: "h", Type: types.Decimal}, {Name: "i", Type: types.String},
				{Name: "j", Type: types.String}, {Name: "k", Type: types.String}, {Name: "l", Type: types.String},
				{Name: "m", Type: types.TimestampTZ}, {Name: "n", Type: types.Timestamp}, {Name: "o", Type: types.Bool},
				{Name: "p", Type: types.Bool}, {Name: "q", Type: types.Interval}, {Name: "r", Type: types.Float},
				{Name: "s", Type: types.String}, {Name: "t", Type: types.Date}, {Name: "u", Type: types.Decimal, Precision: 7},
				{Name: "v", Type: types.TimestampTZ}, {Name: "w", Type: types.Timestamp}, {Name: "x", Type: types.Time}, {Name: "y", Type: types.Time}}}},
		{"generated columns", `CREATE SOURCE s (v BIGINT, ingest TIMESTAMP AS INGESTION_TIME(), pt AS PROCTIME(),
			WATERMARK FOR ingest AS ingest - INTERVAL '1' SECOND) WITH (connector = 'memory')`,
			&CreateSourceStmt{Name: "s", Columns: []ColumnDef{{Name: "v", Type: types.Int},
				{Name: "ingest", Type: types.Timestamp, Generated: IngestionTime},
				{Name: "pt", Type: types.Timestamp, Generated: ProcTime}},
				Watermark: &WatermarkClause{Column: "ingest", Delay: types.Second},
				Options:   []Option{{Name: "connector", Value: "memory"}}}},
		{"table", `CREATE TABLE customers (
    id BIGINT PRIMARY KEY, name VARCHAR, tier VARCHAR
) WITH (connector = 'kafka', topic = 'customers', format = 'json')`,
			&CreateSourceStmt{IsTable: true, Name: "customers", PrimaryKey: []string{"id"},
				Columns: []ColumnDef{{Name: "id", Type: types.Int, PrimaryKey: true},
					{Name: "name", Type: types.String}, {Name: "tier", Type: types.String}},
				Options: []Option{{Name: "connector", Value: "kafka"}, {Name: "topic", Value: "customers"},
					{Name: "format", Value: "json"}}}},
		{"table-level key", `CREATE TABLE t (a BIGINT, b VARCHAR, c DOUBLE, PRIMARY KEY (a, b))`,
			&CreateSourceStmt{IsTable: true, Name: "t", PrimaryKey: []string{"a", "b"},
				Columns: []ColumnDef{{Name: "a", Type: types.Int, PrimaryKey: true},
					{Name: "b", Type: types.String, PrimaryKey: true}, {Name: "c", Type: types.Float}}}},
		{"option forms", `CREATE SOURCE g WITH (Connector = datagen, 'Rate' = 1000, scan.startup.mode = 'earliest', "seed" = -7, x = 1.5)`,
			&CreateSourceStmt{Name: "g", Options: []Option{{Name: "connector", Value: "datagen"},
				{Name: "rate", Value: "1000"}, {Name: "scan.startup.mode", Value: "earliest"},
				{Name: "seed", Value: "-7"}, {Name: "x", Value: "1.5"}}}},
		{"quoted names", `CREATE SOURCE "My Source" ("select" BIGINT, "a""b" TEXT)`,
			&CreateSourceStmt{Name: "My Source", Columns: []ColumnDef{{Name: "select", Type: types.Int},
				{Name: `a"b`, Type: types.String}}}},
		{"sink", `CREATE SINK q7_pg FROM q7 WITH (
    connector = 'postgres',
    dsn = 'postgres://app@127.0.0.1:5432/app',
    table = 'q7_results',
    primary_key = 'window_start, auction'   -- the ON CONFLICT target
)`, &CreateSinkStmt{Name: "q7_pg", From: "q7", Options: []Option{{Name: "connector", Value: "postgres"},
			{Name: "dsn", Value: "postgres://app@127.0.0.1:5432/app"}, {Name: "table", Value: "q7_results"},
			{Name: "primary_key", Value: "window_start, auction"}}}},
		{"sink if not exists", `CREATE SINK IF NOT EXISTS q7_out FROM q7 WITH (connector = 'stdout')`,
			&CreateSinkStmt{IfNotExists: true, Name: "q7_out", From: "q7", Options: []Option{{Name: "connector", Value: "stdout"}}}},
		{"drop source", `DROP SOURCE bids`, &DropStmt{Kind: ObjSource, Name: "bids"}},
		{"drop table", `drop table if exists t`, &DropStmt{Kind: ObjTable, Name: "t", IfExists: true}},
		{"drop view", `DROP MATERIALIZED VIEW q7`, &DropStmt{Kind: ObjView, Name: "q7"}},
		{"drop sink", `DROP SINK IF EXISTS s`, &DropStmt{Kind: ObjSink, Name: "s", IfExists: true}},
		{"show sources", `SHOW SOURCES`, &ShowStmt{Kind: ObjSource}},
		{"show tables", `show tables`, &ShowStmt{Kind: ObjTable}},
		{"show views", `SHOW MATERIALIZED VIEWS`, &ShowStmt{Kind: ObjView}},
		{"show sinks", `SHOW SINKS`, &ShowStmt{Kind: ObjSink}},
		{"show setting", `SHOW Checkpoint_Interval`, &ShowStmt{Setting: "checkpoint_interval"}},
		{"describe", `DESCRIBE bids`, &DescribeStmt{Name: "bids"}},
		{"desc", `DESC "Bids"`, &DescribeStmt{Name: "Bids"}},
		{"flush", `FLUSH`, &FlushStmt{}},
		{"set eq", `SET strict = off`, &SetStmt{Name: "strict", Value: "off"}},
		{"set to", `SET parallelism TO 4`, &SetStmt{Name: "parallelism", Value: "4"}},
		{"set string", `SET checkpoint_interval = '10s'`, &SetStmt{Name: "checkpoint_interval", Value: "10s"}},
		{"set session", `SET SESSION application_name = 'psql'`, &SetStmt{Name: "application_name", Value: "psql"}},
		{"explain", `EXPLAIN DROP SINK s`, &ExplainStmt{Stmt: &DropStmt{Kind: ObjSink, Name: "s"}}},
		{"explain explain", `EXPLAIN EXPLAIN FLUSH`, &ExplainStmt{Stmt: &ExplainStmt{Stmt: &FlushStmt{}}}},
		{"explain analyze view", `EXPLAIN ANALYZE "Bids"`, &ExplainStmt{Analyze: true, View: "Bids"}},
		{"explain analyze query", `EXPLAIN ANALYZE DROP SINK s`, &ExplainStmt{Analyze: true, Stmt: &DropStmt{Kind: ObjSink, Name: "s"}}},
		{"show pipelines", `SHOW PIPELINES`, &ShowStmt{Setting: "pipelines"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseOne(t, tt.sql)
			if g := stripPos(got); !reflect.DeepEqual(g, tt.want) {
				t.Errorf("got  %#v\nwant %#v", g, tt.want)
			}
		})
	}
}

func TestStmtBase(t *testing.T) {
	sql := "-- a comment\nFLUSH ;\n\n  SHOW SOURCES  ;  ;\nDESCRIBE x /* trailing */"
	stmts, err := Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		text      string
		line, col int
	}{{"FLUSH", 2, 1}, {"SHOW SOURCES", 4, 3}, {"DESCRIBE x", 5, 1}}
	if len(stmts) != len(want) {
		t.Fatalf("got %d statements", len(stmts))
	}
	for i, w := range want {
		if stmts[i].Text() != w.text || stmts[i].Pos().Line != w.line || stmts[i].Pos().Col != w.col {
			t.Errorf("stmt %d: %q at %+v, want %q at %d:%d", i, stmts[i].Text(), stmts[i].Pos(), w.text, w.line, w.col)
		}
	}
	ex := parseOne(t, "EXPLAIN  SELECT 1").(*ExplainStmt)
	if ex.Stmt.Text() != "SELECT 1" || ex.Stmt.Pos().Col != 10 {
		t.Errorf("inner statement %q at %+v", ex.Stmt.Text(), ex.Stmt.Pos())
	}
	if stmts, err := Parse("  -- nothing\n ; "); err != nil || len(stmts) != 0 {
		t.Errorf("empty script: %v %v", stmts, err)
	}
}

func TestParseView(t *testing.T) {
	tests := []struct {
		name, sql   string
		ifNotExists bool
		windows     []WindowTVFClause
		streaming   StreamingClauses
		restore     string
	}{
		{name: "q7 spec", sql: `CREATE MATERIALIZED VIEW q7 AS
SELECT window_start, window_end, auction, MAX(price) AS max_price
FROM TUMBLE(bids, date_time, INTERVAL '10' SECOND)
GROUP BY window_start, window_end, auction
ALLOWED LATENESS INTERVAL '1' MINUTE
LATE DATA UPDATE
EMIT ON WINDOW CLOSE`,
			windows: []WindowTVFClause{{Placeholder: "__w0", Kind: Tumble, Source: "bids", TimeColumn: "date_time", Size: 10 * types.Second}},
			streaming: StreamingClauses{AllowedLateness: i64(types.Minute), LateData: &LateDataClause{Policy: LateUpdate},
				Emit: &EmitClause{Mode: EmitOnWindowClose}},
			restore: `CREATE MATERIALIZED VIEW "q7" AS SELECT "window_start","window_end","auction",MAX("price") AS "max_price" FROM TUMBLE("bids", "date_time", INTERVAL '10' SECOND) GROUP BY "window_start","window_end","auction" ALLOWED LATENESS INTERVAL '1' MINUTE LATE DATA UPDATE EMIT ON WINDOW CLOSE`},
		{name: "clauses in another order", sql: `CREATE MATERIALIZED VIEW IF NOT EXISTS v AS SELECT * FROM HOP(bids, date_time, INTERVAL '2 seconds', INTERVAL '10 seconds') h
STATE TTL INTERVAL '1 hour' EMIT EVERY INTERVAL '5' SECOND LATE DATA SIDE OUTPUT late_bids ALLOWED LATENESS INTERVAL '30 seconds'`,
			ifNotExists: true,
			windows: []WindowTVFClause{{Placeholder: "__w0", Kind: Hop, Source: "bids", TimeColumn: "date_time",
				Slide: 2 * types.Second, Size: 10 * types.Second, Alias: "h"}},
			streaming: StreamingClauses{AllowedLateness: i64(30 * types.Second),
				LateData: &LateDataClause{Policy: LateSideOutput, SideTable: "late_bids"},
				Emit:     &EmitClause{Mode: EmitEvery, Every: 5 * types.Second}, StateTTL: i64(types.Hour)}},
		{name: "late data drop, emit on update", sql: `CREATE MATERIALIZED VIEW v AS SELECT bidder, count(*) FROM SESSION(bids, date_time, INTERVAL '1' MINUTE) AS s GROUP BY bidder, window_start, window_end LATE DATA DROP EMIT ON UPDATE`,
			windows:   []WindowTVFClause{{Placeholder: "__w0", Kind: Session, Source: "bids", TimeColumn: "date_time", Gap: types.Minute, Alias: "s"}},
			streaming: StreamingClauses{LateData: &LateDataClause{Policy: LateDrop}, Emit: &EmitClause{Mode: EmitOnUpdate}}},
		{name: "update side output", sql: `CREATE MATERIALIZED VIEW v AS SELECT * FROM TUMBLE(bids, date_time, INTERVAL '1' SECOND) LATE DATA UPDATE SIDE OUTPUT "Late"`,
			windows:   []WindowTVFClause{{Placeholder: "__w0", Kind: Tumble, Source: "bids", TimeColumn: "date_time", Size: types.Second}},
			streaming: StreamingClauses{LateData: &LateDataClause{Policy: LateUpdateSideOutput, SideTable: "Late"}}},
		{name: "no clauses, state column", sql: `CREATE MATERIALIZED VIEW v AS SELECT state, count(*) AS n FROM person GROUP BY state`,
			restore: `CREATE MATERIALIZED VIEW "v" AS SELECT "state",COUNT(1) AS "n" FROM "person" GROUP BY "state"`},
		{name: "state ttl after state column", sql: `CREATE MATERIALIZED VIEW v AS SELECT state, count(*) FROM person GROUP BY state STATE TTL INTERVAL '1' DAY`,
			streaming: StreamingClauses{StateTTL: i64(types.Day)}},
		{name: "clause words inside parentheses", sql: `CREATE MATERIALIZED VIEW v AS SELECT * FROM (SELECT 1 AS emit) x EMIT ON UPDATE`,
			streaming: StreamingClauses{Emit: &EmitClause{Mode: EmitOnUpdate}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := parseOne(t, tt.sql).(*CreateViewStmt)
			if !ok {
				t.Fatalf("not a view")
			}
			if v.IfNotExists != tt.ifNotExists {
				t.Errorf("IfNotExists = %v", v.IfNotExists)
			}
			var ws []WindowTVFClause
			for _, w := range v.Query.Windows {
				c := *w
				c.Pos = sqlerr.Pos{}
				ws = append(ws, c)
			}
			if !reflect.DeepEqual(ws, tt.windows) {
				t.Errorf("windows\n got %+v\nwant %+v", ws, tt.windows)
			}
			if !reflect.DeepEqual(v.Streaming, tt.streaming) {
				t.Errorf("streaming\n got %+v\nwant %+v", v.Streaming, tt.streaming)
			}
			if tt.restore != "" && v.Restore() != tt.restore {
				t.Errorf("restore\n got %s\nwant %s", v.Restore(), tt.restore)
			}
			if !strings.HasPrefix(tt.sql, "CREATE MATERIALIZED VIEW") || v.Text() != tt.sql {
				t.Errorf("Text = %q", v.Text())
			}
		})
	}
}

func TestViewQueryText(t *testing.T) {
	v := parseOne(t, "CREATE MATERIALIZED VIEW v AS\n  SELECT a FROM t\nEMIT ON UPDATE").(*CreateViewStmt)
	if v.Query.Text() != "SELECT a FROM t" || v.Query.Pos().Line != 2 || v.Query.Pos().Col != 3 {
		t.Errorf("query %q at %+v", v.Query.Text(), v.Query.Pos())
	}
}

// TestQueryRestore checks the rewrites of the pass through what TiDB
// parsed, by the restored text.
func TestQueryRestore(t *testing.T) {
	tests := []struct{ name, sql, want string }{
		{"tumble", `SELECT * FROM TUMBLE(bids, date_time, INTERVAL '10' SECOND)`,
			`SELECT * FROM TUMBLE("bids", "date_time", INTERVAL '10' SECOND)`},
		{"tumble alias without AS", "SELECT t.auction FROM TUMBLE(bids,\n date_time,\n INTERVAL '10 seconds') t",
			`SELECT "t"."auction" FROM TUMBLE("bids", "date_time", INTERVAL '10' SECOND) AS "t"`},
		{"flink tvf", "SELECT * FROM TABLE(\n  TUMBLE(TABLE bids, DESCRIPTOR(date_time), INTERVAL '10' MINUTES)) AS t",
			`SELECT * FROM TUMBLE("bids", "date_time", INTERVAL '10' MINUTE) AS "t"`},
		{"flink hop", "SELECT * FROM TABLE(HOP(TABLE bids, DESCRIPTOR(date_time), INTERVAL '5' SECOND, INTERVAL '10' SECOND))",
			`SELECT * FROM HOP("bids", "date_time", INTERVAL '5' SECOND, INTERVAL '10' SECOND)`},
		{"postgres interval", `SELECT ts - INTERVAL '10 seconds' FROM t`, `SELECT "ts" - __INTERVAL('10 seconds', '') FROM "t"`},
		{"postgres interval singular", `SELECT ts + INTERVAL '1 minute' FROM t`, `SELECT "ts" + __INTERVAL('1 minute', '') FROM "t"`},
		{"interval plural unit", `SELECT ts + INTERVAL '2' HOURS FROM t`, `SELECT "ts" + __INTERVAL('2', 'HOUR') FROM "t"`},
		{"interval milliseconds", `SELECT ts + INTERVAL '500' MILLISECOND FROM t`, `SELECT "ts" + __INTERVAL('500', 'MILLISECOND') FROM "t"`},
		{"interval ms text", `SELECT ts + INTERVAL '1500 ms' FROM t`, `SELECT "ts" + __INTERVAL('1500 ms', '') FROM "t"`},
		{"interval number", `SELECT ts + INTERVAL 3 DAY FROM t`, `SELECT "ts" + __INTERVAL('3', 'DAY') FROM "t"`},
		{"interval month passes", `SELECT ts + INTERVAL '1' MONTH FROM t`, `SELECT "ts" + __INTERVAL('1', 'MONTH') FROM "t"`},
		{"cast bigint", `SELECT x::bigint, x::int, x::integer FROM t`, `SELECT CAST("x" AS SIGNED),CAST("x" AS SIGNED),CAST("x" AS SIGNED) FROM "t"`},
		{"cast text", `SELECT x::text, x::varchar, x::varchar(10) FROM t`, `SELECT CAST("x" AS CHAR),CAST("x" AS CHAR),CAST("x" AS CHAR) FROM "t"`},
		{"cast double", `SELECT x::double precision, x::float8, x::real FROM t`, `SELECT CAST("x" AS DOUBLE),CAST("x" AS DOUBLE),CAST("x" AS DOUBLE) FROM "t"`},
		{"cast numeric", `SELECT x::numeric, x::numeric(10,2), CAST(x AS DECIMAL(5)) FROM t`, `SELECT CAST("x" AS DECIMAL),CAST("x" AS DECIMAL(10, 2)),CAST("x" AS DECIMAL(5)) FROM "t"`},
		{"cast timestamp", `SELECT '2024-01-01 00:00:05'::timestamp`, `SELECT CAST('2024-01-01 00:00:05' AS DATETIME(6))`},
		{"cast boolean", `SELECT x::boolean, x::bool FROM t`, `SELECT CAST("x" AS BOOLEAN),CAST("x" AS BOOLEAN) FROM "t"`},
		{"cast chain", `SELECT x::int::text FROM t`, `SELECT CAST(CAST("x" AS SIGNED) AS CHAR) FROM "t"`},
		{"cast operand forms", `SELECT (a + b)::int, count(*)::double precision, t.a::text, -1::int FROM t`,
			`SELECT CAST(("a" + "b") AS SIGNED),CAST(COUNT(1) AS DOUBLE),CAST("t"."a" AS CHAR),-CAST(1 AS SIGNED) FROM "t"`},
		{"cast function", `SELECT CAST(x AS BIGINT), CAST(x AS INT), CAST(x AS TEXT), CAST(x AS VARCHAR), CAST(x AS DOUBLE PRECISION), CAST(x AS FLOAT), CAST(x AS TIMESTAMP), CAST(x AS BOOLEAN) FROM t`,
			`SELECT CAST("x" AS SIGNED),CAST("x" AS SIGNED),CAST("x" AS CHAR),CAST("x" AS CHAR),CAST("x" AS DOUBLE),CAST("x" AS DOUBLE),CAST("x" AS DATETIME(6)),CAST("x" AS BOOLEAN) FROM "t"`},
		{"escape string", `SELECT E'a\tb''c\'' FROM t`, `SELECT 'a	b''c''' FROM "t"`},
		{"interval cast of an expression", `SELECT CAST(s AS INTERVAL), s::interval FROM t`, `SELECT __INTERVAL_CAST("s"),__INTERVAL_CAST("s") FROM "t"`},
		{"postgres interval cast", `SELECT ts + '10 seconds'::interval FROM t`, `SELECT "ts" + __INTERVAL('10 seconds', '') FROM "t"`},
		{"similar to", `SELECT a SIMILAR TO 'x%', a || b NOT SIMILAR TO '(a|b)_' ESCAPE '#', f(a) SIMILAR TO p AND c FROM t`,
			"SELECT `similar_to`(\"a\", 'x%'),(NOT `similar_to`(`||`(\"a\", \"b\"), '(a|b)_', '#')),`similar_to`(F(\"a\"), \"p\") AND \"c\" FROM \"t\""},
		{"operators inside brackets", `SELECT ARRAY[t SIMILAR TO 'a%', t NOT SIMILAR TO 'x%' ESCAPE '#'], ARRAY[t ~ 'a', t IS DISTINCT FROM u], a[t ~ 'a'], a[1] SIMILAR TO 'x', ARRAY['a'][1] ~ 'a' FROM t`,
			"SELECT `array`(`similar_to`(\"t\", 'a%'), (NOT `similar_to`(\"t\", 'x%', '#'))),`array`(REGEXP_LIKE(\"t\", 'a'), (NOT (\"t\" <=> (\"u\")))),`[]`(\"a\", REGEXP_LIKE(\"t\", 'a')),`similar_to`(`[]`(\"a\", 1), 'x'),REGEXP_LIKE(`[]`(`array`('a'), 1), 'a') FROM \"t\""},
		{"arrays", `SELECT ARRAY[1, a + 2][1], a[i + 1], f(x)[2]::text, t.a[1] || 'x', '{1,2}'::bigint[], CAST(s AS TEXT[]), ARRAY[ARRAY[1]], cardinality(a) FROM t`,
			"SELECT `[]`(`array`(1, \"a\" + 2), 1),`[]`(\"a\", \"i\" + 1),CAST(`[]`(F(\"x\"), 2) AS CHAR),`||`(`[]`(\"t\".\"a\", 1), 'x'),__ARRAY_CAST('{1,2}', 2),__ARRAY_CAST(\"s\", 4),`array`(`array`(1)),`cardinality`(\"a\") FROM \"t\""},
		{"aggregate filter", "SELECT count(*) FILTER (WHERE p < 10), count(DISTINCT b) filter (where p IS NULL)::text, sum(p) FILTER\n(WHERE a AND b), x AS filter FROM t",
			`SELECT COUNT(CASE WHEN "p" < 10 THEN 1 END),CAST(COUNT(DISTINCT CASE WHEN "p" IS NULL THEN "b" END) AS CHAR),SUM(CASE WHEN "a" AND "b" THEN "p" END),"x" AS "filter" FROM "t"`},
		{"frame interval stays an interval", `SELECT sum(x) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '10' SECONDS PRECEDING AND CURRENT ROW) FROM t`,
			`SELECT SUM("x") OVER (ORDER BY "ts" RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) FROM "t"`},
		{"frame interval text in microseconds", `SELECT sum(x) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1.5 seconds' PRECEDING AND CURRENT ROW) FROM t`,
			`SELECT SUM("x") OVER (ORDER BY "ts" RANGE BETWEEN INTERVAL '1500000' MICROSECOND PRECEDING AND CURRENT ROW) FROM "t"`},
		{"limit offset", `SELECT x FROM t LIMIT 10 OFFSET 5`, `SELECT "x" FROM "t" LIMIT 5,10`},
		{"convert keeps its type", `SELECT CONVERT(x, SIGNED) FROM t`, `SELECT CONVERT("x", SIGNED) FROM "t"`},
		{"cast native", `SELECT CAST(x AS SIGNED), CAST(x AS CHAR), CAST(x AS DATE) FROM t`, `SELECT CAST("x" AS SIGNED),CAST("x" AS CHAR),CAST("x" AS DATE) FROM "t"`},
		{"operators", `SELECT a <> 1, b != 2, c IS NULL, d IS NOT NULL, TRUE, FALSE, e || 'x' FROM t`,
			"SELECT \"a\" != 1,\"b\" != 2,\"c\" IS NULL,\"d\" IS NOT NULL,TRUE,FALSE,`||`(\"e\", 'x') FROM \"t\""},
		{"is not distinct from", `SELECT a IS NOT DISTINCT FROM b, a = b IS NOT DISTINCT FROM c FROM t`,
			`SELECT "a" <=> ("b"),"a" = "b" <=> ("c") FROM "t"`},
		{"is distinct from", `SELECT a + 1 IS DISTINCT FROM b = c AND d FROM t WHERE NOT x IS DISTINCT FROM (y)`,
			`SELECT (NOT ("a" + 1 <=> ("b" = "c"))) AND "d" FROM "t" WHERE NOT (NOT ("x" <=> (("y"))))`},
		{"regex match", `SELECT a ~ 'x', a || b ~* c, a::text !~ 'y' = TRUE, f(a) !~* 'z' FROM t`,
			"SELECT REGEXP_LIKE(\"a\", 'x'),REGEXP_LIKE(`||`(\"a\", \"b\"), \"c\", 'i'),(NOT REGEXP_LIKE(CAST(\"a\" AS CHAR), 'y')) = TRUE,(NOT REGEXP_LIKE(F(\"a\"), 'z', 'i')) FROM \"t\""},
		{"jsonb operators", `SELECT js->'a'->>0, js #> '{a,b}', js #>> p || 'x', js @> '{}'::jsonb, js ? k = TRUE, (js->>'n')::int + 1, f(js)->'a' FROM t`,
			"SELECT `->>`(`->`(\"js\", 'a'), 0),`#>`(\"js\", '{a,b}'),`||`(`#>>`(\"js\", \"p\"), 'x'),`@>`(\"js\", CAST('{}' AS JSONB)),`?`(\"js\", \"k\") = TRUE,CAST((`->>`(\"js\", 'n')) AS SIGNED) + 1,`->`(F(\"js\"), 'a') FROM \"t\""},
		{"extract pg field in a cast", `SELECT CAST(EXTRACT(dow FROM ts) AS VARCHAR), CAST(max(EXTRACT(epoch FROM ts)) AS BIGINT) FROM t`,
			`SELECT CAST(DATE_PART('dow', "ts") AS CHAR),CAST(MAX(DATE_PART('epoch', "ts")) AS SIGNED) FROM "t"`},
		{"extract pg fields", `SELECT EXTRACT(dow FROM ts), EXTRACT(HOUR FROM ts), EXTRACT(epoch FROM ts) FROM t`,
			`SELECT DATE_PART('dow', "ts"),EXTRACT(HOUR FROM "ts"),DATE_PART('epoch', "ts") FROM "t"`},
		{"full join", `SELECT * FROM a FULL OUTER JOIN b ON a.k = b.k FULL JOIN c ON b.k = c.k`,
			`SELECT * FROM ("a" FULL JOIN "b" ON "a"."k" = "b"."k") FULL JOIN "c" ON "b"."k" = "c"."k"`},
		{"strings", `SELECT 'it''s', 'a\b', "Col" FROM t`, `SELECT 'it''s','a\b',"Col" FROM "t"`},
		{"comments", "SELECT a --no space\n, /* c */ b /*! FROM t */ FROM t -- TUMBLE(x, y, INTERVAL '1' SECOND)", ""},
		{"system time", `SELECT * FROM o JOIN c FOR SYSTEM_TIME AS OF o.ts ON o.k = c.k`,
			`SELECT * FROM "o" JOIN "c" AS OF TIMESTAMP "o"."ts" ON "o"."k" = "c"."k"`},
		{"system time alias", `SELECT * FROM o JOIN c FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k LEFT JOIN d FOR SYSTEM_TIME AS OF PROCTIME() e ON e.k = o.k`,
			`SELECT * FROM ("o" JOIN "c" AS "r" AS OF TIMESTAMP "o"."ts" ON "o"."k" = "r"."k") LEFT JOIN "d" AS "e" AS OF TIMESTAMP PROCTIME() ON "e"."k" = "o"."k"`},
		{"tidb as of", `SELECT * FROM o JOIN c AS OF TIMESTAMP o.ts ON o.k = c.k`,
			`SELECT * FROM "o" JOIN "c" AS OF TIMESTAMP "o"."ts" ON "o"."k" = "c"."k"`},
		{"union", `SELECT a FROM x UNION ALL SELECT a FROM TUMBLE(y, ts, INTERVAL '1' SECOND)`,
			`SELECT "a" FROM "x" UNION ALL SELECT "a" FROM TUMBLE("y", "ts", INTERVAL '1' SECOND)`},
		{"with", `WITH w AS (SELECT * FROM TUMBLE(bids, date_time, INTERVAL '10' SECOND)) SELECT * FROM w`,
			`WITH "w" AS (SELECT * FROM TUMBLE("bids", "date_time", INTERVAL '10' SECOND)) SELECT * FROM "w"`},
		{"set-returning functions in FROM", `SELECT * FROM t CROSS JOIN LATERAL unnest(t.arr) AS u(x) CROSS JOIN LATERAL jsonb_array_elements(t.j->'a') WITH ORDINALITY e LEFT JOIN LATERAL generate_series(1, t.k) ON TRUE`,
			"SELECT * FROM ((\"t\" JOIN LATERAL UNNEST(\"t\".\"arr\") AS \"u\"(\"x\")) JOIN LATERAL JSONB_ARRAY_ELEMENTS(`->`(\"t\".\"j\", 'a')) WITH ORDINALITY AS \"e\") LEFT JOIN LATERAL GENERATE_SERIES(1, \"t\".\"k\") AS \"generate_series\" ON TRUE"},
		{"set-returning function alone", `SELECT * FROM unnest(ARRAY[1, 2]) WITH ORDINALITY WHERE unnest > 1`,
			"SELECT * FROM LATERAL UNNEST(`array`(1, 2)) WITH ORDINALITY AS \"unnest\" WHERE \"unnest\" > 1"},
		{"tvf in comma list and parentheses", `SELECT * FROM a, (TUMBLE(b, ts, INTERVAL '1' SECOND) AS x JOIN c ON x.k = c.k)`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parseOne(t, tt.sql)
			if _, ok := s.(*QueryStmt); !ok {
				t.Fatalf("got %T", s)
			}
			if tt.want != "" && s.Restore() != tt.want {
				t.Errorf("restore\n got %s\nwant %s", s.Restore(), tt.want)
			}
		})
	}
}

// castKind finds the first cast of a query and reports its TiDB type.
type castFinder struct{ tp byte }

func (v *castFinder) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.FuncCastExpr); ok && v.tp == 0 {
		v.tp = c.Tp.GetType()
		if v.tp == mysql.TypeTiny && (c.Tp.GetFlen() != 1 || c.Tp.GetFlag()&mysql.IsBooleanFlag == 0) {
			v.tp = 0xff // not our BOOLEAN
		}
	}
	return n, false
}
func (v *castFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// TestTimestampTZForms: casts to TIMESTAMPTZ (which TiDB has no type for),
// its literals and AT TIME ZONE become the calls the binder knows.
func TestTimestampTZForms(t *testing.T) {
	for in, want := range map[string]string{
		"CAST(x AS TIMESTAMPTZ)":                      "__TIMESTAMPTZ_CAST(\"x\")",
		"x::timestamp with time zone":                 "__TIMESTAMPTZ_CAST(\"x\")",
		"TIMESTAMPTZ '2024-01-01 00:00:00+01'":        "__TIMESTAMPTZ_CAST('2024-01-01 00:00:00+01')",
		"TIMESTAMP WITH TIME ZONE '2024-01-01'::text": "CAST(__TIMESTAMPTZ_CAST('2024-01-01') AS CHAR)",
		"x AT TIME ZONE 'UTC' AT TIME ZONE t.z":       "__AT_TIME_ZONE(__AT_TIME_ZONE(\"x\", 'UTC'), \"t\".\"z\")",
	} {
		q := parseOne(t, "SELECT "+in+" FROM t").(*QueryStmt)
		if got := q.Restore(); got != "SELECT "+want+" FROM \"t\"" {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	if _, err := Parse("SELECT x AT TIME ZONE FROM t"); err == nil {
		t.Error("AT TIME ZONE without a zone parsed")
	}
	if _, err := Parse("CREATE SOURCE s (a TIME WITH TIME ZONE)"); err == nil {
		t.Error("TIME WITH TIME ZONE parsed")
	}
}

func TestCastTargets(t *testing.T) {
	tests := []struct {
		expr string
		tp   byte
	}{
		{"x::bigint", mysql.TypeLonglong}, {"CAST(x AS INTEGER)", mysql.TypeLonglong},
		{"x::text", mysql.TypeVarString}, {"CAST(x AS VARCHAR(3))", mysql.TypeVarString},
		{"x::float8", mysql.TypeDouble}, {"CAST(x AS REAL)", mysql.TypeDouble}, {"CAST(x AS DECIMAL(10,2))", mysql.TypeNewDecimal},
		{"x::numeric(12, 3)", mysql.TypeNewDecimal}, {"x::numeric", mysql.TypeNewDecimal}, {"x::date", mysql.TypeDate},
		{"x::timestamp", mysql.TypeDatetime}, {"CAST(x AS TIMESTAMP WITHOUT TIME ZONE)", mysql.TypeDatetime},
		{"x::time", mysql.TypeDuration}, {"CAST(x AS TIME)", mysql.TypeDuration},
		{"x::boolean", mysql.TypeTiny}, {"CAST(x AS BOOL)", mysql.TypeTiny},
		{"x::jsonb", mysql.TypeJSON}, {"CAST(x AS JSONB)", mysql.TypeJSON},
	}
	for _, tt := range tests {
		q := parseOne(t, "SELECT "+tt.expr+" FROM t").(*QueryStmt)
		v := &castFinder{}
		q.Select.Accept(v)
		if v.tp != tt.tp {
			t.Errorf("%s: type %d, want %d", tt.expr, v.tp, tt.tp)
		}
	}
}

func TestParseInsert(t *testing.T) {
	s := parseOne(t, `INSERT INTO bids PARTITION (p1) (auction, price, date_time) VALUES (1, 10, '2024-01-01 00:00:05'), (2, 2.5 * 2, '2024-01-01'::timestamp)`).(*InsertStmt)
	if s.Table != "bids" || s.Partition != "p1" || !reflect.DeepEqual(s.Columns, []string{"auction", "price", "date_time"}) || len(s.Rows) != 2 || len(s.Rows[1]) != 3 {
		t.Errorf("got %+v", s)
	}
	want := `INSERT INTO "bids" PARTITION ("p1") ("auction", "price", "date_time") VALUES (1, 10, '2024-01-01 00:00:05'), (2, 2.5 * 2, CAST('2024-01-01' AS DATETIME(6)))`
	if s.Restore() != want {
		t.Errorf("restore\n got %s\nwant %s", s.Restore(), want)
	}
	s = parseOne(t, `insert into t values (NULL, TRUE, -3, 'x')`).(*InsertStmt)
	if s.Table != "t" || s.Partition != "" || s.Columns != nil || len(s.Rows) != 1 {
		t.Errorf("got %+v", s)
	}
}

func TestParseInsertSelect(t *testing.T) {
	for _, tt := range []struct{ sql, table, want string }{
		{`INSERT INTO side_input SELECT v, v::varchar FROM generate_series(0, 9999) AS v`, "side_input",
			`INSERT INTO "side_input" SELECT "v",CAST("v" AS CHAR) FROM LATERAL GENERATE_SERIES(0, 9999) AS "v"`},
		{`INSERT INTO t PARTITION (p1) (b, a) SELECT x, y FROM u WHERE x > 1 UNION ALL SELECT 1, 2`, "t",
			`INSERT INTO "t" PARTITION ("p1") ("b", "a") SELECT "x","y" FROM "u" WHERE "x" > 1 UNION ALL SELECT 1,2`},
		{`INSERT INTO t (SELECT * FROM u)`, "t", `INSERT INTO "t" (SELECT * FROM "u")`},
		{`INSERT INTO t (a) WITH w AS (SELECT 1 AS a) SELECT a FROM w`, "t",
			`INSERT INTO "t" ("a") WITH "w" AS (SELECT 1 AS "a") SELECT "a" FROM "w"`},
	} {
		s := parseOne(t, tt.sql).(*InsertStmt)
		if s.Table != tt.table || s.Query == nil || s.Rows != nil {
			t.Errorf("%s: got %+v", tt.sql, s)
			continue
		}
		if s.Restore() != tt.want {
			t.Errorf("restore\n got %s\nwant %s", s.Restore(), tt.want)
		}
		if again := parseOne(t, s.Restore()).(*InsertStmt); again.Restore() != s.Restore() {
			t.Errorf("round trip\n got %s\nwant %s", again.Restore(), s.Restore())
		}
	}
}

func TestExplainView(t *testing.T) {
	s := parseOne(t, `EXPLAIN CREATE MATERIALIZED VIEW v AS SELECT * FROM TUMBLE(b, ts, INTERVAL '1' SECOND) EMIT ON WINDOW CLOSE`).(*ExplainStmt)
	v, ok := s.Stmt.(*CreateViewStmt)
	if !ok || len(v.Query.Windows) != 1 || v.Streaming.Emit == nil {
		t.Fatalf("got %#v", s.Stmt)
	}
}

func TestMultiStatementScript(t *testing.T) {
	script := `CREATE SOURCE s (a BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
INSERT INTO s VALUES (1, '2024-01-01 00:00:00');
CREATE MATERIALIZED VIEW v AS SELECT a, count(*) FROM TUMBLE(s, ts, INTERVAL '10' SECOND) GROUP BY a, window_start, window_end EMIT ON WINDOW CLOSE;
CREATE SINK k FROM v WITH (connector = 'stdout');
FLUSH;
SELECT * FROM v;`
	stmts, err := Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{"*parser.CreateSourceStmt", "*parser.InsertStmt", "*parser.CreateViewStmt",
		"*parser.CreateSinkStmt", "*parser.FlushStmt", "*parser.QueryStmt"}
	if len(stmts) != len(kinds) {
		t.Fatalf("got %d statements", len(stmts))
	}
	for i, s := range stmts {
		if got := reflect.TypeOf(s).String(); got != kinds[i] {
			t.Errorf("stmt %d: %s, want %s", i, got, kinds[i])
		}
		if s.Pos().Line != i+1 {
			t.Errorf("stmt %d at line %d", i, s.Pos().Line)
		}
	}
}

// TestRoundTripEdges checks Restore on forms whose output the pass must
// read back exactly.
func TestRoundTripEdges(t *testing.T) {
	for _, sql := range []string{
		`SELECT count (x)::int FROM t`,
		`SELECT CASE WHEN a THEN CASE b WHEN 1 THEN 2 END ELSE (3) END::text FROM t`,
		`SELECT a AS "emit", "AS" FROM t WHERE s = 'AS )' AND u = '"__w0"'`,
		`CREATE MATERIALIZED VIEW v AS SELECT "emit" FROM (SELECT 1 AS "emit") AS x EMIT ON UPDATE`,
		`CREATE MATERIALIZED VIEW v AS SELECT CAST(x AS BOOLEAN) AS b FROM TUMBLE(s, ts, INTERVAL '1500' MILLISECOND) EMIT EVERY INTERVAL '250 ms'`,
		`SELECT ts - INTERVAL '1 day 2 hours', ts + INTERVAL '-5 seconds', ts + INTERVAL 1.5 HOUR FROM t`,
		`INSERT INTO t VALUES (TRUE::boolean, 'x'::text, NULL)`,
		`CREATE SOURCE s (pt AS PROCTIME(), "a""b" VARCHAR PRIMARY KEY) WITH ('Odd Key' = 'line
two', n = -1.5)`,
		`SET x = ''`,
		`SELECT café, "prix€" FROM "tablé" WHERE nom = 'é'`,
		`SELECT * FROM a JOIN TUMBLE(b, ts, INTERVAL '1' DAY) w ON a.k = w.k JOIN HOP("B", "T", INTERVAL '1' HOUR, INTERVAL '1' DAY) ON TRUE`,
		`SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 3`,
		`(SELECT 1) UNION ALL (SELECT 2)`,
		`SELECT * FROM a FULL OUTER JOIN b ON a.k = b.k LEFT JOIN c ON b.k = c.k RIGHT OUTER JOIN d ON c.k = d.k`,
		`WITH a (x) AS (SELECT k FROM t), b AS (SELECT x FROM a) SELECT * FROM b JOIN a USING (x)`,
		`SELECT * FROM TUMBLE((SELECT k, ts FROM TUMBLE(s, ts, INTERVAL '1' SECOND) WHERE k > 1), ts, INTERVAL '10' SECOND) AS w`,
		`CREATE VIEW IF NOT EXISTS v AS SELECT a FROM t WHERE b > 1`,
		`DROP VIEW IF EXISTS v`,
		`SHOW VIEWS`,
	} {
		t.Run(sql, func(t *testing.T) { parseOne(t, sql) })
	}
}
