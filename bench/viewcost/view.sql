-- Issue 13's stored-view workload: 1 M Nexmark bids as JSON lines (write
-- them with `streamsql bench --write-bids bids.jsonl --events 1000000`),
-- a 10 s TUMBLE per auction kept in a materialized view, its changelog to
-- a file sink. bench/viewcost/run.sh substitutes BIDS and OUT.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP,
    WATERMARK FOR date_time AS date_time - INTERVAL '2' SECOND
) WITH (connector = 'file', path = '{{bids}}', format = 'json');

CREATE MATERIALIZED VIEW w AS
SELECT auction, window_start, count(*) AS bids, max(price) AS top
FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
GROUP BY auction, window_start
LATE DATA DROP
EMIT ON WINDOW CLOSE;

CREATE SINK w_out FROM w WITH (connector = 'file', path = '{{out}}');
