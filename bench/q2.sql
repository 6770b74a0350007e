-- Nexmark q2: bids on auctions whose id is a multiple of 123.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = {{events}}, seed = 42);

CREATE SINK q2_out AS
SELECT auction, price
FROM bid
WHERE auction % 123 = 0
WITH (connector = 'blackhole');
