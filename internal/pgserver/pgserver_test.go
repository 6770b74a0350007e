package pgserver

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestServerLifecycle starts a server, writes into a fresh database,
// stops and restarts it on the same port and data directory, and checks
// the data survived and the connection string still works.
func TestServerLifecycle(t *testing.T) {
	s := start(t)
	db := newDB(t, s)
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
	if other := newDB(t, s); other == db {
		t.Fatalf("CreateDB returned the same database twice: %s", db)
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

// TestStartOnPort starts a server on a port chosen by the caller and
// checks that a port that is already taken is refused with its number
// rather than mistaken for the new server.
func TestStartOnPort(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartOnPort(port)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Port() != port {
		t.Fatalf("server on port %d, want %d", s.Port(), port)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.Close(ctx)

	s2, err := StartOnPort(port)
	if err == nil {
		s2.Close()
	}
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("port %d is not free", port)) {
		t.Fatalf("second server on the same port: err = %v, want 'port %d is not free'", err, port)
	}
}

func TestMissingBinariesSayWhere(t *testing.T) {
	t.Setenv("PGTEST_BIN", "/nonexistent/pg/bin")
	s, err := Start()
	if err == nil {
		s.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "PostgreSQL binaries not found: /nonexistent/pg/bin/initdb is missing") {
		t.Fatalf("Start with missing binaries: %v", err)
	}
}

// TestRestartRefusesAnotherServer starts a second server on a port that a
// first one took after the probe (the race the probe cannot close): the
// first server answers, and the second must not take it for itself.
func TestRestartRefusesAnotherServer(t *testing.T) {
	first := start(t)
	s, err := startOn(0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	s.port = first.Port()
	err = s.Restart()
	if err == nil || !strings.Contains(err.Error(), "taken by another PostgreSQL server") {
		t.Fatalf("Restart on a port another server holds: err = %v", err)
	}
}

// start starts a server that the end of t stops (this package's tests
// cannot use pgtest, which imports it).
func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func newDB(t *testing.T, s *Server) string {
	t.Helper()
	name, err := s.CreateDB(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return name
}
