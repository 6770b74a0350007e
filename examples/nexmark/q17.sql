-- Generated from bench/q17.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q17.sql
-- Nexmark q17: per auction and day, the bids in each price range and the
-- minimum, maximum, average and total price (RisingWave's form: to_char
-- for Flink's DATE_FORMAT, FILTER clauses). Grouped by auction and day
-- with no window: bounded by STATE TTL as q15.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q17 AS
SELECT auction,
       to_char(date_time, 'YYYY-MM-DD') AS day,
       count(*) AS total_bids,
       count(*) FILTER (WHERE price < 10000) AS rank1_bids,
       count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
       count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
       min(price) AS min_price,
       max(price) AS max_price,
       avg(price) AS avg_price,
       sum(price) AS sum_price
FROM bid
GROUP BY auction, to_char(date_time, 'YYYY-MM-DD')
STATE TTL INTERVAL '1' DAY;

CREATE SINK q17_out FROM q17 WITH (connector = 'stdout');
