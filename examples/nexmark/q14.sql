-- Generated from bench/q14.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q14.sql
-- Nexmark q14: bids converted to euros in a price band, with the part of
-- the day they were made in and how many 'c's their extra field holds
-- (RisingWave's form; count_char, a Java UDF in Flink's, is a SQL function).
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE FUNCTION count_char(s VARCHAR, c VARCHAR) RETURNS BIGINT
LANGUAGE SQL IMMUTABLE
RETURN (char_length(s) - char_length(replace(s, c, ''))) / char_length(c);

CREATE SINK q14_out AS
SELECT auction,
       bidder,
       0.908 * price AS price,
       CASE
           WHEN extract(hour FROM date_time) >= 8 AND extract(hour FROM date_time) <= 18 THEN 'dayTime'
           WHEN extract(hour FROM date_time) <= 6 OR extract(hour FROM date_time) >= 20 THEN 'nightTime'
           ELSE 'otherTime'
       END AS bidTimeType,
       date_time,
       extra,
       count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000
WITH (connector = 'stdout');
