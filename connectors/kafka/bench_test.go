package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/internal/benchrate"
	"github.com/streamsql/streamsql/types"
	"github.com/twmb/franz-go/pkg/kgo"
)

var benchBidSchema = func() types.Schema {
	s, err := datagen.Schema("bid")
	if err != nil {
		panic(err)
	}
	return s
}()

func benchBid(i int) []byte {
	return fmt.Appendf(nil, `{"auction":%d,"bidder":%d,"price":%d,"channel":"Google","url":"https://www.nexmark.com/google/item.htm?query=1","date_time":"2024-01-01 00:00:%02d.%03d","extra":""}`,
		1000+i%1000, 2000+i%5000, 100+i%10000, i/1000%60, i%1000)
}

// BenchmarkSourceDecodeBids measures the source's per-record work without
// the network: records already polled are decoded into batches of 1024
// (JSON bids, per core).
func BenchmarkSourceDecodeBids(b *testing.B) {
	dec, err := newRecordDecoder(formatJSON, benchBidSchema, nil, nil, connectors.Opts{Specs: sourceOptions})
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]*kgo.Record, 1024)
	for i := range recs {
		recs[i] = &kgo.Record{Value: benchBid(i), Offset: int64(i), Timestamp: time.Now()}
	}
	s := &source{dec: dec, parts: 1, next: make([]int64, 1), pending: make([][]*kgo.Record, 1)}
	b.ReportAllocs()
	b.ResetTimer()
	perf := benchrate.Start()
	rows := 0
	for rows < b.N {
		s.pending[0] = append(s.pending[0][:0], recs...)
		batch := s.batch(0, 1024)
		rows += len(batch.Rows)
	}
	perf.Report(b, rows)
}

// BenchmarkSourceKafkaBids reads JSON bids from a kfake topic over TCP
// through Read (max 1024): fetch, client, decode. kfake shares the cores,
// so this is a floor; events/cpu-s counts the broker's CPU too.
func BenchmarkSourceKafkaBids(b *testing.B) {
	brokers := cluster(b)
	topic := newTopic(b, brokers, 1)
	cl := client(b, brokers, kgo.ProducerLinger(10*time.Millisecond), kgo.MaxBufferedRecords(1<<20))
	for i := 0; i < b.N; i++ {
		cl.Produce(context.Background(), &kgo.Record{Topic: topic, Value: benchBid(i)}, nil)
	}
	if err := cl.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	src := newTestSource(b, benchBidSchema, map[string]string{"brokers": brokers, "topic": topic})
	if err := src.Open(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	perf := benchrate.Start()
	rows := 0
	for rows < b.N {
		batch, err := src.Read(context.Background(), 1024)
		if err != nil {
			b.Fatal(err)
		}
		rows += len(batch.Rows) + len(batch.Errors)
	}
	perf.Report(b, rows)
}

// BenchmarkSink writes bid-sized changes to kfake in batches of 1024 with a
// checkpoint every 16 batches, in both delivery modes. kfake runs in the
// same process, so events/cpu-s includes the broker's work.
func BenchmarkSink(b *testing.B) {
	for _, delivery := range []string{atLeastOnce, exactlyOnce} {
		b.Run(delivery, func(b *testing.B) {
			brokers := cluster(b)
			topic := newTopic(b, brokers, 2)
			s, err := SinkFactory().New(connectors.SinkSpec{Name: "bench", Schema: benchBidSchema, Key: []int{0, 1},
				Options: map[string]string{"connector": "kafka", "brokers": brokers, "topic": topic, "delivery": delivery}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			dec, _ := newRecordDecoder(formatJSON, benchBidSchema, nil, nil, connectors.Opts{Specs: sourceOptions})
			batch := make([]connectors.Change, 1024)
			for i := range batch {
				row, _, _, err := dec.decode(nil, benchBid(i))
				if err != nil {
					b.Fatal(err)
				}
				batch[i] = connectors.Change{Op: connectors.Upsert, Row: row}
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			perf := benchrate.Start()
			id := uint64(0)
			for n := 0; n < b.N; n += len(batch) {
				// Every batch has new keys, so the exactly-once collapse per
				// key keeps them all (copying the rows is part of the cost).
				out := make([]connectors.Change, len(batch))
				for i, c := range batch {
					row := c.Row.Clone()
					row[0] = types.IntValue(int64(n + i))
					out[i] = connectors.Change{Op: c.Op, Row: row}
				}
				if err := s.Write(ctx, out); err != nil {
					b.Fatal(err)
				}
				if n/len(batch)%16 == 15 || n+len(batch) >= b.N {
					id++
					if _, err := s.PreCommit(ctx, id); err != nil {
						b.Fatal(err)
					}
					if err := s.Commit(ctx, id); err != nil {
						b.Fatal(err)
					}
				}
			}
			perf.Report(b, b.N)
		})
	}
}
