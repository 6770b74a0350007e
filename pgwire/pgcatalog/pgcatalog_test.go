package pgcatalog

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// fixture is one object of each kind.
var fixture = []Object{
	{Name: "bids", Kind: "source", Columns: []Column{{Name: "auction", Type: types.Int}, {Name: "price", Type: types.Float}, {Name: "ts", Type: types.Timestamp}},
		Options: map[string]string{"connector": "memory"}},
	{Name: "Q7", Kind: "materialized view",
		Columns:    []Column{{Name: "auction", Type: types.Int}, {Name: "n", Type: types.Int}, {Name: "w", Type: types.Interval}, {Name: "s", Type: types.String}, {Name: "b", Type: types.Bool}},
		Key:        []string{"auction"},
		Definition: "CREATE MATERIALIZED VIEW q7 AS SELECT auction, count(*) AS n FROM bids GROUP BY auction"},
	{Name: "t1", Kind: "table", Columns: []Column{{Name: "id", Type: types.Int}, {Name: "name", Type: types.String}}, Key: []string{"id"}},
	{Name: "out", Kind: "sink", Columns: []Column{{Name: "auction", Type: types.Int}, {Name: "n", Type: types.Int}},
		Options: map[string]string{"connector": "kafka", "topic": "q7", "sasl.password": "hunter2"}},
}

var session = Session{Database: "dev", User: "root", BackendPID: 4242, Settings: map[string]string{"application_name": "psql"}}

func str(s string) *string { return &s }

// answer runs q and returns its rows as "a|b|c" lines (NULL as <null>).
func answer(t *testing.T, q string, params ...*string) (*Result, []string) {
	t.Helper()
	res, ok, err := Answer(q, params, fixture, session)
	if err != nil {
		t.Fatalf("%s\n: %v", q, err)
	}
	if !ok {
		t.Fatalf("not handled: %s", q)
	}
	var lines []string
	for _, r := range res.Rows {
		if len(r) != len(res.Columns) {
			t.Fatalf("row has %d values, %d columns", len(r), len(res.Columns))
		}
		parts := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				parts[i] = "<null>"
			} else {
				parts[i] = *v
			}
		}
		lines = append(lines, strings.Join(parts, "|"))
	}
	return res, lines
}

func psqlQuery(t *testing.T, file, name, oid string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/psql15/" + file + ".sql")
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer("{{OID}}", oid, "{{NAME}}", name).Replace(string(b))
}

// oidOf looks an object up the way psql's \d NAME does.
func oidOf(t *testing.T, name string) string {
	t.Helper()
	_, rows := answer(t, psqlQuery(t, "d_name_lookup", name, ""))
	if len(rows) != 1 {
		t.Fatalf(`\d %s found %v`, name, rows)
	}
	oid, rest, _ := strings.Cut(rows[0], "|")
	if rest != "public|"+name {
		t.Fatalf(`\d %s found %q`, name, rows[0])
	}
	return oid
}

