package datagen

import (
	"context"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkBids measures pure bid generation into a reused row: the cost
// per bid event on one core.
func BenchmarkBids(b *testing.B) {
	g := NewGenerator(DefaultConfig())
	row := make(types.Row, bidWidth)
	c := newCursor(BidEvent, 0, 1)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		g.Bid(c.peek(), row)
		c.advance()
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkSourceBids measures the bid source end to end through Read with
// batches of 1024 rows: generation plus the per-batch slab.
func BenchmarkSourceBids(b *testing.B) {
	benchSource(b, "bid")
}

// BenchmarkSourceAuctions measures the auction source through Read.
func BenchmarkSourceAuctions(b *testing.B) {
	benchSource(b, "auction")
}

// BenchmarkSourcePersons measures the person source through Read.
func BenchmarkSourcePersons(b *testing.B) {
	benchSource(b, "person")
}

func benchSource(b *testing.B, table string) {
	src, err := Factory().New(context.Background(), connectors.SourceSpec{Name: table, Options: map[string]string{"table": table}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	rows := 0
	for rows < b.N {
		batch, err := src.Read(ctx, min(1024, b.N-rows))
		if err != nil {
			b.Fatal(err)
		}
		rows += len(batch.Rows)
	}
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
}
