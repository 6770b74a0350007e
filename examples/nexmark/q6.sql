-- Generated from bench/q6.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q6.sql
-- Nexmark q6: the average selling price of the last 10 closed auctions of
-- each seller (RisingWave's form). An auction's selling price is its
-- highest bid between its opening and its expiry, as in q4; the running
-- average is AVG OVER the ten auctions before it and itself, per seller.
-- The published inner query selects B.date_time without grouping it,
-- which Postgres (and we) reject; the nearest valid form orders by the
-- auction's close, A.expires (grouped, and named date_time so the OVER
-- reads as published). The inner maximum moves as bids arrive, so the
-- OVER runs in its updating form over a retracting input: a changed
-- maximum retracts the auction's row and corrects the later auctions of
-- its seller. Nothing has a window, so the view says STATE TTL (our
-- dialect's addition) as q4 does: it bounds the join and the aggregate on
-- event time, and the OVER's sellers on the wall clock (its order has no
-- watermark), a seller leaving once unchanged that long.
CREATE SOURCE auction (
    id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT,
    reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT,
    category BIGINT, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'auction', events = 20000, seed = 42);

CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q6 AS
SELECT Q.seller,
       AVG(Q.final) OVER (PARTITION BY Q.seller ORDER BY Q.date_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg
FROM (
    SELECT MAX(B.price) AS final, A.seller, A.expires AS date_time
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
    GROUP BY A.id, A.seller, A.expires
) Q
STATE TTL INTERVAL '1' DAY;

CREATE SINK q6_out FROM q6 WITH (connector = 'stdout');
