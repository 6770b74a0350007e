-- Generated from bench/q12.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q12.sql
-- Nexmark q12: the bids of each bidder in 10 s processing-time windows
-- (RisingWave's form). The dialect declares processing time as a
-- generated column `p_time AS PROCTIME()` with a watermark on it, where
-- RisingWave's nexmark source has it built in; the windows close with the
-- wall clock, and at the end of the bounded run, so the counts depend on
-- the machine's speed and are not reproducible.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    p_time AS PROCTIME(),
    WATERMARK FOR p_time AS p_time
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE SINK q12_out AS
SELECT bidder, count(*) AS bid_count, window_start, window_end
FROM TUMBLE(bid, p_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
LATE DATA DROP
EMIT ON WINDOW CLOSE
WITH (connector = 'stdout');
