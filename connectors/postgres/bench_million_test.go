package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// millionRows is the size of BenchmarkMillion's writes.
const millionRows = 1_000_000

// BenchmarkMillion writes 1,000,000 upserts per iteration into a
// q7-shaped table (created by the sink, so with its fillfactor) that
// already holds 1,000,000 rows, by four methods:
//
//   - copy-upsert: the limit the issue sets, the fastest way Postgres
//     takes the rows: in one transaction, a binary COPY into a temporary
//     table (ON COMMIT DROP) and INSERT ... SELECT ... ON CONFLICT DO
//     UPDATE into the table;
//   - copy-merge: the same with MERGE from the temporary table;
//   - sink-exactly_once: the sink with its defaults, the million as one
//     checkpoint (Write in 4,096-row calls, PreCommit, Commit);
//   - sink-at_least_once: the same in at_least_once mode (a flush every
//     batch_rows = 10,000 rows, each its own transaction).
//
// and two key patterns: new-keys (each iteration's keys are new) and
// existing-keys (each iteration updates the 1,000,000 rows with a new
// value). The rows are built before the timer runs. It reports rows/s
// (wall time), rows/cpu-s and client and server CPU ns per row, as
// BenchmarkUpsert does.
func BenchmarkMillion(b *testing.B) {
	for _, pattern := range []string{"new-keys", "existing-keys"} {
		for _, method := range []string{"copy-upsert", "copy-merge", "sink-" + ExactlyOnce, "sink-" + AtLeastOnce} {
			b.Run(pattern+"/"+method, func(b *testing.B) { benchMillion(b, pattern, method) })
		}
	}
}

func benchMillion(b *testing.B, pattern, method string) {
	ctx := context.Background()
	dsn := newDB(b)
	delivery := ExactlyOnce
	if method == "sink-"+AtLeastOnce {
		delivery = AtLeastOnce
	}
	s := openSink(b, q7Schema, []int{0, 2}, nil, map[string]string{"dsn": dsn, "table": "q7",
		"create_table": "true", "delivery": delivery})
	backends := backendPIDs(b, s) // also creates the table
	ref := newCopyWriter(b, dsn)
	defer ref.conn.Close(ctx)
	if err := ref.write(ctx, q7Changes(0, 0), "upsert"); err != nil {
		b.Fatal(err)
	}
	if method == "copy-upsert" || method == "copy-merge" {
		backends = []int{ref.pid}
	}
	id := uint64(1)
	var cpu, server float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		first := int64(0)
		if pattern == "new-keys" {
			first = int64(i+1) * millionRows
		}
		changes := q7Changes(first, int64(i+1))
		self0, srv0 := selfCPU(), procCPU(b, backends)
		b.StartTimer()
		var err error
		switch method {
		case "copy-upsert":
			err = ref.write(ctx, changes, "upsert")
		case "copy-merge":
			err = ref.write(ctx, changes, "merge")
		default:
			err = sinkMillion(ctx, s, changes, id)
			id++
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += float64(selfCPU() - self0)
		server += float64(procCPU(b, backends) - srv0)
	}
	n := float64(b.N * millionRows)
	b.ReportMetric(n/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(n/((cpu+server)/1e9), "rows/cpu-s")
	b.ReportMetric(cpu/n, "client-ns/row")
	b.ReportMetric(server/n, "server-ns/row")
}

// q7Changes is a million upserts of keys first, first+1, ... with value
// version.
func q7Changes(first, version int64) []connectors.Change {
	changes := make([]connectors.Change, millionRows)
	for j := range changes {
		k := first + int64(j)
		ws := t0 + (k%20)*10_000_000
		changes[j] = connectors.Change{Op: connectors.Upsert, Row: types.Row{
			types.TimestampValue(ws), types.TimestampValue(ws + 10_000_000),
			types.IntValue(k / 20), types.FloatValue(float64(version))}}
	}
	return changes
}

// sinkMillion writes changes through the sink as the engine does: 4,096
// rows per Write, then one checkpoint.
func sinkMillion(ctx context.Context, s connectors.Sink, changes []connectors.Change, id uint64) error {
	for len(changes) > 0 {
		n := min(len(changes), 4096)
		if err := s.Write(ctx, changes[:n]); err != nil {
			return err
		}
		changes = changes[n:]
	}
	if _, err := s.PreCommit(ctx, id); err != nil {
		return err
	}
	return s.Commit(ctx, id)
}

// copyWriter is the reference: COPY into a temporary table, then one
// statement into q7, in one transaction.
type copyWriter struct {
	conn *pgx.Conn
	pid  int
}

func newCopyWriter(b *testing.B, dsn string) *copyWriter {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	w := &copyWriter{conn: conn}
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&w.pid); err != nil {
		b.Fatal(err)
	}
	return w
}

const (
	refStage  = "CREATE TEMP TABLE stage (LIKE q7) ON COMMIT DROP"
	refUpsert = "INSERT INTO q7 SELECT * FROM stage ON CONFLICT (window_start, auction) DO UPDATE " +
		"SET window_end = EXCLUDED.window_end, max_price = EXCLUDED.max_price"
	refMerge = "MERGE INTO q7 t USING stage s ON t.window_start = s.window_start AND t.auction = s.auction " +
		"WHEN MATCHED THEN UPDATE SET window_end = s.window_end, max_price = s.max_price " +
		"WHEN NOT MATCHED THEN INSERT VALUES (s.window_start, s.window_end, s.auction, s.max_price)"
)

func (w *copyWriter) write(ctx context.Context, changes []connectors.Change, how string) error {
	tx, err := w.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, refStage); err != nil {
		return err
	}
	if _, err := w.conn.PgConn().CopyFrom(ctx, newCopyReader(q7Schema, changes), "COPY stage FROM STDIN (FORMAT binary)"); err != nil {
		return err
	}
	stmt := refUpsert
	if how == "merge" {
		stmt = refMerge
	}
	if _, err := tx.Exec(ctx, stmt); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
