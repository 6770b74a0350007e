-- Nexmark q7: the highest bid in each 10-second tumbling window, over
-- 200,000 generated events, printed to stdout as a changelog.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 200000, seed = 42);

CREATE MATERIALIZED VIEW q7 AS
SELECT window_start, window_end, max(price) AS max_price, count(*) AS bids
FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
GROUP BY window_start, window_end
LATE DATA DROP
EMIT ON WINDOW CLOSE;

CREATE SINK q7_out FROM q7 WITH (connector = 'stdout');
