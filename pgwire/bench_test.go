package pgwire

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BenchmarkPointQuery: `SELECT * FROM v WHERE key = $1`, prepared, from 8
// pgx connections against a 10,000-row view. It reports queries/s and the
// p99 latency in milliseconds.
//
//	go test -run XXX -bench PointQuery -benchtime 40000x ./pgwire
func BenchmarkPointQuery(b *testing.B) {
	for _, m := range []struct {
		name    string
		mode    pgx.QueryExecMode
		datagen bool
	}{
		{"cache_statement", pgx.QueryExecModeCacheStatement, false},
		{"cache_statement_while_datagen_runs", pgx.QueryExecModeCacheStatement, true},
		{"simple", pgx.QueryExecModeSimpleProtocol, false},
		{"exec", pgx.QueryExecModeExec, false},
		{"describe_exec", pgx.QueryExecModeDescribeExec, false},
	} {
		b.Run(m.name, func(b *testing.B) { benchPoint(b, m.mode, m.datagen) })
	}
}

// benchPoint measures point queries in one query mode; with datagen, a
// pipeline fed 50,000 bids/s keeps the engine busy meanwhile.
func benchPoint(b *testing.B, mode pgx.QueryExecMode, datagen bool) {
	const conns, keys = 8, 10000
	addr, e := startServer(b)
	ctx := context.Background()
	if _, err := e.Exec(ctx, "CREATE SOURCE s (k BIGINT, v BIGINT) WITH (connector = 'memory'); CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n, max(v) AS top FROM s GROUP BY k"); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < keys; i += 1000 {
		q := "INSERT INTO s VALUES "
		for j := i; j < i+1000; j++ {
			if j > i {
				q += ", "
			}
			q += "(" + itoa(j) + ", " + itoa(j*7) + ")"
		}
		if _, err := e.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := e.Exec(ctx, "FLUSH"); err != nil {
		b.Fatal(err)
	}
	if datagen {
		if _, err := e.Exec(ctx, "CREATE SOURCE bid (auction BIGINT, price BIGINT) WITH (connector = 'datagen', table = 'bid', throttle = '50000'); CREATE MATERIALIZED VIEW top AS SELECT auction, max(price) AS p FROM bid GROUP BY auction"); err != nil {
			b.Fatal(err)
		}
	}
	cs := make([]*pgx.Conn, conns)
	for i := range cs {
		cs[i] = connect(b, addr, mode)
	}
	pointLoad(b, cs, keys, "SELECT n, top FROM v WHERE k = $1", func(c *pgx.Conn, k int64) error {
		var n, top int64
		if err := c.QueryRow(ctx, "SELECT n, top FROM v WHERE k = $1", k).Scan(&n, &top); err != nil || top != 7*k {
			return fmt.Errorf("k=%d: top %d, %w", k, top, err)
		}
		return nil
	})
}

// BenchmarkTablePointQuery is pgbench's select-only shape on a TABLE:
// `SELECT * FROM kv WHERE id = $1` over 100,000 rows keyed by id, from 8
// pgx connections, prepared and in the simple protocol. It reports
// queries/s and the p99 latency in milliseconds.
//
//	go test -run XXX -bench TablePointQuery -benchtime 40000x ./pgwire
func BenchmarkTablePointQuery(b *testing.B) {
	for _, m := range []struct {
		name string
		mode pgx.QueryExecMode
	}{
		{"prepared", pgx.QueryExecModeCacheStatement},
		{"simple", pgx.QueryExecModeSimpleProtocol},
	} {
		b.Run(m.name, func(b *testing.B) { benchTablePoint(b, m.mode) })
	}
}

func benchTablePoint(b *testing.B, mode pgx.QueryExecMode) {
	const conns, keys = 8, 100_000
	addr, e := startServer(b)
	ctx := context.Background()
	if _, err := e.Exec(ctx, "CREATE TABLE kv (id BIGINT PRIMARY KEY, v BIGINT, pad VARCHAR)"); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < keys; i += 1000 {
		var q strings.Builder
		q.WriteString("INSERT INTO kv VALUES ")
		for j := i; j < i+1000; j++ {
			if j > i {
				q.WriteString(", ")
			}
			fmt.Fprintf(&q, "(%d, %d, 'row %d')", j, j*7, j)
		}
		if _, err := e.Exec(ctx, q.String()); err != nil {
			b.Fatal(err)
		}
	}
	cs := make([]*pgx.Conn, conns)
	for i := range cs {
		cs[i] = connect(b, addr, mode)
	}
	pointLoad(b, cs, keys, "SELECT * FROM kv WHERE id = $1", func(c *pgx.Conn, k int64) error {
		var id, v int64
		var pad string
		if err := c.QueryRow(ctx, "SELECT * FROM kv WHERE id = $1", k).Scan(&id, &v, &pad); err != nil || v != 7*k {
			return fmt.Errorf("k=%d: v %d, %w", k, v, err)
		}
		return nil
	})
}

// pointLoad runs b.N point queries (query does one for key k and checks
// its answer) from the connections cs at once, keys drawn uniformly
// below keys, after one warm-up query per connection; it reports
// queries/s and the p99 latency in milliseconds.
func pointLoad(b *testing.B, cs []*pgx.Conn, keys int64, sql string, query func(c *pgx.Conn, k int64) error) {
	for _, c := range cs {
		if err := query(c, 5); err != nil {
			b.Fatalf("warm-up %s: %v", sql, err)
		}
	}
	lat := make([][]time.Duration, len(cs))
	var next int64
	var mu sync.Mutex
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for {
				mu.Lock()
				if next >= int64(b.N) {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				k := r.Int64N(keys)
				t0 := time.Now()
				if err := query(c, k); err != nil {
					b.Error(err)
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	b.StopTimer()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(len(all))/el.Seconds(), "qps")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99_ms")
	}
}

// BenchmarkCopyFrom: pgx.CopyFrom (binary COPY FROM STDIN) of 100,000
// three-column rows per iteration into a memory source; it reports rows/s.
//
//	go test -run XXX -bench CopyFrom -benchtime 5x ./pgwire
func BenchmarkCopyFrom(b *testing.B) {
	addr, _ := startServer(b)
	c := connect(b, addr, pgx.QueryExecModeExec)
	mustExec(b, c, "CREATE SOURCE bids (auction BIGINT, bidder VARCHAR, price DOUBLE)")
	const n = 100_000
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i % 1000), "bidder", float64(i)}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := c.CopyFrom(context.Background(), pgx.Identifier{"bids"}, []string{"auction", "bidder", "price"}, pgx.CopyFromRows(rows))
		if err != nil || got != n {
			b.Fatalf("CopyFrom: %d, %v", got, err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "rows/s")
}
