-- Generated from bench/q8.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q8.sql
-- Nexmark q8: persons who opened an auction in the same 10 s TUMBLE window
-- they registered in (a window join).
CREATE SOURCE person (
    id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR,
    city VARCHAR, state VARCHAR, date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'person', events = 20000, seed = 42);

CREATE SOURCE auction (
    id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT,
    reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT,
    category BIGINT, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'auction', events = 20000, seed = 42);

CREATE MATERIALIZED VIEW q8 AS
SELECT P.id, P.name, P.starttime
FROM (
    SELECT id, name, window_start AS starttime, window_end AS endtime
    FROM TUMBLE(person, date_time, INTERVAL '10' SECOND)
    GROUP BY id, name, window_start, window_end
) P
JOIN (
    SELECT seller, window_start AS starttime, window_end AS endtime
    FROM TUMBLE(auction, date_time, INTERVAL '10' SECOND)
    GROUP BY seller, window_start, window_end
) A
ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime
LATE DATA DROP
EMIT ON WINDOW CLOSE;

CREATE SINK q8_out FROM q8 WITH (connector = 'stdout');
