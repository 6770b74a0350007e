package postgres

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkUpsert measures bulk upserts into a real Postgres: each
// iteration is one checkpoint of 50,000 changes to a q7-shaped table
// (two timestamps, a bigint, a double; key window_start, auction), over a
// key space of 200,000 so later checkpoints update existing rows. It
// reports rows/s (changes written per second, commit included).
func BenchmarkUpsert(b *testing.B) {
	for _, delivery := range []string{ExactlyOnce, AtLeastOnce} {
		b.Run(delivery, func(b *testing.B) {
			dsn := newDB(b)
			s := openSink(b, q7Schema, []int{0, 2}, nil, map[string]string{"dsn": dsn, "table": "q7",
				"create_table": "true", "delivery": delivery, "batch_rows": "50000"})
			const perCheckpoint, keys = 50_000, 200_000
			batch := make([]connectors.Change, perCheckpoint)
			ctx := context.Background()
			n := int64(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range batch {
					k := n % keys
					ws := t0 + (k%20)*10_000_000
					batch[j] = connectors.Change{Op: connectors.Upsert, Row: types.Row{
						types.TimestampValue(ws), types.TimestampValue(ws + 10_000_000),
						types.IntValue(k / 20), types.FloatValue(float64(n))}}
					n++
				}
				if err := s.Write(ctx, batch); err != nil {
					b.Fatal(err)
				}
				if _, err := s.PreCommit(ctx, uint64(i+1)); err != nil {
					b.Fatal(err)
				}
				if err := s.Commit(ctx, uint64(i+1)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
