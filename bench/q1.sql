-- Nexmark q1: bid prices converted from dollars to euros.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = {{events}}, seed = 42);

CREATE SINK q1_out AS
SELECT auction, bidder, 0.908 * price AS price, date_time
FROM bid
WITH (connector = 'blackhole');
