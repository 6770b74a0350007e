package pgwire

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// catalogDDL makes one memory source and one windowed view whose key
// (auction, window_start) psql shows as the view's primary key.
var catalogDDL = []string{
	"CREATE SOURCE bid (auction BIGINT, price DOUBLE, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (connector = 'memory')",
	"CREATE MATERIALIZED VIEW q7 AS SELECT auction, count(*) AS n, max(price) AS top, window_start FROM TUMBLE(bid, ts, INTERVAL '10' SECOND) GROUP BY auction, window_start LATE DATA DROP",
}

// catalogPsql runs the real psql binary against addr with the given -c commands
// and returns its output; psql failing fails the test.
func catalogPsql(t *testing.T, addr string, cmds ...string) string {
	t.Helper()
	out, err := catalogPsqlRun(t, addr, cmds...)
	if err != nil {
		t.Fatalf("psql %q: %v\n%s", cmds, err, out)
	}
	return out
}

// catalogPsqlRun runs psql and returns its output and exit error.
func catalogPsqlRun(t *testing.T, addr string, cmds ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql is needed for this test (apt-get install postgresql-client): %v", err)
	}
	host, port, _ := net.SplitHostPort(addr)
	args := []string{"-X", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "tester", "-d", "streamsql"}
	for _, c := range cmds {
		args = append(args, "-c", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5", "PGSSLMODE=disable", "PAGER=", "PSQL_PAGER=", "COLUMNS=200")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// normalizePsql trims each line and drops blank ones, so a comparison does
// not hinge on how psql centres a title.
func normalizePsql(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestPsqlDescribe runs psql's \d family against the server: the listing
// commands show the source and the view, \d q7 its columns, types and key.
func TestPsqlDescribe(t *testing.T) {
	addr, _ := startServer(t)
	for _, q := range catalogDDL {
		catalogPsql(t, addr, q)
	}
	cases := []struct {
		cmds []string
		want string
	}{
		{[]string{`\d`}, `
             List of relations
 Schema | Name |       Type        | Owner  
--------+------+-------------------+--------
 public | bid  | table             | tester
 public | q7   | materialized view | tester
(2 rows)
`},
		{[]string{`\dt`}, `
        List of relations
 Schema | Name | Type  | Owner  
--------+------+-------+--------
 public | bid  | table | tester
(1 row)
`},
		{[]string{`\dm`}, `
              List of relations
 Schema | Name |       Type        | Owner  
--------+------+-------------------+--------
 public | q7   | materialized view | tester
(1 row)
`},
		{[]string{`\dv`}, "Did not find any relations.\n"},
		{[]string{`\d q7`}, `
                        Materialized view "public.q7"
    Column    |            Type             | Collation | Nullable | Default 
--------------+-----------------------------+-----------+----------+---------
 auction      | bigint                      |           | not null | 
 n            | bigint                      |           |          | 
 top          | double precision            |           |          | 
 window_start | timestamp without time zone |           | not null | 
Indexes:
    "q7_pkey" PRIMARY KEY, btree (auction, window_start)

`},
		{[]string{`\d bid`}, `
                          Table "public.bid"
 Column  |            Type             | Collation | Nullable | Default 
---------+-----------------------------+-----------+----------+---------
 auction | bigint                      |           |          | 
 price   | double precision            |           |          | 
 ts      | timestamp without time zone |           |          | 

`},
		// \d prints a table whatever \x says
		{[]string{`\x`, `\d bid`}, `Expanded display is on.
                          Table "public.bid"
 Column  |            Type             | Collation | Nullable | Default
---------+-----------------------------+-----------+----------+---------
 auction | bigint                      |           |          |
 price   | double precision            |           |          |
 ts      | timestamp without time zone |           |          |
`},

		{[]string{`\di`}, `
             List of relations
 Schema |  Name   | Type  | Owner  | Table
--------+---------+-------+--------+-------
 public | q7_pkey | index | tester | q7
(1 row)
`},
		{[]string{`\d q7_pkey`}, `
                      Index "public.q7_pkey"
    Column    |            Type             | Key? |  Definition
--------------+-----------------------------+------+--------------
 auction      | bigint                      | yes  | auction
 window_start | timestamp without time zone | yes  | window_start
primary key, btree, for table "public.q7"
`},
		{[]string{`\dn`}, `
      List of schemas
       Name        | Owner
-------------------+--------
 public            | tester
 streamsql_catalog | tester
(2 rows)
`},
		// The system tables, in a schema of their own off the search path.
		{[]string{`\dt streamsql_catalog.*`}, `
                 List of relations
      Schema       |    Name     | Type  | Owner
-------------------+-------------+-------+--------
 streamsql_catalog | checkpoints | table | tester
 streamsql_catalog | late_rows   | table | tester
 streamsql_catalog | operators   | table | tester
 streamsql_catalog | sinks       | table | tester
 streamsql_catalog | sources     | table | tester
(5 rows)
`},
		{[]string{`\d streamsql_catalog.late_rows`}, `
      Table "streamsql_catalog.late_rows"
 Column |  Type  | Collation | Nullable | Default
--------+--------+-----------+----------+---------
 view   | text   |           |          |
 policy | text   |           |          |
 reason | text   |           |          |
 count  | bigint |           |          |
`},
		{[]string{`SELECT count(*) FROM streamsql_catalog.late_rows`}, `
 count
-------
     0
(1 row)
`},
		{[]string{`\x`, `SELECT current_database(), current_schema(), current_user`}, `Expanded display is on.
-[ RECORD 1 ]----+----------
current_database | streamsql
current_schema   | public
current_user     | tester

`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.cmds, " "), func(t *testing.T) {
			got := catalogPsql(t, addr, c.cmds...)
			if normalizePsql(got) != normalizePsql(c.want) {
				t.Errorf("psql %q:\n%s\nwant:\n%s", c.cmds, got, c.want)
			}
		})
	}
	t.Run(`\d nosuch`, func(t *testing.T) {
		out, err := catalogPsqlRun(t, addr, `\d nosuch`)
		if err == nil || strings.TrimSpace(out) != `Did not find any relation named "nosuch".` {
			t.Errorf("\\d nosuch: %v\n%s", err, out)
		}
	})
	t.Run(`\d+ q7`, func(t *testing.T) {
		got := catalogPsql(t, addr, `\d+ q7`)
		for _, want := range []string{"View definition:", "TUMBLE(bid, ts, INTERVAL '10' SECOND)", `"q7_pkey" PRIMARY KEY, btree (auction, window_start)`} {
			if !strings.Contains(got, want) {
				t.Errorf("\\d+ q7 lacks %q:\n%s", want, got)
			}
		}
	})
	t.Run(`\l`, func(t *testing.T) {
		if got := catalogPsql(t, addr, `\l`); !strings.Contains(got, " streamsql | tester | UTF8") {
			t.Errorf("\\l:\n%s", got)
		}
	})
}

// TestCatalogOverPgx reads information_schema with a parameter in every
// pgx query mode, as JDBC tools and Grafana list a relation's columns.
func TestCatalogOverPgx(t *testing.T) {
	addr, _ := startServer(t)
	ctx := context.Background()
	for _, m := range execModes {
		t.Run(m.name, func(t *testing.T) {
			c := connect(t, addr, m.mode)
			if m.name == "simple" {
				mustExec(t, c, catalogDDL...)
			}
			rows, err := c.Query(ctx, "SELECT column_name, data_type, ordinal_position FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position", "q7")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				var name, typ string
				var pos int32
				if err := rows.Scan(&name, &typ, &pos); err != nil {
					t.Fatal(err)
				}
				got = append(got, name+" "+typ)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			want := "auction bigint,n bigint,top double precision,window_start timestamp without time zone"
			if strings.Join(got, ",") != want {
				t.Fatalf("columns %q, want %q", strings.Join(got, ","), want)
			}
			var oid uint32
			var kind string
			if err := c.QueryRow(ctx, "SELECT c.oid, c.relkind FROM pg_catalog.pg_class c WHERE c.relname = $1", "q7").Scan(&oid, &kind); err != nil {
				t.Fatal(err)
			}
			if oid < 16384 || kind != "m" {
				t.Fatalf("q7: oid %d relkind %q", oid, kind)
			}
		})
	}
}

// TestPsqlListsSQLFunctions checks that psql's \df lists a SQL function
// created over the wire (a $$ body in the simple protocol) in public,
// with its parameter names and types, and that \df without a pattern
// lists only it (psql hides pg_catalog's functions there).
func TestPsqlListsSQLFunctions(t *testing.T) {
	addr, _ := startServer(t)
	catalogPsql(t, addr, `CREATE FUNCTION count_char(s VARCHAR, c VARCHAR) RETURNS BIGINT LANGUAGE SQL IMMUTABLE
		AS $$ SELECT char_length(s) - char_length(replace(s, c, '')) $$`)
	out := normalizePsql(catalogPsql(t, addr, `\df`))
	for _, want := range []string{
		"public | count_char | bigint           | s text, c text      | func",
		"(1 row)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("psql output lacks %q:\n%s", want, out)
		}
	}
}

// TestCreateFunctionOverPgx creates a SQL function whose RETURN body
// reads $1 in every query mode: the $1 is the function's parameter, not
// a bind parameter of the statement (as in Postgres), and the function
// then answers a query with a bind parameter of its own.
func TestCreateFunctionOverPgx(t *testing.T) {
	addr, _ := startServer(t)
	ctx := context.Background()
	for i, m := range execModes {
		t.Run(m.name, func(t *testing.T) {
			c := connect(t, addr, m.mode)
			fn := fmt.Sprintf("plus_%d", i)
			if _, err := c.Exec(ctx, "CREATE FUNCTION "+fn+"(BIGINT, BIGINT) RETURNS BIGINT RETURN $1 + $2 * 10"); err != nil {
				t.Fatal(err)
			}
			tbl := fmt.Sprintf("one_%d", i)
			if _, err := c.Exec(ctx, "CREATE TABLE "+tbl+" (k BIGINT PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exec(ctx, "INSERT INTO "+tbl+" VALUES (2)"); err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := c.QueryRow(ctx, "SELECT "+fn+"(k, $1) FROM "+tbl, 4).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 42 {
				t.Errorf("%s(2, 4) = %d, want 42", fn, n)
			}
		})
	}
}
