package pgwire

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamsql/streamsql/types"
)

// copySetup makes a memory source of several column types, a view over
// it, and a memory table.
func copySetup(t *testing.T, c *pgx.Conn) {
	t.Helper()
	mustExec(t, c,
		"CREATE SOURCE src (id BIGINT, name VARCHAR, price DOUBLE, ts TIMESTAMP, ok BOOLEAN)",
		"CREATE MATERIALIZED VIEW v AS SELECT id, name, price, ts, ok FROM src",
		"CREATE TABLE dim (id BIGINT PRIMARY KEY, label VARCHAR)")
}

// srcRows reads view v (which mirrors src) as sorted "id|name|price|ts|ok"
// lines, NULL for nulls.
func srcRows(t *testing.T, c *pgx.Conn) []string { return viewRows(t, c, "v") }

// viewRows is srcRows for another view of the same shape.
func viewRows(t *testing.T, c *pgx.Conn, view string) []string {
	t.Helper()
	mustExec(t, c, "FLUSH")
	rows, err := c.Query(context.Background(), "SELECT id, name, price, ts, ok FROM "+view)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id *int64
		var name *string
		var price *float64
		var ts *time.Time
		var ok *bool
		if err := rows.Scan(&id, &name, &price, &ts, &ok); err != nil {
			t.Fatal(err)
		}
		f := func(p any) string {
			switch x := p.(type) {
			case *int64:
				if x != nil {
					return fmt.Sprint(*x)
				}
			case *string:
				if x != nil {
					return fmt.Sprintf("%q", *x)
				}
			case *float64:
				if x != nil {
					return fmt.Sprint(*x)
				}
			case *time.Time:
				if x != nil {
					return x.UTC().Format("2006-01-02 15:04:05.999999")
				}
			case *bool:
				if x != nil {
					return fmt.Sprint(*x)
				}
			}
			return "NULL"
		}
		out = append(out, strings.Join([]string{f(id), f(name), f(price), f(ts), f(ok)}, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

var copyTS = time.Date(2024, 1, 2, 3, 4, 5, 600000000, time.UTC)

// TestCopyFromWithPgx: pgx.CopyFrom (binary COPY FROM STDIN) appends rows
// to a memory source and a table, NULLs included.
func TestCopyFromWithPgx(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeExec)
	copySetup(t, c)
	var rows [][]any
	for i := range 25_000 { // several copyBatchRows batches
		rows = append(rows, []any{int64(i), fmt.Sprintf("n%d", i), float64(i) + 0.5, copyTS, i%2 == 0})
	}
	rows = append(rows, []any{int64(-1), nil, nil, nil, nil})
	n, err := c.CopyFrom(context.Background(), pgx.Identifier{"src"}, []string{"id", "name", "price", "ts", "ok"}, pgx.CopyFromRows(rows))
	if err != nil || n != int64(len(rows)) {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}
	got := srcRows(t, c)
	if len(got) != len(rows) || !slices.Contains(got, `-1|NULL|NULL|NULL|NULL`) || !slices.Contains(got, `7|"n7"|7.5|2024-01-02 03:04:05.6|false`) {
		t.Fatalf("%d rows after CopyFrom; sample %v", len(got), got[:3])
	}
	n, err = c.CopyFrom(context.Background(), pgx.Identifier{"dim"}, []string{"id", "label"}, pgx.CopyFromRows([][]any{{int64(1), "a"}, {int64(1), "b"}, {int64(2), "c"}}))
	if err != nil || n != 3 {
		t.Fatalf("CopyFrom into a table: %d, %v", n, err)
	}
	var label string
	if err := c.QueryRow(context.Background(), "SELECT label FROM dim WHERE id = 1").Scan(&label); err != nil || label != "b" {
		t.Fatalf("table after CopyFrom: %q, %v (an upsert by key, like INSERT)", label, err)
	}
}

// TestCopyTextAndCSV: text COPY FROM STDIN decodes escapes and \N; COPY
// TO STDOUT in text, CSV and binary writes what COPY FROM STDIN reads back
// as the same rows (escapes, quotes, empty strings and NULLs survive), and
// text comes out as it went in.
func TestCopyTextAndCSV(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	copySetup(t, c)
	ctx := context.Background()
	text := "1\tplain\t1.5\t2024-01-02 03:04:05.6\tt\n" +
		"2\ttab\\tand\\nnewline, \"quoted\", back\\\\slash\t-2\t2024-01-02 00:00:00\tf\n" +
		"3\t\t0\t\\N\t\\N\n" +
		"4\t\\N\t\\N\t\\N\t\\N\n"
	tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(text), "COPY src FROM STDIN")
	if err != nil || tag.String() != "COPY 4" {
		t.Fatalf("COPY FROM STDIN: %q, %v", tag, err)
	}
	want := srcRows(t, c)
	if !slices.Equal(want, []string{
		`1|"plain"|1.5|2024-01-02 03:04:05.6|true`,
		`2|"tab\tand\nnewline, \"quoted\", back\\slash"|-2|2024-01-02 00:00:00|false`,
		`3|""|0|NULL|NULL`,
		`4|NULL|NULL|NULL|NULL`,
	}) {
		t.Fatalf("after text COPY FROM: %q", want)
	}
	for i, format := range []string{"", "(FORMAT csv)", "CSV HEADER", "(FORMAT binary)", "BINARY"} {
		var out strings.Builder
		tag, err := c.PgConn().CopyTo(ctx, &out, "COPY (SELECT * FROM v ORDER BY id) TO STDOUT "+format)
		if err != nil || tag.String() != "COPY 4" {
			t.Fatalf("COPY TO STDOUT %s: %q, %v", format, tag, err)
		}
		if format == "" && out.String() != text {
			t.Fatalf("text COPY TO wrote\n%q\nwant\n%q", out.String(), text)
		}
		src := fmt.Sprintf("src%d", i)
		mustExec(t, c, "CREATE SOURCE "+src+" (id BIGINT, name VARCHAR, price DOUBLE, ts TIMESTAMP, ok BOOLEAN)",
			"CREATE MATERIALIZED VIEW v"+src+" AS SELECT * FROM "+src)
		if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(out.String()), "COPY "+src+" FROM STDIN "+format); err != nil {
			t.Fatalf("COPY FROM STDIN %s of\n%s: %v", format, out.String(), err)
		}
		if got := viewRows(t, c, "v"+src); !slices.Equal(got, want) {
			t.Fatalf("round trip through %q:\n got  %q\n want %q", format, got, want)
		}
	}
	// The table form, with a column list, and CSV's quoting on the way out.
	var out strings.Builder
	if _, err := c.PgConn().CopyTo(ctx, &out, `COPY v (id, name) TO STDOUT WITH (FORMAT csv, HEADER true)`); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(out.String(), "\n")
	if lines[0] != "id,name\n" || !strings.Contains(out.String(), "3,\"\"\n") || !strings.Contains(out.String(), "4,\n") {
		t.Fatalf("CSV of v (id, name):\n%s", out.String())
	}
}

