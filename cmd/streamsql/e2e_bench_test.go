package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/types"
)

// The end-to-end benchmarks measure Kafka → tumbling window → Postgres
// (exactly_once) in one process, with a real Postgres and kfake over TCP:
//
//	go test -run '^$' -bench KafkaToPostgres -benchtime 1x ./cmd/streamsql
//
// Throughput drains a backlog of bids into Postgres; Latency produces at a
// steady rate with event time = produce time and reports the p99 from an
// event's production to a Postgres row that counts it. Each is one run
// (b.N is ignored beyond 1): the figures are per run, not per iteration.

const benchCheckpoint = time.Second

// drive runs the engine's loop (read, process, checkpoint every interval)
// until ctx ends, as `streamsql run` does.
func drive(ctx context.Context, e *engine.Engine, interval time.Duration) error {
	last := time.Now()
	for ctx.Err() == nil {
		progressed, _, err := e.Step(ctx, 4096)
		if err != nil && ctx.Err() == nil {
			return err
		}
		if time.Since(last) >= interval {
			if err := e.Checkpoint(); err != nil {
				return err
			}
			last = time.Now()
		}
		if !progressed {
			time.Sleep(2 * time.Millisecond)
		}
	}
	return nil
}

func benchPipeline(brokers, dsn, window string) string {
	return fmt.Sprintf(`
CREATE SOURCE bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR, WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND)
WITH (connector = 'kafka', brokers = '%s', topic = 'bids', format = 'json');
CREATE MATERIALIZED VIEW volume AS
SELECT window_start, window_end, count(*) AS bids, sum(price) AS total
FROM TUMBLE(bids, date_time, INTERVAL '%s')
GROUP BY window_start, window_end LATE DATA DROP;
CREATE SINK volume_pg FROM volume WITH (connector = 'postgres', dsn = '%s', table = 'volume',
  create_table = true, delivery = 'exactly_once');`, brokers, window, dsn)
}

func BenchmarkKafkaToPostgresThroughput(b *testing.B) {
	const n = 500_000
	in, produced := newBidsTopic(b, n, 0, 0)
	if err := <-produced; err != nil {
		b.Fatal(err)
	}
	in.expect(b, n)
	want := strings.Join(in.wantRows(), "\n")
	srv := sharedPostgres(b)
	dsn := srv.DSNFor(srv.NewDB(b))
	e, err := engine.Open(engine.Options{StateDir: b.TempDir(), Registry: registry(io.Discard), Settings: map[string]string{"checkpoint_interval": "1s"}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.ResetTimer()
	start := time.Now()
	if _, err := e.Exec(context.Background(), benchPipeline(in.brokers, dsn, "10 SECOND")); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- drive(ctx, e, benchCheckpoint) }()
	for {
		got, err := windowRows(dsn, volumeQuery)
		if err == nil && strings.Join(got, "\n") == want {
			break
		}
		if time.Since(start) > 5*time.Minute {
			b.Fatalf("Postgres never matched: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "events/s")
	b.ReportMetric(elapsed.Seconds(), "s/run")
}

func BenchmarkKafkaToPostgresLatency(b *testing.B) {
	const (
		rate = 20_000 // bids per second, produced steadily
		dur  = 15 * time.Second
	)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "bids"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	srv := sharedPostgres(b)
	dsn := srv.DSNFor(srv.NewDB(b))
	e, err := engine.Open(engine.Options{StateDir: b.TempDir(), Registry: registry(io.Discard)})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Exec(context.Background(), benchPipeline(c.ListenAddrs()[0], dsn, "1 SECOND")); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- drive(ctx, e, benchCheckpoint) }()

	// Event i has event time base + i/rate and is produced at that moment
	// of wall time.
	base := time.Now().Add(200 * time.Millisecond).Truncate(time.Second).Add(time.Second)
	total := int64(dur.Seconds() * rate)
	var prodMu sync.Mutex
	producedAt := make([]time.Time, total)
	go func() {
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("bids"), kgo.ProducerLinger(0))
		if err != nil {
			errc <- err
			return
		}
		defer cl.Close()
		g := datagen.NewGenerator(datagen.Config{Seed: datagen.DefaultSeed, Rate: rate, BaseTime: base.UnixMicro()})
		schema, _ := datagen.Schema("bid")
		row := make(types.Row, len(schema))
		for i := int64(0); i < total && ctx.Err() == nil; i++ {
			at := base.Add(time.Duration(i) * time.Second / rate)
			if d := time.Until(at); d > 0 {
				time.Sleep(d)
			}
			g.Bid(i, row)
			row[5] = types.TimestampValue(at.UnixMicro())
			prodMu.Lock()
			producedAt[i] = time.Now()
			prodMu.Unlock()
			cl.Produce(ctx, &kgo.Record{Key: fmt.Appendf(nil, "%d", row[0].I), Value: format.AppendJSON(nil, schema, row)}, nil)
		}
		_ = cl.Flush(ctx)
	}()

	// Poll Postgres: when window w first shows count k, the first k events
	// of w (in production order) are visible.
	conn, err := pgx.Connect(ctx, dsn)
	for err != nil && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
		conn, err = pgx.Connect(ctx, dsn)
	}
	defer conn.Close(context.Background())
	seen := map[int64]int64{} // window second → count already credited
	var lat []time.Duration
	b.ResetTimer()
	deadline := base.Add(dur + 2*benchCheckpoint + 2*time.Second)
	for time.Now().Before(deadline) {
		rows, err := conn.Query(ctx, `SELECT window_start, bids FROM volume`)
		now := time.Now()
		if err == nil {
			for rows.Next() {
				var ws time.Time
				var cnt int64
				if rows.Scan(&ws, &cnt) != nil {
					continue
				}
				w := ws.Unix() - base.Unix()
				first := w * rate // index of the window's first event
				prodMu.Lock()
				for k := seen[w]; k < cnt && first+k < total; k++ {
					if t := producedAt[first+k]; !t.IsZero() {
						lat = append(lat, now.Sub(t))
					}
				}
				prodMu.Unlock()
				seen[w] = max(seen[w], cnt)
			}
			rows.Close()
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.StopTimer()
	cancel()
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	if len(lat) < int(total)*9/10 {
		b.Fatalf("only %d of %d events became visible", len(lat), total)
	}
	slices.Sort(lat)
	p := func(q float64) float64 { return lat[int(q*float64(len(lat)-1))].Seconds() * 1000 }
	b.ReportMetric(p(0.50), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(float64(len(lat)), "events")
	b.Logf("steady %d bids/s for %s, checkpoint every %s: p50 %.0f ms, p99 %.0f ms, max %.0f ms over %d events", rate, dur, benchCheckpoint, p(0.5), p(0.99), p(1), len(lat))
}
