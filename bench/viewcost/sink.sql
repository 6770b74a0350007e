-- The same query as bench/viewcost/view.sql with no view: the sink's
-- query runs with a pass-through root that stores nothing.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP,
    WATERMARK FOR date_time AS date_time - INTERVAL '2' SECOND
) WITH (connector = 'file', path = '{{bids}}', format = 'json');

CREATE SINK w_out AS
SELECT auction, window_start, count(*) AS bids, max(price) AS top
FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
GROUP BY auction, window_start
LATE DATA DROP
EMIT ON WINDOW CLOSE
WITH (connector = 'file', path = '{{out}}');
