-- Kafka → 10-second bid volume → Postgres (exactly once) and stdout.
--
-- Runs as is against the local stand-ins of docs/connectors/kafka-to-postgres.md:
--   streamsql dev kafka --produce bids --rate 1000 --poison 0.01   (Kafka on 127.0.0.1:9092)
--   streamsql dev postgres                                          (Postgres on 127.0.0.1:5432)
--   streamsql run --state-dir /tmp/k2p --checkpoint-interval 2s examples/kafka_to_postgres.sql
-- For your own Kafka and Postgres, change `brokers` and `dsn` below.

-- Nexmark bids as JSON objects, one per Kafka record. A record that does
-- not decode (bad JSON, a wrong type) goes to the table bids_dead_letter
-- with its partition, offset, raw bytes and error, and the pipeline goes on.
CREATE SOURCE bids (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    -- Bids may arrive up to 2 seconds out of order: the watermark trails
    -- the latest date_time seen (on every partition) by 2 seconds.
    WATERMARK FOR date_time AS date_time - INTERVAL '2' SECOND
) WITH (
    connector = 'kafka', brokers = '127.0.0.1:9092', topic = 'bids', format = 'json',
    on_error = 'dead_letter', dead_letter = 'bids_dead_letter'
);

-- The lateness contract: a 10-second window is emitted once, when the
-- watermark passes its end (2 s of event time after it). A bid arriving
-- after that but within 1 minute of the window's end updates the emitted
-- row (Postgres gets an upsert, stdout a second line); a bid later than
-- that is dropped and counted in SHOW METRICS. `streamsql explain` prints
-- this contract.
CREATE MATERIALIZED VIEW bid_volume AS
SELECT window_start, window_end, count(*) AS bids, sum(price) AS total_price, max(price) AS max_price
FROM TUMBLE(bids, date_time, INTERVAL '10' SECOND)
GROUP BY window_start, window_end
ALLOWED LATENESS INTERVAL '1' MINUTE
LATE DATA UPDATE
EMIT ON WINDOW CLOSE;

-- One row per window in the table bid_volume, keyed by (window_start,
-- window_end). Each checkpoint's changes and a progress row commit in one
-- Postgres transaction, so a crash never loses or repeats a change.
CREATE SINK bid_volume_pg FROM bid_volume WITH (
    connector = 'postgres',
    dsn = 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable',
    table = 'bid_volume',
    create_table = true,
    delivery = 'exactly_once'
);

-- The same changelog on the terminal, one line per change (at-least-once:
-- after a crash, lines since the last checkpoint are printed again).
CREATE SINK bid_volume_out FROM bid_volume WITH (connector = 'stdout');
