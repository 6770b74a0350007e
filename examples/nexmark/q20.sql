-- Generated from bench/q20.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q20.sql
-- Nexmark q20: expand bid with auction — every bid joined with its
-- auction, for the auctions of category 10 (RisingWave's form). The
-- regular join has no window to bound it, so the view says STATE TTL (our
-- dialect's addition), as q3 does.
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

CREATE MATERIALIZED VIEW q20 AS
SELECT auction, bidder, price, channel, url, B.date_time AS date_timeB,
       item_name, description, initial_bid, reserve, A.date_time AS date_timeA,
       expires, seller, category
FROM bid B INNER JOIN auction A ON B.auction = A.id
WHERE A.category = 10
STATE TTL INTERVAL '1' DAY;

CREATE SINK q20_out FROM q20 WITH (connector = 'stdout');
