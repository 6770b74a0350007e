-- Generated from bench/q4.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q4.sql
-- Nexmark q4: the average closing price of the auctions in each category,
-- where an auction's closing price is its highest bid between its opening
-- and its expiry (RisingWave's form). The inner aggregate's maximum moves
-- as bids arrive, so the outer average takes back the old maximum
-- (an aggregate over a retracting input). Neither aggregate nor the join
-- has a window to bound it, so their state is bounded by STATE TTL (our
-- dialect's addition): a bid joins the auctions of the last day, and a
-- group leaves one day of event time after its last change.
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

CREATE MATERIALIZED VIEW q4 AS
SELECT Q.category, AVG(Q.final) AS avg
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category
STATE TTL INTERVAL '1' DAY;

CREATE SINK q4_out FROM q4 WITH (connector = 'stdout');
