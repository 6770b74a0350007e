-- Generated from bench/q3.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q3.sql
-- Nexmark q3: local item suggestion — the persons in Oregon, Idaho or
-- California who sell in category 10 (the published form). The states are
-- upper case as in Flink's text, which is what the generator writes
-- (RisingWave's text compares with lower case). The regular join has no
-- window to bound it, so the view says STATE TTL (our dialect's addition):
-- a stored person or auction meets rows of the other side for one day of
-- event time.
CREATE SOURCE auction (
    id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT,
    reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT,
    category BIGINT, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'auction', events = 20000, seed = 42);

CREATE SOURCE person (
    id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR,
    city VARCHAR, state VARCHAR, date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'person', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q3 AS
SELECT P.name, P.city, P.state, A.id
FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')
STATE TTL INTERVAL '1' DAY;

CREATE SINK q3_out FROM q3 WITH (connector = 'stdout');
