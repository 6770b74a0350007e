-- Generated from bench/q0.sql by `go test ./bench -run TestExamples -update`;
-- edit that file, not this one. Run it with
--   go run ./cmd/streamsql run --state-dir "$(mktemp -d)" examples/nexmark/q0.sql
-- Nexmark q0: pass-through of bids.
-- A sink with its own query: no view store, so the pass-through keeps no
-- state (as the reference protocol's blackhole sink expects).
CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', table = 'bid', events = 20000, seed = 42);

CREATE SINK q0_out AS
SELECT auction, bidder, price, date_time
FROM bid
WITH (connector = 'stdout');
