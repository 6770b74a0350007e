-- Generated from bench/q18.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q18.sql
-- Nexmark q18: the last bid of each bidder on each auction (RisingWave's
-- form): a keyed deduplication, ROW_NUMBER() ordered by event time
-- descending and kept at 1. The view is updating: a later bid of the
-- same bidder on the same auction replaces the earlier one. Nothing
-- bounds the (bidder, auction) partitions, so strict would refuse the
-- view; it runs with strict off (our dialect's addition).
SET strict = off;

CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q18 AS
SELECT auction, bidder, price, channel, url, date_time, extra
FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS rank_number
    FROM bid
)
WHERE rank_number <= 1;

CREATE SINK q18_out FROM q18 WITH (connector = 'stdout');
