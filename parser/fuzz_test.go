package parser

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
)

// fuzzSeeds are the dialect's examples and the forms the pass rewrites.
var fuzzSeeds = []string{
	`CREATE SOURCE bids (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP,
    WATERMARK FOR date_time AS date_time - INTERVAL '5' SECOND) WITH (connector = 'kafka', topic = 'bids')`,
	`CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR, tier VARCHAR) WITH (connector = 'kafka', format = 'json')`,
	`CREATE SOURCE s (v BIGINT, ingest TIMESTAMP AS INGESTION_TIME(), pt AS PROCTIME())`,
	`CREATE MATERIALIZED VIEW q7 AS SELECT window_start, window_end, auction, MAX(price) AS max_price
FROM TUMBLE(bids, date_time, INTERVAL '10' SECOND) GROUP BY window_start, window_end, auction
ALLOWED LATENESS INTERVAL '1' MINUTE LATE DATA UPDATE EMIT ON WINDOW CLOSE;`,
	`CREATE MATERIALIZED VIEW v AS SELECT * FROM HOP(b, ts, INTERVAL '2 seconds', INTERVAL '10' SECOND) h STATE TTL INTERVAL '1' HOUR EMIT EVERY INTERVAL '1' SECOND`,
	`SELECT bidder, count(*) FROM SESSION(bids, date_time, INTERVAL '1' MINUTE) GROUP BY bidder`,
	`CREATE SINK q7_pg FROM q7 WITH (connector = 'postgres', primary_key = 'window_start, auction')`,
	`DROP MATERIALIZED VIEW IF EXISTS q7; SHOW SINKS; DESCRIBE q7; FLUSH; SET strict = off; SHOW parallelism`,
	`EXPLAIN CREATE MATERIALIZED VIEW v AS SELECT 1 LATE DATA SIDE OUTPUT t`,
	`INSERT INTO s PARTITION (p1) (a, b) VALUES (1, 'x'), (2, '2024-01-01'::timestamp)`,
	`INSERT INTO side_input (key, value) SELECT v, v::varchar FROM generate_series(0, 9999) AS s(v) WHERE v > $1 UNION ALL SELECT k, 'x' FROM t`,
	`SELECT x::bigint, (a+b)::text, CAST(y AS BOOLEAN), ts - INTERVAL '10 seconds', e || 'x', a <> b, c != d FROM t WHERE z IS NOT NULL AND w = TRUE`,
	`SELECT * FROM o JOIN c FOR SYSTEM_TIME AS OF o.ts ON o.k = c.k`,
	`SELECT * FROM o LEFT JOIN c FOR SYSTEM_TIME AS OF PROCTIME() r ON mod(o.k, 10) = r.k JOIN d FOR SYSTEM_TIME AS OF o.ts AS e ON e.k = o.k`,
	`SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(date_time), INTERVAL '10' MINUTES)) t, key`,
	`SELECT CASE WHEN a THEN 1 END::text, count (x)::int, '1 hour'::interval + ts FROM t`,
	`SELECT a FROM t -- comment
/* block */ WHERE b = 'it''s'`,
	`SELECT - -k, -(-1), '--' FROM t`,
	`SELECT cnt(*), sum ( * ), count(*), t.* FROM t WHERE k IN (SELECT f(*) FROM u)`,
	`SELECT count(*) FILTER (WHERE p < 10), max(x) FILTER (WHERE y)::int, lower(a) FILTER (WHERE b), filter FROM t`,
	`CREATE OR REPLACE FUNCTION f(a bigint, text) RETURNS numeric(10,2) LANGUAGE SQL IMMUTABLE AS $x$ SELECT a * 1.5 || $2::text; $x$`,
	`CREATE FUNCTION g(s varchar) RETURNS varchar RETURN upper(s) || $$it's$$; DROP FUNCTION IF EXISTS g(varchar)`,
	`SELECT $1::int, a[$2] FROM t WHERE k = $1 AND v IN ($3, $4) ORDER BY k LIMIT $5 OFFSET '3'; SELECT * FROM t LIMIT ALL OFFSET NULL`,
	`INSERT INTO t VALUES ($1, '$1'), ($2, NULL); UPDATE t SET v = $2 WHERE k = $1; DELETE FROM t WHERE k = $10`,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	// every shape of nesting just past the limit (54001, not a crash)
	for _, s := range deepShapes {
		f.Add(s.sql(sqlerr.MaxDepth + 1))
	}
	if b, err := os.ReadFile("testdata/nexmark.sql"); err == nil {
		for _, s := range strings.Split(string(b), ";") {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmts, err := Parse(sql)
		if err != nil {
			var e *sqlerr.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *sqlerr.Error", err)
			}
			if e.Pos != sqlerr.PosAt(sql, e.Pos.Offset) {
				t.Fatalf("error position %+v does not match its offset in %q", e.Pos, sql)
			}
			return
		}
		for _, s := range stmts {
			r := s.Restore()
			again, err := Parse(r)
			if err != nil {
				t.Fatalf("Parse(Restore()) of %q\nrestored %q\n%v", s.Text(), r, err)
			}
			if len(again) != 1 {
				t.Fatalf("Restore of %q gave %d statements: %q", s.Text(), len(again), r)
			}
			if r2 := again[0].Restore(); r2 != r {
				t.Fatalf("round trip of %q differs:\n%s\n%s", s.Text(), r, r2)
			}
		}
	})
}
