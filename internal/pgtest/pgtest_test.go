package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestServerLifecycle starts a server, writes into a fresh database,
// stops and restarts it on the same port and data directory, and checks
// the data survived and the connection string still works.
func TestServerLifecycle(t *testing.T) {
	s := Start(t)
	db := s.NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	conn, err := pgx.Connect(ctx, s.DSNFor(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE t (k int PRIMARY KEY); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	port := s.Port()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("a query on a stopped server succeeded")
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if s.Port() != port {
		t.Fatalf("port changed from %d to %d", port, s.Port())
	}
	conn2, err := pgx.Connect(ctx, s.DSNFor(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close(ctx)
	var n int
	if err := conn2.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("after restart the table has %d rows, want 2", n)
	}
	if other := s.NewDB(t); other == db {
		t.Fatalf("NewDB returned the same database twice: %s", db)
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"TestFoo/sub_case", "testfoo_sub_case"},
		{"A b-C", "a_b_c"},
		{"0123456789012345678901234567890123456789xyz", "0123456789012345678901234567890123456789"},
	} {
		if got := sanitize(tc.in); got != tc.want {
			t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