// TestCopyErrors: bad input names its line and column and leaves the
// session usable; COPY of files, into views, and in the extended protocol
// are refused with a reason.
func TestCopyErrors(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	copySetup(t, c)
	ctx := context.Background()
	for _, tc := range []struct{ sql, data, code, msg string }{
		{"COPY src FROM STDIN", "1\tok\t1\t2024-01-01 00:00:00\ttrue\nx\tbad\t1\t2024-01-01 00:00:00\ttrue\n", "22P02", "line 2, column id"},
		{"COPY src (id, name) FROM STDIN CSV", "1,a,extra\n", "22P04", "line 1: 3 columns, expected 2"},
		{"COPY src (id, name) FROM STDIN (FORMAT csv)", "1,\"open\n", "22P04", "unterminated CSV quoted field"},
		{"COPY v FROM STDIN", "1\n", "0A000", "only memory sources and tables take INSERT"},
		{"COPY nope FROM STDIN", "1\n", "42P01", "does not exist"},
		{"COPY src FROM '/etc/passwd'", "", "0A000", "the server reads no files"},
		{"COPY src FROM STDIN (FORMAT xml)", "", "22023", `format "xml" not recognized`},
		{"COPY src FROM STDIN (FORCE_QUOTE *)", "", "0A000", "not supported"},
	} {
		_, err := c.PgConn().CopyFrom(ctx, strings.NewReader(tc.data), tc.sql)
		code, pe := pgCode(err)
		if code != tc.code || !strings.Contains(pe.Message, tc.msg) {
			t.Errorf("%s: %v, want %s %q", tc.sql, err, tc.code, tc.msg)
		}
	}
	if got := srcRows(t, c); len(got) != 0 {
		t.Fatalf("after the errors: %v; a bad line stops its whole batch", got)
	}
	// COPY in the extended protocol is refused, and the session lives on.
	res := c.PgConn().ExecParams(ctx, "COPY v TO STDOUT", nil, nil, nil, nil).Read()
	if code, _ := pgCode(res.Err); code != "0A000" {
		t.Fatalf("COPY in the extended protocol: %v, want 0A000", res.Err)
	}
	mustExec(t, c, "SELECT 1")
}

