-- Generated from bench/q7.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q7.sql
-- Nexmark q7: the highest bid in each 10 s TUMBLE window, as a self
-- interval join of bid with the per-window maximum (RisingWave's form).
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q7 AS
SELECT B.auction, B.price, B.bidder, B.date_time
FROM bid B
JOIN (
    SELECT max(price) AS maxprice, window_end AS date_time
    FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
    GROUP BY window_end
) B1
ON B.price = B1.maxprice
AND B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time
LATE DATA DROP
EMIT ON WINDOW CLOSE;

CREATE SINK q7_out FROM q7 WITH (connector = 'stdout');
