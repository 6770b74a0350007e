-- Generated from bench/q13.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q13.sql
-- Nexmark q13: bounded side input join — each bid joined with the row of
-- a side table its auction maps to, as the table is when the bid is
-- processed (RisingWave's form: a processing-time temporal join, FOR
-- SYSTEM_TIME AS OF PROCTIME()), with side_input filled as RisingWave
-- fills it: INSERT … SELECT over generate_series(0, 9999) (its
-- ${BENCHMARK_NEXMARK_RISINGWAVE_Q13_SIDE_INPUT_ROW_COUNT} - 1 is 9999
-- here). The table is filled before the source starts, so every bid finds
-- its row and the answer is deterministic.
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE TABLE side_input (
    key BIGINT PRIMARY KEY,
    value VARCHAR
);

INSERT INTO side_input SELECT v, v::varchar FROM generate_series(0, 9999) AS s(v);

CREATE SINK q13_out AS
SELECT B.auction, B.bidder, B.price, B.date_time, S.value
FROM bid B
JOIN side_input FOR SYSTEM_TIME AS OF PROCTIME() S
ON mod(B.auction, 10000) = S.key
WITH (connector = 'stdout');
