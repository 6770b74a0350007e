package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/streamsql/streamsql/bench"
)

// benchEvents is the Nexmark sequence length of one benchmark operation:
// each op runs the whole pipeline (fresh state dir, Open, the query,
// checkpoints every 10 s, Close) over this many events of all types.
const benchEvents = 200_000

// runNexmark runs a bench/ query b.N times and reports events/s (wall)
// and events/cpu-s (per core, from getrusage), the benchmark's figures.
func runNexmark(b *testing.B, query string) {
	sql, err := bench.SQL(query, benchEvents)
	if err != nil {
		b.Fatal(err)
	}
	cfg := bench.Config{TempDir: b.TempDir()}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var cpu, wall float64
	for i := 0; i < b.N; i++ {
		m, err := bench.RunOnce(ctx, cfg, sql, benchEvents)
		var ns *bench.NotSupportedError
		if errors.As(err, &ns) {
			b.Skip(ns.Error())
		}
		if err != nil {
			b.Fatal(err)
		}
		cpu += m.CPU.Seconds()
		wall += m.Wall.Seconds()
	}
	total := float64(benchEvents) * float64(b.N)
	b.ReportMetric(total/wall, "events/s")
	b.ReportMetric(total/cpu, "events/cpu-s")
}

func BenchmarkNexmarkQ0(b *testing.B)  { runNexmark(b, "q0") }
func BenchmarkNexmarkQ1(b *testing.B)  { runNexmark(b, "q1") }
func BenchmarkNexmarkQ2(b *testing.B)  { runNexmark(b, "q2") }
func BenchmarkNexmarkQ5(b *testing.B)  { runNexmark(b, "q5") }
func BenchmarkNexmarkQ7(b *testing.B)  { runNexmark(b, "q7") }
func BenchmarkNexmarkQ8(b *testing.B)  { runNexmark(b, "q8") }
func BenchmarkNexmarkQ11(b *testing.B) { runNexmark(b, "q11") }
