package postgres

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// BenchmarkUpsert measures bulk upserts into a real Postgres: each
// iteration is one checkpoint of 50,000 changes to a q7-shaped table
// (two timestamps, a bigint, a double; key window_start, auction), over a
// key space of 200,000, so the first four checkpoints insert and later
// ones update. It reports
//
//   - rows/s: changes written per second of wall time, commit included;
//   - rows/cpu-s: changes per CPU second spent by this process and the
//     sink's Postgres backend together. Client and server work one after
//     the other, so on an idle machine rows/s approaches this figure; on
//     a loaded one (the test machine is shared) it is the steadier one.
func BenchmarkUpsert(b *testing.B) {
	for _, delivery := range []string{ExactlyOnce, AtLeastOnce} {
		b.Run(delivery, func(b *testing.B) {
			dsn := newDB(b)
			s := openSink(b, q7Schema, []int{0, 2}, nil, map[string]string{"dsn": dsn, "table": "q7",
				"create_table": "true", "delivery": delivery, "batch_rows": "50000"})
			const perCheckpoint, keys = 50_000, 200_000
			batch := make([]connectors.Change, perCheckpoint)
			ctx := context.Background()
			mustCommit(b, s, 1) // connect and set up outside the timing
			backend := backendPID(b, s)
			n := int64(0)
			self0, srv0 := selfCPU(), procCPU(b, backend)
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
				id := uint64(i + 2)
				if _, err := s.PreCommit(ctx, id); err != nil {
					b.Fatal(err)
				}
				if err := s.Commit(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			self, server := selfCPU()-self0, procCPU(b, backend)-srv0
			cpu := self + server
			b.ReportMetric(float64(self)/float64(n), "client-ns/row")
			b.ReportMetric(float64(server)/float64(n), "server-ns/row")
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(n)/cpu.Seconds(), "rows/cpu-s")
		})
	}
}

// backendPID is the process id of the sink's Postgres backend.
func backendPID(b *testing.B, s connectors.Sink) int {
	b.Helper()
	var core *sink
	switch v := s.(type) {
	case *sink:
		core = v
	case exactlyOnceSink:
		core = v.sink
	}
	var pid int
	if err := core.conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	return pid
}

// selfCPU is this process's user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is another process's user+system CPU time from /proc (clock
// ticks of 10 ms).
func procCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the parenthesised command: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	var ut, st int64
	if _, err := fmt.Sscan(f[11], &ut); err != nil {
		b.Fatal(err)
	}
	if _, err := fmt.Sscan(f[12], &st); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}
