-- Nexmark q0: pass-through of bids.
-- The engine has no CREATE SINK ... AS SELECT, so the query is a view; the
-- view store (Materialize) keeps every row, so q0 includes its cost.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = {{events}}, seed = 42);

CREATE MATERIALIZED VIEW q0 AS
SELECT auction, bidder, price, date_time
FROM bid;

CREATE SINK q0_out FROM q0 WITH (connector = 'blackhole');