// TestPsqlCopy: psql's \copy to and from CSV files with a header.
func TestPsqlCopy(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	copySetup(t, c)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("id,name,price,ts,ok\n1,\"a, b\",1.25,2024-01-01 00:00:01,true\n2,,,,\n3,\"\",3,2024-01-01 00:00:03,false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	stdout, stderr, err := wirePsql(t, addr,
		"-c", `\copy src FROM '`+in+`' CSV HEADER`,
		"-c", "FLUSH",
		"-c", `\copy (SELECT id, name, price, ts, ok FROM v ORDER BY id) TO '`+out+`' CSV HEADER`)
	if err != nil {
		t.Fatalf("psql: %v\n%s%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout, "COPY 3") {
		t.Errorf("psql printed %q, want COPY 3 twice", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "id,name,price,ts,ok\n1,\"a, b\",1.25,2024-01-01 00:00:01,t\n2,,,,\n3,\"\",3,2024-01-01 00:00:03,f\n"
	if string(b) != want {
		t.Fatalf("\\copy TO wrote\n%s\nwant\n%s", b, want)
	}
}

// parseAll feeds data to a fresh parser in chunks of size n (0: at once)
// and returns the rows as strings, or the error.
func parseAll(format string, header bool, data []byte, n int) (string, error) {
	c := &copyStmt{table: "t", format: format, header: header, delim: '\t', null: `\N`}
	if format == "csv" {
		c.delim, c.null = ',', ""
	}
	p := &copyParser{c: c, cols: []column{{name: "id", oid: types.OIDInt8}, {name: "s", oid: types.OIDText}}}
	if n <= 0 {
		n = len(data) + 1
	}
	for len(data) > 0 {
		k := min(n, len(data))
		if err := p.feed(data[:k], false); err != nil {
			return "", err
		}
		data = data[k:]
	}
	if err := p.feed(nil, true); err != nil {
		return "", err
	}
	return fmt.Sprint(p.rows), nil
}

// TestCopyParserChunks: how COPY data is split into CopyData messages
// never changes the rows (lines, quoted fields and escapes cut anywhere).
func TestCopyParserChunks(t *testing.T) {
	for _, tc := range []struct {
		format string
		header bool
		data   string
		rows   string
	}{
		{"text", false, "1\ta\\tb\n2\t\\N\n3\tx\\\ty\n", "[[1 a\tb] [2 NULL] [3 x\ty]]"},
		{"text", false, "1\tlast line without newline", "[[1 last line without newline]]"},
		{"text", false, "1\ta\n\\.\nignored after the end marker\n", "[[1 a]]"},
		{"csv", true, "id,s\n1,\"a,\"\"b\"\"\nc\"\n2,\n3,\"\"\n", "[[1 a,\"b\"\nc] [2 NULL] [3 ]]"},
		{"csv", false, "1,\"x\"\r\n2,y\r\n", "[[1 x] [2 y]]"},
	} {
		whole, err := parseAll(tc.format, tc.header, []byte(tc.data), 0)
		if err != nil || whole != tc.rows {
			t.Fatalf("%s %q: %s, %v; want %s", tc.format, tc.data, whole, err, tc.rows)
		}
		for n := 1; n < len(tc.data); n++ {
			if got, err := parseAll(tc.format, tc.header, []byte(tc.data), n); err != nil || got != whole {
				t.Fatalf("%s %q in chunks of %d: %s, %v; want %s", tc.format, tc.data, n, got, err, whole)
			}
		}
	}
}

// FuzzCopyParser: any bytes, in any chunking, give the same rows or an
// error as the whole input does, and never a panic.
func FuzzCopyParser(f *testing.F) {
	f.Add(0, []byte("1\ta\\tb\n2\t\\N\n"), 3)
	f.Add(1, []byte("1,\"a,\"\"b\"\"\nc\"\n2,\n"), 2)
	f.Add(2, []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff"), 5)
	f.Fuzz(func(t *testing.T, format int, data []byte, n int) {
		formats := []string{"text", "csv", "binary"}
		fm := formats[(format%3+3)%3]
		whole, werr := parseAll(fm, false, data, 0)
		got, err := parseAll(fm, false, data, n%17+1)
		if (werr == nil) != (err == nil) || (werr == nil && got != whole) {
			t.Fatalf("%s %q: whole %s (%v), chunked by %d %s (%v)", fm, data, whole, werr, n%17+1, got, err)
		}
	})
}
