package postgres

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

func TestParseQualifiedName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "q7_results", want: []string{"q7_results"}},
		{in: "Q7_Results", want: []string{"q7_results"}},
		{in: "public.q7", want: []string{"public", "q7"}},
		{in: " Public . Q7 ", want: []string{"public", "q7"}},
		{in: `"MySchema"."My Table"`, want: []string{"MySchema", "My Table"}},
		{in: `"a.b"`, want: []string{"a.b"}},
		{in: `"say ""hi"""`, want: []string{`say "hi"`}},
		{in: `s."T"`, want: []string{"s", "T"}},
		{in: "a.b.c", err: "3 parts"},
		{in: "", err: "empty name"},
		{in: "s.", err: "empty name"},
		{in: `"unterminated`, err: "unterminated quote"},
		{in: `ab"c"`, err: "quote in the middle"},
		{in: `"c"x`, err: "text after a quoted name"},
	} {
		got, err := parseQualifiedName(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseQualifiedName(%q) = %q, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseQualifiedName(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseIdentList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "window_start, auction", want: []string{"window_start", "auction"}},
		{in: `id,"Name"`, want: []string{"id", "Name"}},
		{in: "a,,b", err: true},
		{in: "a,", err: true},
	} {
		got, err := parseIdentList(tc.in)
		if (err != nil) != tc.err || (!tc.err && !slices.Equal(got, tc.want)) {
			t.Errorf("parseIdentList(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"price", `"price"`},
		{"Max Price", `"Max Price"`},
		{`a"b`, `"a""b"`},
		{"drop table x; --", `"drop table x; --"`},
	} {
		if got := quoteIdent(tc.in); got != tc.want {
			t.Errorf("quoteIdent(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := quoteIdents([]string{"window_start", "auction"}); got != `"window_start", "auction"` {
		t.Errorf("quoteIdents = %s", got)
	}
}

func TestRedactDSN(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://app:s3cret@127.0.0.1:5432/app", "postgres://app:xxxxx@127.0.0.1:5432/app"},
		{"postgresql://app:p%40ss@db/app?sslmode=disable", "postgresql://app:xxxxx@db/app?sslmode=disable"},
		{"postgres://app@db/app?password=s3cret&sslmode=disable", "postgres://app@db/app?password=xxxxx&sslmode=disable"},
		{"postgres://app@127.0.0.1/app", "postgres://app@127.0.0.1/app"},
		{"postgres://app:s3cret@[::1", "postgres://app:xxxxx@[::1"}, // unparseable URL
		{"host=db user=app password=s3cret dbname=app", "host=db user=app password=xxxxx dbname=app"},
		{"host=db password = s3cret", "host=db password = xxxxx"},
		{"host=db password='s3 cr\\'et' dbname=app", "host=db password=xxxxx dbname=app"},
		{"host=db PASSWORD=s3cret", "host=db PASSWORD=xxxxx"},
		{"host=db user=app", "host=db user=app"},
	} {
		got := redactDSN(tc.in)
		if got != tc.want {
			t.Errorf("redactDSN(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "s3") || strings.Contains(got, "p%40ss") {
			t.Errorf("redactDSN(%q) = %q still holds the password", tc.in, got)
		}
	}
}

func TestRedactorErrors(t *testing.T) {
	base := errors.New("connect as app with s3cret failed")
	err := redactor{password: "s3cret"}.error(base)
	if strings.Contains(err.Error(), "s3cret") || !errors.Is(err, base) {
		t.Errorf("redacted error = %q (Is base: %v)", err, errors.Is(err, base))
	}
	if got := (redactor{}).error(base); got != base {
		t.Errorf("no password: error changed to %v", got)
	}
}

func TestTypeMapping(t *testing.T) {
	for _, tc := range []struct {
		k            types.Kind
		create, arr  string
		accept, deny []uint32
	}{
		{types.Int, "BIGINT", "int8[]", []uint32{types.OIDInt8, types.OIDInt4, types.OIDNumeric}, []uint32{types.OIDText, types.OIDBool, types.OIDTimestamp}},
		{types.Float, "DOUBLE PRECISION", "float8[]", []uint32{types.OIDFloat8, types.OIDFloat4, types.OIDNumeric}, []uint32{types.OIDInt8, types.OIDText}},
		{types.String, "TEXT", "text[]", []uint32{types.OIDText, types.OIDVarchar, types.OIDBpchar}, []uint32{types.OIDInt8}},
		{types.Bool, "BOOLEAN", "bool[]", []uint32{types.OIDBool}, []uint32{types.OIDInt4, types.OIDText}},
		{types.Timestamp, "TIMESTAMP", "timestamp[]", []uint32{types.OIDTimestamp, types.OIDTimestampTZ}, []uint32{types.OIDText, types.OIDInt8}},
		{types.Interval, "INTERVAL", "interval[]", []uint32{types.OIDInterval}, []uint32{types.OIDInt8, types.OIDText}},
		{types.Null, "TEXT", "text[]", []uint32{types.OIDText}, []uint32{types.OIDInt8}},
		{types.Decimal, "NUMERIC", "numeric[]", []uint32{types.OIDNumeric}, []uint32{types.OIDFloat8, types.OIDFloat4, types.OIDInt8, types.OIDText}},
		{types.Date, "DATE", "date[]", []uint32{types.OIDDate, types.OIDTimestamp, types.OIDTimestampTZ}, []uint32{types.OIDText, types.OIDInt4}},
		{types.TimestampTZ, "TIMESTAMPTZ", "timestamptz[]", []uint32{types.OIDTimestampTZ}, []uint32{types.OIDTimestamp, types.OIDText}},
		{types.Time, "TIME", "time[]", []uint32{types.OIDTime}, []uint32{types.OIDTimestamp, types.OIDText, types.OIDInt8}},
	} {
		if got := pgType(tc.k); got != tc.create {
			t.Errorf("pgType(%s) = %s, want %s", tc.k, got, tc.create)
		}
		if got := arrayType(tc.k); got != tc.arr {
			t.Errorf("arrayType(%s) = %s, want %s", tc.k, got, tc.arr)
		}
		for _, oid := range tc.accept {
			if !compatible(tc.k, oid) {
				t.Errorf("compatible(%s, %d) = false", tc.k, oid)
			}
		}
		for _, oid := range tc.deny {
			if compatible(tc.k, oid) {
				t.Errorf("compatible(%s, %d) = true", tc.k, oid)
			}
		}
	}
}

var q7Schema = types.Schema{
	{Name: "window_start", Type: types.Timestamp},
	{Name: "window_end", Type: types.Timestamp},
	{Name: "auction", Type: types.Int},
	{Name: "max_price", Type: types.Float},
}

// moneySchema is q7Schema with a DECIMAL(10,2) max_price.
var moneySchema = types.Schema{q7Schema[0], q7Schema[1], q7Schema[2],
	{Name: "max_price", Type: types.Decimal, Precision: 10, Scale: 2}}

func numeric(name string, p, s int32) pgColumn {
	return pgColumn{name: name, typeName: fmt.Sprintf("numeric(%d,%d)", p, s), oid: types.OIDNumeric, typmod: p<<16 | s + 4}
}

func TestCheckFit(t *testing.T) {
	col := func(name, typ string, oid uint32) pgColumn {
		return pgColumn{name: name, typeName: typ, oid: oid, typmod: -1}
	}
	good := []pgColumn{
		col("window_start", "timestamp without time zone", types.OIDTimestamp),
		col("window_end", "timestamp with time zone", types.OIDTimestampTZ),
		col("auction", "integer", types.OIDInt4),
		col("max_price", "double precision", types.OIDFloat8),
	}
	with := func(cols []pgColumn, i int, c pgColumn) []pgColumn {
		out := slices.Clone(cols)
		out[i] = c
		return out
	}
	key := []string{"window_start", "auction"}
	pk := [][]string{{"auction", "window_start"}}
	for _, tc := range []struct {
		name    string
		cols    []pgColumn
		uniques [][]string
		key     []string
		schema  types.Schema // nil: q7Schema
		want    string       // "" = fits
	}{
		{name: "fits", cols: good, uniques: pk, key: key},
		{name: "unique index among others", cols: good, uniques: [][]string{{"auction"}, {"window_start", "auction"}}, key: key},
		{name: "keyless view needs no index", cols: good, key: nil},
		{name: "extra nullable column", cols: append(slices.Clone(good), col("note", "text", types.OIDText)), uniques: pk, key: key},
		{name: "missing column", cols: good[:3], uniques: pk, key: key,
			want: "table public.q7_results has no column max_price"},
		{name: "wrong type", cols: with(good, 3, col("max_price", "text", types.OIDText)), uniques: pk, key: key,
			want: "table public.q7_results: column max_price is text, the view's column is DOUBLE"},
		{name: "no key index", cols: good, key: key,
			want: "table public.q7_results: no primary key or unique constraint on (window_start, auction)"},
		{name: "index on a different key", cols: good, uniques: [][]string{{"auction"}}, key: key,
			want: "no primary key or unique constraint on (window_start, auction) (it has unique keys on (auction); set primary_key to one of them)"},
		{name: "not null column the view lacks", cols: append(slices.Clone(good), pgColumn{name: "region", typeName: "text", oid: types.OIDText, notNull: true}), uniques: pk, key: key,
			want: "column region is NOT NULL without a default and the view has no such column"},
		{name: "not null with default is fine", cols: append(slices.Clone(good), pgColumn{name: "id", typeName: "bigint", oid: types.OIDInt8, notNull: true, hasDefault: true}), uniques: pk, key: key},
		{name: "numeric into a double column", cols: good, uniques: pk, key: key, schema: moneySchema,
			want: "column max_price is double precision, the view's column is DECIMAL"},
		{name: "numeric(12,2) holds a DECIMAL(10,2)", cols: with(good, 3, numeric("max_price", 12, 2)), uniques: pk, key: key, schema: moneySchema},
		{name: "unconstrained numeric holds it", cols: with(good, 3, pgColumn{name: "max_price", typeName: "numeric", oid: types.OIDNumeric, typmod: -1}),
			uniques: pk, key: key, schema: moneySchema},
		{name: "numeric(12,1) would round it", cols: with(good, 3, numeric("max_price", 12, 1)), uniques: pk, key: key, schema: moneySchema,
			want: "column max_price is numeric(12,1), too narrow for the view's DECIMAL(10,2)"},
		{name: "numeric(9,2) would refuse large values", cols: with(good, 3, numeric("max_price", 9, 2)), uniques: pk, key: key, schema: moneySchema,
			want: "too narrow"},
		{name: "every problem at once", cols: with(good[:3], 2, col("auction", "boolean", types.OIDBool)), key: key,
			want: "table public.q7_results has no column max_price; column auction is boolean, the view's column is BIGINT; no primary key or unique constraint on (window_start, auction)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := tc.schema
			if schema == nil {
				schema = q7Schema
			}
			err := checkFit(&tableInfo{name: "public.q7_results", columns: tc.cols, uniques: tc.uniques}, schema, tc.key)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected misfit: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestCreateTableSQL(t *testing.T) {
	c := &config{table: []string{"app", "Q7"}, schema: q7Schema, key: []int{0, 2}, fillfactor: 90}
	want := `CREATE TABLE IF NOT EXISTS "app"."Q7" ("window_start" TIMESTAMP, "window_end" TIMESTAMP, "auction" BIGINT, "max_price" DOUBLE PRECISION, PRIMARY KEY ("window_start", "auction")) WITH (fillfactor = 90)`
	if got := createTableSQL(c); got != want {
		t.Errorf("createTableSQL =\n%s\nwant\n%s", got, want)
	}
	c.schema = moneySchema
	if got := createTableSQL(c); !strings.Contains(got, `"max_price" NUMERIC(10,2)`) {
		t.Errorf("a DECIMAL(10,2) column: %s", got)
	}
	c.key, c.fillfactor = nil, 100
	if got := createTableSQL(c); strings.Contains(got, "PRIMARY KEY") || strings.Contains(got, "WITH") {
		t.Errorf("a keyless view with fillfactor 100: %s", got)
	}
}

func TestBuildStatements(t *testing.T) {
	c := &config{sink: "s", table: []string{"q7"}, schema: q7Schema, key: []int{0, 2}}
	st := buildStatements(c)
	for _, want := range []string{
		`INSERT INTO "q7" AS streamsql_t ("window_start", "window_end", "auction", "max_price") SELECT "window_start", "window_end", "auction", "max_price" FROM pg_temp.streamsql_stage`,
		`ON CONFLICT ("window_start", "auction") DO UPDATE SET ("window_end", "max_price") = ROW(EXCLUDED."window_end", EXCLUDED."max_price")` +
			` WHERE (streamsql_t."window_end", streamsql_t."max_price") IS DISTINCT FROM (EXCLUDED."window_end", EXCLUDED."max_price")`,
	} {
		if !strings.Contains(st.upsert, want) {
			t.Errorf("upsert = %s\nwant it to contain %s", st.upsert, want)
		}
	}
	if want := `MERGE INTO "q7" AS streamsql_t USING pg_temp.streamsql_stage AS streamsql_s` +
		` ON streamsql_t."window_start" = streamsql_s."window_start" AND streamsql_t."auction" = streamsql_s."auction"` +
		` WHEN MATCHED AND (streamsql_t."window_end", streamsql_t."max_price") IS DISTINCT FROM (streamsql_s."window_end", streamsql_s."max_price")` +
		` THEN UPDATE SET "window_end" = streamsql_s."window_end", "max_price" = streamsql_s."max_price"` +
		` WHEN NOT MATCHED THEN INSERT ("window_start", "window_end", "auction", "max_price") VALUES (streamsql_s."window_start", streamsql_s."window_end", streamsql_s."auction", streamsql_s."max_price")`; st.merge != want {
		t.Errorf("merge = %s\nwant    %s", st.merge, want)
	}
	if want := `DELETE FROM "q7" AS streamsql_t USING unnest($1::timestamp[], $2::int8[]) AS streamsql_d("window_start", "auction")`; !strings.HasPrefix(st.delete, want) {
		t.Errorf("delete = %s", st.delete)
	}
	if want := `CREATE TEMP TABLE pg_temp.streamsql_stage ("window_start" TIMESTAMP, "window_end" TIMESTAMP, "auction" BIGINT, "max_price" DOUBLE PRECISION) ON COMMIT DROP`; st.stage != want {
		t.Errorf("stage = %s\nwant    %s", st.stage, want)
	}
	if !strings.Contains(st.progress, `"streamsql_sink_progress"`) {
		t.Errorf("progress = %s", st.progress)
	}
	c.key = []int{0, 1, 2, 3}
	if st := buildStatements(c); !strings.HasSuffix(st.upsert, "DO NOTHING") || strings.Contains(st.merge, "WHEN MATCHED") {
		t.Errorf("an all-key upsert = %s; merge = %s", st.upsert, st.merge)
	}
	c.key, c.table = nil, []string{"s", "t"}
	st = buildStatements(c)
	if strings.Contains(st.upsert, "ON CONFLICT") || st.delete != "" || st.merge != "" {
		t.Errorf("keyless statements: %q, %q", st.upsert, st.delete)
	}
	if !strings.Contains(st.progress, `"s"."streamsql_sink_progress"`) {
		t.Errorf("the progress table is not in the target's schema: %s", st.progress)
	}
}

func TestOptionErrors(t *testing.T) {
	schema := q7Schema
	base := func(kv ...string) map[string]string {
		m := map[string]string{"connector": "postgres", "dsn": "postgres://app:s3cret@127.0.0.1:1/app", "table": "t"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"connector": "postgres", "table": "t"}, "needs option 'dsn'"},
		{map[string]string{"connector": "postgres", "dsn": "host=x"}, "needs option 'table'"},
		{base("tabel", "x"), "did you mean 'table'?"},
		{base("delivery", "twice"), "must be one of exactly_once, at_least_once"},
		{base("batch_rows", "0"), "'batch_rows' must be positive"},
		{base("fillfactor", "101"), "'fillfactor' must be between 10 and 100"},
		{base("write_connections", "0"), "'write_connections' must be between 1 and 16"},
		{base("write_connections", "17"), "'write_connections' must be between 1 and 16"},
		{base("retry_max_backoff", "soon"), "must be a duration"},
		{base("primary_key", "auction, nope"), "nope is not a column of the view"},
		{base("primary_key", "auction, auction"), "named twice"},
		{base("table", "a.b.c"), "option 'table'"},
		{base("dsn", "postgres://app:s3cret@host:notaport/x"), "not a valid Postgres connection string"},
	} {
		_, err := parseConfig(connectors.SinkSpec{Name: "s", Schema: schema, Key: []int{0, 2}, Options: tc.opts})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("options %v: error %v, want %q", tc.opts, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("options %v: the error shows the password: %v", tc.opts, err)
		}
	}
	c, err := parseConfig(connectors.SinkSpec{Name: "s", Schema: schema, Key: []int{0, 2}, Options: base("primary_key", `AUCTION`)})
	if err != nil || !slices.Equal(c.key, []int{2}) || !c.exactlyOnce || c.batchRows != 10000 || c.fillfactor != 50 {
		t.Errorf("primary_key AUCTION: %+v, %v", c, err)
	}
}

func TestWriteConnectionsNeedAKeyAndAPlainName(t *testing.T) {
	opts := map[string]string{"dsn": "postgres://u@h/db", "table": "t", "write_connections": "2"}
	if _, err := parseConfig(connectors.SinkSpec{Name: "s", Schema: q7Schema, Options: opts}); err == nil || !strings.Contains(err.Error(), "needs a key") {
		t.Errorf("a keyless view with two connections: %v", err)
	}
	if _, err := parseConfig(connectors.SinkSpec{Name: "s#1", Schema: q7Schema, Key: []int{0, 2}, Options: opts}); err == nil || !strings.Contains(err.Error(), "may not contain '#'") {
		t.Errorf("a sink named s#1 with two connections: %v", err)
	}
	c, err := parseConfig(connectors.SinkSpec{Name: "s", Schema: q7Schema, Key: []int{0, 2}, Options: opts})
	if err != nil || c.lanes != 2 {
		t.Errorf("a keyed view with two connections: %+v, %v", c, err)
	}
}

func TestDefaultFillfactor(t *testing.T) {
	for _, tc := range []struct {
		name       string
		key        []int
		appendOnly bool
		opts       map[string]string
		want       int
	}{
		{"a keyed view that updates rows", []int{0, 2}, false, nil, 50},
		{"a keyed view that only inserts", []int{0, 2}, true, nil, 100},
		{"a keyless view", nil, false, nil, 100},
		{"a keyless view given a primary_key", nil, false, map[string]string{"primary_key": "auction"}, 50},
		{"an explicit fillfactor", []int{0, 2}, false, map[string]string{"fillfactor": "80"}, 80},
		{"an explicit fillfactor on an insert-only view", []int{0, 2}, true, map[string]string{"fillfactor": "70"}, 70},
	} {
		opts := map[string]string{"dsn": "postgres://u@h/db", "table": "t"}
		for k, v := range tc.opts {
			opts[k] = v
		}
		c, err := parseConfig(connectors.SinkSpec{Name: "s", Schema: q7Schema, Key: tc.key, Options: opts, AppendOnly: tc.appendOnly})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.fillfactor != tc.want {
			t.Errorf("%s: fillfactor %d, want %d", tc.name, c.fillfactor, tc.want)
		}
	}
}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		err      error
		connLost bool
		want     bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true, true},  // admin shutdown
		{&pgconn.PgError{Code: "08006"}, true, true},  // connection failure
		{&pgconn.PgError{Code: "53300"}, false, true}, // too many connections
		{&pgconn.PgError{Code: "40001"}, false, true},
		{&pgconn.PgError{Code: "42703"}, false, false}, // undefined column
		{&pgconn.PgError{Code: "42804"}, false, false}, // datatype mismatch
		{&pgconn.PgError{Code: "28P01"}, true, false},  // bad password
		{permanent(errors.New("misfit")), true, false},
		{fmt.Errorf("x: %w", errors.New("conn closed")), true, true},
		{errors.New("encode failed"), false, false},
	} {
		if got := transient(tc.err, tc.connLost); got != tc.want {
			t.Errorf("transient(%v, %v) = %v, want %v", tc.err, tc.connLost, got, tc.want)
		}
	}
}

func TestDelivery(t *testing.T) {
	for _, tc := range []struct {
		eo   bool
		key  []int
		want string
	}{
		{true, []int{0, 2}, "exactly-once (one Postgres transaction per checkpoint with progress row; key window_start, auction)"},
		{true, nil, "exactly-once (one Postgres transaction per checkpoint with progress row; no key: append-only inserts)"},
		{false, []int{2}, "at-least-once (idempotent bulk upserts every 10000 rows and at each checkpoint; key auction)"},
		{false, nil, "at-least-once (bulk inserts every 10000 rows and at each checkpoint; no key: append-only inserts, a replay after a crash inserts rows again)"},
	} {
		s := &sink{cfg: &config{schema: q7Schema, key: tc.key, exactlyOnce: tc.eo, batchRows: 10000}}
		if got := s.Delivery(); got != tc.want {
			t.Errorf("Delivery() = %q, want %q", got, tc.want)
		}
	}
}
