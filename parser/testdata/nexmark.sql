-- Nexmark-style pipeline: the queries the parser must accept.
CREATE SOURCE person (
    id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR,
    city VARCHAR, state VARCHAR, date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', datagen.kind = 'person', rate = 1000, seed = 42);

CREATE SOURCE auction (
    id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT,
    reserve BIGINT, date_time TIMESTAMP, expires TIMESTAMP, seller BIGINT,
    category BIGINT, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4 seconds'
) WITH (connector = 'datagen', datagen.kind = 'auction');

CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'datagen', datagen.kind = 'bid');

-- q5-like: hot items over sliding windows.
CREATE MATERIALIZED VIEW q5 AS
SELECT auction, window_start, window_end, count(*) AS num
FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
GROUP BY auction, window_start, window_end
ALLOWED LATENESS INTERVAL '5' SECOND
LATE DATA UPDATE
EMIT ON WINDOW CLOSE;

-- q7: highest bid per window, self join with a windowed max.
CREATE MATERIALIZED VIEW q7 AS
SELECT b.auction, b.price, b.bidder, b.date_time, b.extra
FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) b
JOIN (
    SELECT MAX(price) AS maxprice, window_start, window_end
    FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
    GROUP BY window_start, window_end
) b1
ON b.price = b1.maxprice AND b.window_start = b1.window_start AND b.window_end = b1.window_end
LATE DATA DROP
EMIT ON WINDOW CLOSE;

-- q8: new users who opened auctions in the same window (window join).
CREATE MATERIALIZED VIEW q8 AS
SELECT p.id, p.name, p.starttime
FROM (
    SELECT id, name, window_start AS starttime, window_end AS endtime
    FROM TUMBLE(person, date_time, INTERVAL '10' SECOND)
    GROUP BY id, name, window_start, window_end
) p
JOIN (
    SELECT seller, window_start AS astarttime, window_end AS aendtime
    FROM TUMBLE(auction, date_time, INTERVAL '10' SECOND)
    GROUP BY seller, window_start, window_end
) a
ON p.id = a.seller AND p.starttime = a.astarttime AND p.endtime = a.aendtime
LATE DATA DROP
EMIT ON WINDOW CLOSE;

-- q11: user sessions.
CREATE MATERIALIZED VIEW q11 AS
SELECT bidder, count(*) AS bid_count, window_start, window_end
FROM SESSION(bid, date_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
LATE DATA SIDE OUTPUT q11_late
EMIT ON WINDOW CLOSE;

-- q3-like: an enrichment join with the state of the inputs bounded by TTL.
CREATE MATERIALIZED VIEW q3 AS
SELECT p.name, p.city, p.state, a.id
FROM auction AS a INNER JOIN person AS p ON a.seller = p.id
WHERE a.category = 10 AND (p.state = 'OR' OR p.state = 'ID' OR p.state = 'CA')
STATE TTL INTERVAL '1' HOUR;

-- q2 and q1: filters and projections with Postgres casts.
CREATE MATERIALIZED VIEW q1 AS
SELECT auction, bidder, (0.908 * price)::bigint AS price, date_time, channel || '/' || url AS link
FROM bid WHERE auction % 123 = 0 AND extra IS NOT NULL AND channel <> 'Apple';

-- interval join.
CREATE MATERIALIZED VIEW bid_after_auction AS
SELECT a.id, b.price
FROM auction a JOIN bid b
ON a.id = b.auction AND b.date_time BETWEEN a.date_time - INTERVAL '1' MINUTE AND a.date_time + INTERVAL '1 hour'
STATE TTL INTERVAL '2 hours';

CREATE SINK q7_pg FROM q7 WITH (
    connector = 'postgres', dsn = 'postgres://app@127.0.0.1:5432/app',
    table = 'q7_results', primary_key = 'auction, date_time'
);
CREATE SINK q7_kafka FROM q7 WITH (connector = 'kafka', topic = 'q7', brokers = '...', delivery = 'exactly_once');
SET strict = on;
SET checkpoint_interval = '10s';
EXPLAIN SELECT * FROM q7;
FLUSH;
SHOW MATERIALIZED VIEWS;
DESCRIBE q7;