func TestPsqlDescribeQueries(t *testing.T) {
	cases := []struct {
		file, name string // name: the object \d NAME describes
		cols       string // column names, when checked
		want       []string
	}{
		{file: "d", cols: "Schema|Name|Type|Owner", want: []string{
			"public|bids|table|root", "public|out|foreign table|root", "public|q7|materialized view|root", "public|t1|table|root"}},
		{file: "dt", want: []string{"public|bids|table|root", "public|t1|table|root"}},
		{file: "dt_plus", want: []string{"public|bids|table|root|permanent|heap|0 bytes|<null>", "public|t1|table|root|permanent|heap|0 bytes|<null>"}},
		{file: "dv", want: nil},
		{file: "dm", want: []string{"public|q7|materialized view|root"}},
		{file: "dE", want: []string{"public|out|foreign table|root"}},
		{file: "l", cols: "Name|Owner|Encoding|Collate|Ctype|ICU Locale|Locale Provider|Access privileges",
			want: []string{"dev|root|UTF8|C.UTF-8|C.UTF-8|<null>|libc|<null>"}},
		{file: "dn", cols: "Name|Owner", want: []string{"public|root", "streamsql_catalog|root"}},
		{file: "d_name_relinfo", name: "q7", want: []string{"0|m|t|f|f|f|f|f|f||0||p|d|heap"}},
		{file: "d_name_relinfo", name: "bids", want: []string{"0|r|f|f|f|f|f|f|f||0||p|d|heap"}},
		{file: "d_name_relinfo_plus", name: "q7", want: []string{"0|m|t|f|f|f|f|f|f||0||p|d|heap"}},
		{file: "d_name_columns", name: "q7", want: []string{
			"auction|bigint|<null>|t|<null>||", "n|bigint|<null>|f|<null>||", "w|interval|<null>|f|<null>||",
			"s|text|<null>|f|<null>||", "b|boolean|<null>|f|<null>||"}},
		{file: "d_name_columns", name: "bids", want: []string{
			"auction|bigint|<null>|f|<null>||", "price|double precision|<null>|f|<null>||",
			"ts|timestamp without time zone|<null>|f|<null>||"}},
		{file: "d_name_columns_plus", name: "t1", want: []string{
			"id|bigint|<null>|t|<null>|||p||<null>|<null>", "name|text|<null>|f|<null>|||x||<null>|<null>"}},
		{file: "d_name_indexes", name: "q7", want: []string{
			"q7_pkey|t|t|f|t|CREATE UNIQUE INDEX q7_pkey ON public.q7 USING btree (auction)|PRIMARY KEY (auction)|p|f|f|f|0"}},
		{file: "d_name_indexes", name: "bids", want: nil},
		{file: "d_name_policies", name: "q7", want: nil},
		{file: "d_name_statistics", name: "q7", want: nil},
		{file: "d_name_publications", name: "q7", want: nil},
		{file: "d_name_parents", name: "q7", want: nil},
		{file: "d_name_partitions", name: "q7", want: nil},
		{file: "d_plus_viewdef", name: "q7", want: []string{" SELECT auction, count(*) AS n FROM bids GROUP BY auction;"}},
		{file: "d_plus_rules", name: "q7", want: nil},
		{file: "d_foreign_columns", name: "out", want: []string{"auction|bigint|<null>|f|<null>|||", "n|bigint|<null>|f|<null>|||"}},
		{file: "d_foreign_server", name: "out", want: []string{`kafka|"sasl.password" '********', topic 'q7'`}},
	}
	for _, c := range cases {
		t.Run(c.file+"/"+c.name, func(t *testing.T) {
			oid := ""
			if c.name != "" {
				oid = oidOf(t, c.name)
			}
			q := psqlQuery(t, c.file, c.name, oid)
			if !Handles(q) {
				t.Error("Handles is false")
			}
			res, rows := answer(t, q)
			if strings.Join(rows, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(c.want, "\n"))
			}
			if c.cols != "" {
				var names []string
				for _, col := range res.Columns {
					names = append(names, col.Name)
				}
				if got := strings.Join(names, "|"); got != c.cols {
					t.Errorf("columns %q, want %q", got, c.cols)
				}
			}
			if res.Tag != "SELECT "+itoa(int64(len(rows))) {
				t.Errorf("tag %q", res.Tag)
			}
		})
	}
}

// psql prints booleans and oids by their text; the column types still
// matter to binary-format clients.
func TestResultTypes(t *testing.T) {
	res, _ := answer(t, psqlQuery(t, "d_name_relinfo", "q7", oidOf(t, "q7")))
	want := []uint32{types.OIDInt2, types.OIDChar, types.OIDBool, types.OIDBool, types.OIDBool, types.OIDBool, types.OIDBool, types.OIDBool, types.OIDBool, types.OIDText, types.OIDOid, types.OIDText, types.OIDChar, types.OIDChar, types.OIDName}
	for i, c := range res.Columns {
		if c.TypeOID != want[i] {
			t.Errorf("column %d (%s): type %d, want %d", i, c.Name, c.TypeOID, want[i])
		}
	}
}

