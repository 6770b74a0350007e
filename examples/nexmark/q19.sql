-- Generated from bench/q19.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q19.sql
-- Nexmark q19: the ten highest bids of each auction (RisingWave's form):
-- a keyed Top-N, ROW_NUMBER() over the bids of an auction by price
-- descending, kept up to 10, the rank selected. The view is updating: a
-- bid entering an auction's top ten retracts the one it displaces and
-- moves the ranks below it. Nothing bounds the auctions, so strict would
-- refuse the view; it runs with strict off (our dialect's addition).
SET strict = off;

CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q19 AS
SELECT * FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
    FROM bid
)
WHERE rank_number <= 10;

CREATE SINK q19_out FROM q19 WITH (connector = 'stdout');
