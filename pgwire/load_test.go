package pgwire

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// loadQueries is the number of queries each load-test client runs
// (STREAMSQL_LOAD_QUERIES; default 1000, 200 under -short).
func loadQueries() int {
	if s := os.Getenv("STREAMSQL_LOAD_QUERIES"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if testing.Short() {
		return 200
	}
	return 1000
}

// TestLoad runs 50 concurrent clients against views a throttled datagen
// pipeline keeps updating: prepared point queries, whole-view reads and
// simple-protocol queries, all in one engine. Every query must succeed.
func TestLoad(t *testing.T) {
	const clients = 50
	addr, _ := startServer(t)
	admin := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, admin,
		"CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, date_time TIMESTAMP) WITH (connector = 'datagen', table = 'bid', throttle = '20000')",
		"CREATE MATERIALIZED VIEW by_auction AS SELECT auction, count(*) AS n, max(price) AS top FROM bid GROUP BY auction",
		"CREATE MATERIALIZED VIEW by_bucket AS SELECT price % 16 AS bucket, count(*) AS n FROM bid GROUP BY price % 16")
	// Wait until the pipeline has produced rows.
	deadline := time.Now().Add(waitDeadline)
	for {
		var n int64
		if err := admin.QueryRow(context.Background(), "SELECT count(*) FROM by_auction").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("datagen produced %d groups in %v", n, waitDeadline)
		}
		time.Sleep(20 * time.Millisecond)
	}
	perClient := loadQueries()
	modes := []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeDescribeExec}
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		conns[i] = connect(t, addr, modes[i%len(modes)])
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			r := rand.New(rand.NewPCG(uint64(i), 1))
			for q := 0; q < perClient; q++ {
				var err error
				switch q % 20 {
				case 0:
					var n int64
					err = c.QueryRow(ctx, "SELECT sum(n) FROM by_bucket").Scan(&n)
				case 1:
					var tz string
					err = c.QueryRow(ctx, "SHOW TimeZone").Scan(&tz)
				default:
					var n, top int64
					err = c.QueryRow(ctx, "SELECT n, top FROM by_auction WHERE auction = $1", 1000+r.Int64N(200)).Scan(&n, &top)
					if err == pgx.ErrNoRows {
						err = nil
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d clients × %d queries in %v", clients, perClient, time.Since(start))
}
