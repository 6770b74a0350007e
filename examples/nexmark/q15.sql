-- Generated from bench/q15.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q15.sql
-- Nexmark q15: per day, the bids, bidders and auctions in each of three
-- price ranges (RisingWave's form: to_char for Flink's DATE_FORMAT, and
-- FILTER clauses). The view is grouped by day with no window, so its state
-- is bounded by STATE TTL: a day's row stays one day of event time after
-- its last bid, then leaves the view (docs/benchmarks.md).
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q15 AS
SELECT to_char(date_time, 'YYYY-MM-DD') AS day,
       count(*) AS total_bids,
       count(*) FILTER (WHERE price < 10000) AS rank1_bids,
       count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
       count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
       count(DISTINCT bidder) AS total_bidders,
       count(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders,
       count(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bidders,
       count(DISTINCT bidder) FILTER (WHERE price >= 1000000) AS rank3_bidders,
       count(DISTINCT auction) AS total_auctions,
       count(DISTINCT auction) FILTER (WHERE price < 10000) AS rank1_auctions,
       count(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_auctions,
       count(DISTINCT auction) FILTER (WHERE price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY to_char(date_time, 'YYYY-MM-DD')
STATE TTL INTERVAL '1' DAY;

CREATE SINK q15_out FROM q15 WITH (connector = 'stdout');
