-- Generated from bench/q9.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q9.sql
-- Nexmark q9: the winning bid of each auction, the highest bid (earliest
-- on a tie) between its opening and its expiry (RisingWave's form): a
-- keyed Top-N, ROW_NUMBER() per auction over the join of auctions and
-- bids, kept at 1. The view is updating: a higher bid replaces the
-- winner. The join has no window to bound it, so its state is bounded by
-- STATE TTL (our dialect's addition: a bid joins the auctions of the last
-- day); nothing bounds the Top-N's auctions, so the view runs with strict
-- off. The auction source declares its key (Nexmark's auction ids are
-- unique): each Top-N partition is then one auction's bids, final once
-- the bids' watermark passes its expires, and the Top-N drops it there
-- (EXPLAIN: final=[wm > expires (auction.id unique)]); its row stays in
-- the view.
SET strict = off;

CREATE SOURCE auction (
    id BIGINT PRIMARY KEY, item_name VARCHAR, description VARCHAR, initial_bid BIGINT,
    reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT,
    category BIGINT, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'auction', events = 20000, seed = 42);

CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q9 AS
SELECT
    id, item_name, description, initial_bid, reserve, date_time, expires,
    seller, category, auction, bidder, price, bid_date_time
FROM (
    SELECT A.*, B.auction, B.bidder, B.price, B.date_time AS bid_date_time,
        ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS rownum
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
)
WHERE rownum <= 1
STATE TTL INTERVAL '1' DAY;

CREATE SINK q9_out FROM q9 WITH (connector = 'stdout');
