package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamsql/streamsql/connectors/conformance"
	"github.com/streamsql/streamsql/types"
)

func TestConformance(t *testing.T) {
	t.Run("merge", func(t *testing.T) { runConformance(t, "1") })
	// Changes dealt by key over two connections, each committing its own
	// share and progress row.
	t.Run("two_connections", func(t *testing.T) { runConformance(t, "2") })
	// Servers before Postgres 15 get INSERT ... ON CONFLICT instead.
	t.Run("on_conflict", func(t *testing.T) {
		useMerge = func(*pgx.Conn) bool { return false }
		defer func() { useMerge = supportsMerge }()
		runConformance(t, "1")
	})
}

func runConformance(t *testing.T, connections string) {
	for _, delivery := range []string{ExactlyOnce, AtLeastOnce} {
		t.Run(delivery, func(t *testing.T) {
			conformance.RunSink(t, conformance.SinkTarget{
				Factory: Factory(nil),
				Setup: func(t *testing.T) map[string]string {
					return map[string]string{"connector": "postgres", "dsn": newDB(t), "table": "conf",
						"create_table": "true", "delivery": delivery, "write_connections": connections}
				},
				Read:        readConformance,
				ExactlyOnce: delivery == ExactlyOnce,
			})
		})
	}
}

// readConformance reads the conformance table (id, name, price, ts) back
// as rows.
func readConformance(t *testing.T, opts map[string]string) []types.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, opts["dsn"])
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('conf') IS NOT NULL").Scan(&exists); err != nil || !exists {
		t.Fatalf("table conf: exists %v, %v", exists, err)
	}
	rows, err := conn.Query(ctx, "SELECT id, name, price, ts FROM conf")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []types.Row
	for rows.Next() {
		var id int64
		var name string
		var price float64
		var ts time.Time
		if err := rows.Scan(&id, &name, &price, &ts); err != nil {
			t.Fatal(err)
		}
		out = append(out, types.Row{types.IntValue(id), types.StringValue(name), types.FloatValue(price), types.TimestampValue(ts.UnixMicro())})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
