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
// (two timestamps, a bigint, a double; key window_start, auction), in both
// delivery modes and two key patterns:
//
//   - insert: every change has a new key (a windowed view's results: new
//     windows produce new rows);
//   - update: every change hits one of 200,000 existing rows (loaded
//     before the timing) with a new value;
//   - update-packed: the same in a table with fillfactor 100 (as a table
//     created outside the sink is), where an update's new row version
//     rarely fits on its page: the cost of the sink's default fillfactor
//     (50 for a view that updates rows) not being there;
//   - insert-2conns, update-2conns: insert and update with
//     write_connections = 2.
//
// It reports rows/s (changes per second of wall time, commit included),
// rows/cpu-s (changes per CPU second of this process and the sink's
// Postgres backends together: client and server work one after the other,
// so on an idle machine rows/s approaches it, and on a loaded one, as the
// shared test machine is, it is the steadier figure) and the client and
// server CPU nanoseconds per row.
func BenchmarkUpsert(b *testing.B) {
	const perCheckpoint, existing = 50_000, 200_000
	for _, delivery := range []string{ExactlyOnce, AtLeastOnce} {
		for _, pattern := range []string{"insert", "update", "update-packed", "insert-2conns", "update-2conns"} {
			b.Run(delivery+"/"+pattern, func(b *testing.B) {
				dsn := newDB(b)
				opts := map[string]string{"dsn": dsn, "table": "q7",
					"create_table": "true", "delivery": delivery, "batch_rows": "50000"}
				switch pattern {
				case "update-packed":
					opts["fillfactor"] = "100"
				case "insert-2conns", "update-2conns":
					opts["write_connections"] = "2"
				}
				s := openSink(b, q7Schema, []int{0, 2}, nil, opts)
				ctx := context.Background()
				id := uint64(1)
				checkpoint := func(first int64, n int, version int64) {
					batch := make([]connectors.Change, n)
					for j := range batch {
						k := first + int64(j)
						if strings.HasPrefix(pattern, "update") {
							k %= existing
						}
						ws := t0 + (k%20)*10_000_000
						batch[j] = connectors.Change{Op: connectors.Upsert, Row: types.Row{
							types.TimestampValue(ws), types.TimestampValue(ws + 10_000_000),
							types.IntValue(k / 20), types.FloatValue(float64(version))}}
					}
					if err := s.Write(ctx, batch); err != nil {
						b.Fatal(err)
					}
					if _, err := s.PreCommit(ctx, id); err != nil {
						b.Fatal(err)
					}
					if err := s.Commit(ctx, id); err != nil {
						b.Fatal(err)
					}
					id++
				}
				checkpoint(0, existing, 0) // the rows updates hit, or a table of the same size
				backends := backendPIDs(b, s)
				self0, srv0 := selfCPU(), procCPU(b, backends)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					checkpoint(existing+int64(i)*perCheckpoint, perCheckpoint, int64(i+1))
				}
				b.StopTimer()
				n := float64(b.N * perCheckpoint)
				self, server := selfCPU()-self0, procCPU(b, backends)-srv0
				b.ReportMetric(n/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(n/(self+server).Seconds(), "rows/cpu-s")
				b.ReportMetric(float64(self)/n, "client-ns/row")
				b.ReportMetric(float64(server)/n, "server-ns/row")
			})
		}
	}
}

// backendPIDs are the process ids of the sink's Postgres backends, one
// per write connection.
func backendPIDs(b *testing.B, s connectors.Sink) []int {
	b.Helper()
	var core *sink
	switch v := s.(type) {
	case *sink:
		core = v
	case exactlyOnceSink:
		core = v.sink
	}
	var pids []int
	for _, l := range core.lanes {
		if err := core.connect(context.Background(), l); err != nil {
			b.Fatal(err)
		}
		var pid int
		if err := l.conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			b.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// selfCPU is this process's user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is other processes' user+system CPU time from /proc (clock
// ticks of 10 ms).
func procCPU(b *testing.B, pids []int) time.Duration {
	b.Helper()
	var total time.Duration
	for _, pid := range pids {
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
		total += time.Duration(ut+st) * 10 * time.Millisecond
	}
	return total
}