func TestOIDsStable(t *testing.T) {
	before := oidOf(t, "q7")
	saved := fixture
	defer func() { fixture = saved }()
	fixture = append([]Object{{Name: "aaa", Kind: "table", Columns: []Column{{Name: "x", Type: types.Int}}}}, saved...)
	if after := oidOf(t, "q7"); after != before {
		t.Fatalf("q7's OID moved from %s to %s when another object was created", before, after)
	}
}

// Introspection in the style of JDBC/DBeaver, Grafana and pgx clients:
// information_schema listings, pg_catalog joins, regclass/regproc casts,
// set-returning functions with column aliases, parameters.
func TestClientQueries(t *testing.T) {
	cases := []struct {
		q      string
		params []*string
		want   []string
	}{
		{q: "SELECT version()", want: []string{VersionString}},
		{q: "select current_database(), current_schema(), current_user, session_user, pg_backend_pid()",
			want: []string{"dev|public|root|root|4242"}},
		{q: "SELECT current_schema(),session_user", want: []string{"public|root"}},
		{q: "SELECT table_name, table_type, is_insertable_into FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
			want: []string{"bids|BASE TABLE|YES", "out|FOREIGN|NO", "q7|VIEW|NO", "t1|BASE TABLE|YES"}},
		{q: "SELECT column_name, data_type, udt_name, is_nullable, ordinal_position FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
			params: []*string{str("q7")}, want: []string{
				"auction|bigint|int8|NO|1", "n|bigint|int8|YES|2", "w|interval|interval|YES|3", "s|text|text|YES|4", "b|boolean|bool|YES|5"}},
		{q: "SELECT schema_name FROM information_schema.schemata ORDER BY 1", want: []string{"information_schema", "pg_catalog", "public", "streamsql_catalog"}},
		{q: "select table_name, view_definition from information_schema.views",
			want: []string{"q7| SELECT auction, count(*) AS n FROM bids GROUP BY auction;"}},
		{q: "SELECT tc.constraint_type, kcu.column_name FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage kcu USING (constraint_name) WHERE tc.table_name = 't1'",
			want: []string{"PRIMARY KEY|id"}},
		{q: `SELECT c.relname, c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relkind IN ('r', 'm', 'v', 'f') ORDER BY 1`, params: []*string{str("public")},
			want: []string{"bids|r", "out|f", "q7|m", "t1|r"}},
		{q: "SELECT relkind, count(*) FROM pg_class GROUP BY relkind ORDER BY 2 DESC, 1", want: []string{"i|2", "r|2", "f|1", "m|1"}},
		{q: "SELECT count(*) FROM pg_catalog.pg_attribute WHERE attrelid = 'q7'::regclass AND attnum > 0 AND NOT attisdropped", want: []string{"5"}},
		{q: "SELECT 'public.q7'::regclass, 'q7'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'q7')", want: []string{"q7|t"}},
		{q: "SELECT t.oid, t.typname, t.typarray FROM pg_catalog.pg_type t WHERE t.typname IN ('int8', 'interval') ORDER BY 1",
			want: []string{"20|int8|1016", "1186|interval|1187"}},
		{q: "SELECT n.nspname = ANY(current_schemas(true)), n.nspname, t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON t.typnamespace = n.oid WHERE t.oid = 1009",
			want: []string{"t|pg_catalog|_text"}},
		{q: "SELECT typinput = 'pg_catalog.array_in'::regproc, typname FROM pg_catalog.pg_type WHERE oid = 1009", want: []string{"t|_text"}},
		{q: `SELECT s.r, (current_schemas(false))[s.r] AS nspname FROM generate_series(1, array_upper(current_schemas(false), 1)) AS s(r)`,
			want: []string{"1|public"}},
		{q: "SELECT n.oid, n.nspname, d.description FROM pg_catalog.pg_namespace n LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid = n.oid AND d.classoid = 'pg_namespace'::regclass ORDER BY nspname",
			want: []string{"13207|information_schema|<null>", "11|pg_catalog|<null>", "2200|public|<null>", "16383|streamsql_catalog|<null>"}},
		{q: "SELECT setting FROM pg_catalog.pg_settings WHERE name = 'server_version'", want: []string{"15.0"}},
		{q: "SELECT current_setting('application_name'), current_setting('nope', true)", want: []string{"psql|<null>"}},
		{q: "SELECT has_table_privilege('q7', 'SELECT'), pg_catalog.pg_table_is_visible('q7'::regclass)", want: []string{"t|t"}},
		{q: "SELECT string_agg(attname, ', ' ORDER BY attnum DESC) FROM pg_attribute WHERE attrelid = 't1'::regclass", want: []string{"name, id"}},
		{q: "SELECT matviewname, hasindexes FROM pg_matviews UNION ALL SELECT tablename, hasindexes FROM pg_tables ORDER BY 1",
			want: []string{"bids|f", "q7|t", "t1|t"}},
		{q: "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 't1'",
			want: []string{"t1_pkey|CREATE UNIQUE INDEX t1_pkey ON public.t1 USING btree (id)"}},
		{q: "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_class c, pg_attribute a WHERE a.attrelid = c.oid AND c.relname LIKE 'b%' AND a.attnum = 3",
			want: []string{"bids|ts|timestamp without time zone"}},
		{q: "SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate", want: []string{"dev"}},
		{q: "SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_class WHERE relname = 'q7') THEN 'yes' ELSE 'no' END, ARRAY(SELECT relname FROM pg_class WHERE relkind = 'i' ORDER BY 1)",
			want: []string{"yes|{q7_pkey,t1_pkey}"}},
		{q: "SELECT 1", want: []string{"1"}},
		{q: "SELECT 7 / 2, 7 % 2, -(2 + 3) * 2, 1.5 + 1, 'a' || 'b', INTERVAL '1' SECOND", want: []string{"3|1|-10|2.5|ab|1 second"}},
		// the shape of pgjdbc's DatabaseMetaData.getColumns: a window
		// function numbers the live columns under a LIKE filter
		{q: `SELECT * FROM (SELECT n.nspname, c.relname, a.attname, a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) AS attnotnull,
				row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, nullif(a.attidentity, '') AS attidentity,
				pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc, dsc.description
			FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid)
			JOIN pg_catalog.pg_attribute a ON (a.attrelid = c.oid) JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid)
			LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid = def.adrelid AND a.attnum = def.adnum)
			LEFT JOIN pg_catalog.pg_description dsc ON (c.oid = dsc.objoid AND a.attnum = dsc.objsubid)
			WHERE c.relkind IN ('r','p','v','f','m') AND a.attnum > 0 AND NOT a.attisdropped AND n.nspname LIKE $1 AND c.relname LIKE $2) c
			WHERE true AND attname LIKE $3 ORDER BY nspname, c.relname, attnum`,
			params: []*string{str("public"), str("t%"), str("%")},
			want:   []string{"public|t1|id|t|1|<null>|<null>|<null>", "public|t1|name|f|2|<null>|<null>|<null>"}},
		// the shape of pgjdbc's getTables: CASE over a boolean, a comma
		// join beside a LEFT JOIN, ORDER BY output names
		{q: `SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, c.relname AS TABLE_NAME,
				CASE n.nspname ~ '^pg_' OR n.nspname = 'information_schema' WHEN true THEN 'SYSTEM'
				WHEN false THEN CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE NULL END
				ELSE NULL END AS TABLE_TYPE, d.description AS REMARKS
			FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c
			LEFT JOIN pg_catalog.pg_description d ON (c.oid = d.objoid AND d.objsubid = 0 AND d.classoid = 'pg_class'::regclass)
			WHERE c.relnamespace = n.oid AND c.relname LIKE '%' AND c.relkind <> 'i' ORDER BY TABLE_TYPE, TABLE_SCHEM, TABLE_NAME`,
			want: []string{"<null>|public|out|FOREIGN TABLE|<null>", "<null>|public|q7|MATERIALIZED VIEW|<null>",
				"<null>|public|bids|TABLE|<null>", "<null>|public|t1|TABLE|<null>"}},
		{q: "SELECT relname, rank() OVER (ORDER BY relkind), dense_rank() OVER (ORDER BY relkind DESC) FROM pg_class WHERE relkind <> 'i' ORDER BY 1",
			want: []string{"bids|3|1", "out|1|3", "q7|2|2", "t1|3|1"}},
		{q: "SELECT format('%I.%I has %s: %L', 'public', 'Q7', 5, 'it''s'), format('100%%')", want: []string{`public."Q7" has 5: 'it''s'|100%`}},
		{q: "SELECT c.relname FROM pg_class c WHERE c.tableoid = 'pg_class'::regclass AND c.relkind = 'm'", want: []string{"q7"}},
		{q: "SELECT fdwname, fdwhandler::regproc FROM pg_foreign_data_wrapper", want: []string{"streamsql|-"}},
		{q: "SELECT array_remove(ARRAY['a', 'b', 'a'], 'a'), getdatabaseencoding()", want: []string{"{b}|UTF8"}},
		{q: "select relname from pg_class where relname ~* '^B' or relname = any('{out}') order by relname limit 5 offset 0;",
			want: []string{"bids", "out"}},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			if !Handles(c.q) {
				t.Error("Handles is false")
			}
			_, rows := answer(t, c.q, c.params...)
			if strings.Join(rows, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestDescribeBeforeBind(t *testing.T) {
	res, ok, err := Answer("SELECT table_name, ordinal_position FROM information_schema.columns WHERE table_name = $1", nil, fixture, session)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	if len(res.Columns) != 2 || res.Columns[0].TypeOID != types.OIDName || res.Columns[1].TypeOID != types.OIDInt4 || len(res.Rows) != 0 {
		t.Fatalf("columns %+v rows %d", res.Columns, len(res.Rows))
	}
}

func TestNotCatalogQueries(t *testing.T) {
	for _, q := range []string{
		"SELECT * FROM q7",
		"SELECT auction FROM bids WHERE price > 1",
		"select * from public.q7",
		"SELECT c.relname FROM pg_class c JOIN q7 ON true",
		"INSERT INTO bids VALUES (1, 2.0, now())",
		"SHOW search_path",
		"CREATE MATERIALIZED VIEW v AS SELECT 1",
		"SELECT tumble_start(ts) FROM bids",
		"SELECT my_udf(1)",
		"SUBSCRIBE TO q7",
	} {
		res, ok, err := Answer(q, nil, fixture, session)
		if ok || err != nil || res != nil || Handles(q) {
			t.Errorf("%q: handled=%v err=%v", q, ok, err)
		}
	}
}

func TestCatalogErrors(t *testing.T) {
	for _, c := range []struct{ q, code string }{
		{"SELECT nope FROM pg_catalog.pg_class", sqlerr.UndefinedColumn},
		{"SELECT * FROM pg_catalog.pg_nope", sqlerr.UndefinedTable},
		{"SELECT pg_catalog.no_such_fn(oid) FROM pg_catalog.pg_class", sqlerr.UndefinedFunction},
		{"SELECT 'nope'::regclass FROM pg_class", sqlerr.UndefinedTable},
		{"SELECT oid FROM pg_class, pg_type", sqlerr.SyntaxError}, // ambiguous
		{"SELECT (SELECT relname FROM pg_class)", "21000"},
		{"SELECT relname FROM pg_catalog.pg_class WHERE (relname", sqlerr.FeatureNotSupport},
		{"SELECT count(*) FROM pg_type a, pg_type b, pg_type c", "54000"},
		{"SELECT count(*) FROM generate_series(1, 100000000) g", "54000"},
		// nesting beyond sqlerr.MaxDepth, bracketed or as a chain that
		// the parser builds in a loop, is 54001 before anything recurses
		{"SELECT 1 FROM " + strings.Repeat("(", 100000) + "pg_class" + strings.Repeat(")", 100000), sqlerr.StackDepth},
		{"SELECT " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + " FROM pg_class", sqlerr.StackDepth},
		{"SELECT 1" + strings.Repeat(" + 1", 100000) + " FROM pg_class", sqlerr.StackDepth},
		{"SELECT oid FROM pg_class WHERE oid = 1" + strings.Repeat(" OR oid = 1", 100000), sqlerr.StackDepth},
		{"SELECT " + strings.Repeat("NOT ", 100000) + "true FROM pg_class", sqlerr.StackDepth},
		{"SELECT " + strings.Repeat("- ", 100000) + "1 FROM pg_class", sqlerr.StackDepth},
		{"SELECT oid" + strings.Repeat("::int8", 100000) + " FROM pg_class", sqlerr.StackDepth},
		{"SELECT 1 FROM pg_class" + strings.Repeat(" JOIN pg_class ON true", 100000), sqlerr.StackDepth},
		{"SELECT 1 FROM pg_class" + strings.Repeat(" UNION SELECT 1 FROM pg_class", 100000), sqlerr.StackDepth},
		{"SELECT " + strings.Repeat("CASE WHEN true THEN ", 100000) + "1" + strings.Repeat(" END", 100000) + " FROM pg_class", sqlerr.StackDepth},
		{"SELECT count(*) FROM (SELECT oid FROM pg_type) a JOIN (SELECT oid FROM pg_type) b ON a.oid < b.oid JOIN (SELECT oid FROM pg_type) c ON true", "54000"},
	} {
		_, ok, err := Answer(c.q, nil, fixture, session)
		var se *sqlerr.Error
		if !ok || !Handles(c.q) || !errors.As(err, &se) || se.Code != c.code {
			t.Errorf("%q: handled=%v err=%v, want code %s", c.q, ok, err, c.code)
		}
	}
}

// FuzzAnswer: no input makes Answer panic.
func FuzzAnswer(f *testing.F) {
	ents, _ := os.ReadDir("testdata/psql15")
	for _, e := range ents {
		if b, err := os.ReadFile("testdata/psql15/" + e.Name()); err == nil && strings.HasSuffix(e.Name(), ".sql") {
			f.Add(strings.NewReplacer("{{OID}}", "16384", "{{NAME}}", "q7").Replace(string(b)))
		}
	}
	f.Add("SELECT (current_schemas(false))[1], ARRAY[1,2][3], '{a,\"b\"}'::text[] || NULL FROM pg_type LIMIT -1")
	// nesting past sqlerr.MaxDepth (54001, never a stack overflow)
	f.Add("SELECT " + strings.Repeat("(", 5000) + "oid" + strings.Repeat(")", 5000) + " FROM pg_class")
	f.Add("SELECT oid FROM pg_class WHERE " + strings.Repeat("NOT ", 3000) + "oid = 1" + strings.Repeat(" OR oid = 1", 3000))
	f.Fuzz(func(t *testing.T, q string) {
		_, _, _ = Answer(q, []*string{nil, str("x")}, fixture, session)
	})
}

// Every catalog table and view captured from Postgres reads without error
// (most are empty here), with its columns in Postgres's order.
func TestEveryCatalogTableReads(t *testing.T) {
	if err := loadSeed(); err != nil {
		t.Fatal(err)
	}
	if len(tableCols) < 150 {
		t.Fatalf("only %d catalog tables", len(tableCols))
	}
	for name, cols := range tableCols {
		res, _ := answer(t, "SELECT * FROM "+name)
		if len(res.Columns) != len(cols) || res.Columns[0].Name != cols[0].name {
			t.Errorf("%s: %d columns (%s...), want %d", name, len(res.Columns), res.Columns[0].Name, len(cols))
		}
	}
}

// manyObjects is a catalog of n views with six columns and a key each.
func manyObjects(n int) []Object {
	objs := make([]Object, n)
	for i := range objs {
		objs[i] = Object{Name: "v" + itoa(int64(i)), Kind: "materialized view", Key: []string{"k"},
			Columns: []Column{{Name: "k", Type: types.Int}, {Name: "a", Type: types.String}, {Name: "b", Type: types.Float}, {Name: "c", Type: types.Timestamp}, {Name: "d", Type: types.Interval}, {Name: "e", Type: types.Bool}}}
	}
	return objs
}

func benchAnswer(b *testing.B, q string, objs []Object) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := Answer(q, nil, objs, session); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkPsqlList is psql's \d over 200 views.
func BenchmarkPsqlList(b *testing.B) {
	q, _ := os.ReadFile("testdata/psql15/d.sql")
	benchAnswer(b, string(q), manyObjects(200))
}

// BenchmarkPsqlIndexes is the heaviest query of psql's \d NAME (a
// three-way comma join) over 200 views.
func BenchmarkPsqlIndexes(b *testing.B) {
	objs := manyObjects(200)
	res, _, _ := Answer(strings.ReplaceAll(mustRead(b, "testdata/psql15/d_name_lookup.sql"), "{{NAME}}", "v7"), nil, objs, session)
	benchAnswer(b, strings.ReplaceAll(mustRead(b, "testdata/psql15/d_name_indexes.sql"), "{{OID}}", *res.Rows[0][0]), objs)
}

// BenchmarkHandlesEngineQuery is the cost of asking whether an engine
// query is a catalog query.
func BenchmarkHandlesEngineQuery(b *testing.B) {
	for b.Loop() {
		if Handles("SELECT * FROM v WHERE key = $1") {
			b.Fatal("handled")
		}
	}
}

func mustRead(b testing.TB, name string) string {
	s, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return string(s)
}

// A wide view stays within the work bound: psql's column query runs two
// correlated subqueries per column.
func TestWideRelation(t *testing.T) {
	wide := Object{Name: "wide", Kind: "materialized view", Key: []string{"c0"}}
	for i := range 2000 {
		wide.Columns = append(wide.Columns, Column{Name: "c" + itoa(int64(i)), Type: types.String})
	}
	objs := append(manyObjects(300), wide)
	res, _, err := Answer(strings.ReplaceAll(mustRead(t, "testdata/psql15/d_name_lookup.sql"), "{{NAME}}", "wide"), nil, objs, session)
	if err != nil || len(res.Rows) != 1 {
		t.Fatal(err)
	}
	for _, f := range []string{"d_name_columns_plus", "d_name_indexes"} {
		q := strings.ReplaceAll(mustRead(t, "testdata/psql15/"+f+".sql"), "{{OID}}", *res.Rows[0][0])
		r, ok, err := Answer(q, nil, objs, session)
		if !ok || err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if f == "d_name_columns_plus" && len(r.Rows) != 2000 {
			t.Fatalf("%d columns", len(r.Rows))
		}
	}
}

// TestProcListsRegistry checks that pg_proc (psql's \df) lists the funcs
// registry's functions with their signatures, and that catalog queries
// call the registry's implementations.
func TestProcListsRegistry(t *testing.T) {
	_, rows := answer(t, psqlQuery(t, "df", "lpad|concat_ws", ""))
	want := []string{
		"pg_catalog|concat_ws|text|text, VARIADIC any|func",
		"pg_catalog|lpad|text|text, bigint|func",
		"pg_catalog|lpad|text|text, bigint, text|func",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("\\df got\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	_, rows = answer(t, "SELECT proisstrict, provolatile, pronargs FROM pg_catalog.pg_proc WHERE proname = 'now'")
	if len(rows) != 1 || rows[0] != "f|v|0" {
		t.Errorf("now() in pg_proc: %v", rows)
	}
	_, rows = answer(t, "SELECT lpad('7', 3, '0'), upper('a'), split_part('a,b', ',', -1), starts_with('abc', 'ab')")
	if len(rows) != 1 || rows[0] != "007|A|b|t" {
		t.Errorf("registry functions in a catalog query: %v", rows)
	}
}

// TestProcListsSQLFunctions checks that pg_proc (psql's \df) lists the
// SQL functions (CREATE FUNCTION) in public with their parameter names
// and types, next to the registry's.
func TestProcListsSQLFunctions(t *testing.T) {
	objs := []Object{{Name: "add_tax", Kind: "function", Definition: "price * 1.2",
		Columns: []Column{{Name: "price", Type: types.Int}},
		Result:  &Column{Type: types.Decimal, Precision: 10, Scale: 2}},
		{Name: "label", Kind: "function", Definition: "$1 || $2",
			Columns: []Column{{Type: types.String}, {Type: types.String}}, Result: &Column{Type: types.String}}}
	res, _, err := Answer(psqlQuery(t, "df", "add_tax|label|lpad", ""), nil, objs, Session{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range res.Rows {
		parts := make([]string, len(r))
		for i, v := range r {
			parts[i] = *v
		}
		rows = append(rows, strings.Join(parts, "|"))
	}
	want := []string{
		"pg_catalog|lpad|text|text, bigint|func",
		"pg_catalog|lpad|text|text, bigint, text|func",
		"public|add_tax|numeric(10,2)|price bigint|func",
		"public|label|text|text, text|func",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("\\df got\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	res, _, err = Answer("SELECT prosrc, prolang, provolatile FROM pg_catalog.pg_proc WHERE proname = 'add_tax'", nil, objs, Session{})
	if err != nil || len(res.Rows) != 1 || *res.Rows[0][0] != "price * 1.2" || *res.Rows[0][1] != "14" || *res.Rows[0][2] != "i" {
		t.Errorf("add_tax in pg_proc: %v %v", res, err)
	}
	// A function is no relation: \d does not list it.
	res, _, err = Answer(psqlQuery(t, "d_name_lookup", "add_tax", ""), nil, objs, Session{})
	if err != nil || len(res.Rows) != 0 {
		t.Errorf(`\d add_tax found %v %v`, res, err)
	}
}

// TestProcListsSetReturning checks that the registry's set-returning
// functions are in pg_proc with proretset (psql's \df shows SETOF) and a
// row estimate, and that the scalar ones are not marked.
func TestProcListsSetReturning(t *testing.T) {
	_, rows := answer(t, psqlQuery(t, "df", "unnest|jsonb_array_elements_text|generate_series", ""))
	want := []string{
		"pg_catalog|generate_series|SETOF bigint|bigint, bigint|func",
		"pg_catalog|generate_series|SETOF bigint|bigint, bigint, bigint|func",
		"pg_catalog|generate_series|SETOF timestamp without time zone|timestamp without time zone, timestamp without time zone, interval|func",
		"pg_catalog|jsonb_array_elements_text|SETOF text|jsonb|func",
		"pg_catalog|unnest|SETOF anyelement|anyarray|func",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("\\df got\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	_, rows = answer(t, "SELECT proname, proretset, prorows FROM pg_catalog.pg_proc WHERE proname IN ('jsonb_array_elements', 'lpad') ORDER BY 1, 3")
	if strings.Join(rows, ",") != "jsonb_array_elements|t|1000,lpad|f|0,lpad|f|0" {
		t.Errorf("proretset: %v", rows)
	}
}
