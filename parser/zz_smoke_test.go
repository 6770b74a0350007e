package parser

import "testing"

func TestSmoke(t *testing.T) {
	for _, q := range []string{
		`CREATE SOURCE bids (
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
)`,
		`CREATE MATERIALIZED VIEW q7 AS
SELECT window_start, window_end, auction, MAX(price) AS max_price
FROM TUMBLE(bids, date_time, INTERVAL '10' SECOND)
GROUP BY window_start, window_end, auction
ALLOWED LATENESS INTERVAL '1' MINUTE
LATE DATA UPDATE
EMIT ON WINDOW CLOSE`,
		`SELECT a::bigint, (a+b)::text, f(x)::double precision, '2024-01-01'::timestamp, CAST(x AS BOOLEAN), x::bool::int, ts - INTERVAL '10 seconds', ts + INTERVAL '500' MILLISECOND FROM t WHERE a <> 1 AND b != 2 AND c IS NOT NULL AND d = TRUE AND e || 'x' = 'y'`,
		`SELECT * FROM a JOIN b FOR SYSTEM_TIME AS OF a.ts ON a.k = b.k`,
		`INSERT INTO t PARTITION (p1) (a, b) VALUES (1, 'x'), (2, '2024-01-01'::timestamp)`,
		`SELECT * FROM HOP(bids, date_time, INTERVAL '2 seconds', INTERVAL '10' SECOND) AS h JOIN (SELECT * FROM SESSION(bids, date_time, INTERVAL '1' MINUTE) s) x ON x.a = h.a`,
		`EXPLAIN SELECT 1`, `SET strict TO off`, `SHOW MATERIALIZED VIEWS`, `DROP SINK IF EXISTS s`, `UPDATE t SET a = 1`, `select 'a\b'`,
	} {
		st, err := Parse(q)
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		for _, s := range st {
			r := s.Restore()
			t.Logf("%s", r)
			st2, err := Parse(r)
			if err != nil {
				t.Errorf("reparse %q: %v", r, err)
				continue
			}
			if r2 := st2[0].Restore(); r2 != r {
				t.Errorf("restore mismatch\n%s\n%s", r, r2)
			}
		}
	}
}
