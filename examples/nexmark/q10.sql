-- Generated from bench/q10.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q10.sql
-- Nexmark q10: every bid with its date and minute as text, partitioned by
-- day and hour in the published form's file sink (RisingWave's form:
-- to_char, with HH24:MI for Flink's DATE_FORMAT HH:mm; the file sink
-- becomes a blackhole).
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE SINK q10_out AS
SELECT auction, bidder, price, date_time,
       to_char(date_time, 'YYYY-MM-DD') AS date,
       to_char(date_time, 'HH24:MI') AS time
FROM bid
WITH (connector = 'stdout');
