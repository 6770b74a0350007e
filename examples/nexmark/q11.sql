-- Generated from bench/q11.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q11.sql
-- Nexmark q11: bids per bidder per SESSION window with a 10 s gap.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q11 AS
SELECT bidder, count(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM SESSION(bid, date_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
LATE DATA DROP
EMIT ON WINDOW CLOSE;

CREATE SINK q11_out FROM q11 WITH (connector = 'stdout');
