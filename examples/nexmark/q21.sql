-- Generated from bench/q21.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q21.sql
-- Nexmark q21: each bid with a channel id, from a fixed table for the four
-- named channels, else extracted from the url's channel_id parameter
-- (RisingWave's form: regexp_match and a subscript for Flink's REGEXP_EXTRACT).
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE SINK q21_out AS
SELECT auction, bidder, price, channel,
       CASE
           WHEN lower(channel) = 'apple' THEN '0'
           WHEN lower(channel) = 'google' THEN '1'
           WHEN lower(channel) = 'facebook' THEN '2'
           WHEN lower(channel) = 'baidu' THEN '3'
           ELSE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2]
       END AS channel_id
FROM bid
WHERE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2] IS NOT NULL
   OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')
WITH (connector = 'stdout');
