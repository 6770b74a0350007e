package postgres

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/internal/pgtest"
	"github.com/streamsql/streamsql/types"
)

// srv is the package's throwaway Postgres; each test gets its own database.
var srv *pgtest.Server

func TestMain(m *testing.M) {
	s, stop, err := pgtest.StartMain()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv = s
	code := m.Run()
	stop()
	os.Exit(code)
}

// newDB creates a fresh database and returns its DSN.
func newDB(t testing.TB) string {
	t.Helper()
	return srv.DSNFor(srv.NewDB(t))
}

// psql runs SQL on dsn and returns the rows as text, one string per row
// (columns space-separated), sorted.
func psql(t testing.TB, dsn, sql string, args ...any) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		s := make([]string, len(vals))
		for i, v := range vals {
			s[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(s, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	slices.Sort(out)
	return out
}

// exec runs SQL statements (several, separated by semicolons) on dsn.
func exec(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// logBuffer collects a sink's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// debugLogger also keeps the debug lines (every failed retry).
func (l *logBuffer) debugLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func openSink(t testing.TB, schema types.Schema, key []int, logger *slog.Logger, opts map[string]string) connectors.Sink {
	t.Helper()
	opts["connector"] = "postgres"
	s, err := Factory(logger).New(connectors.SinkSpec{Name: "s1", Schema: schema, Key: key, Options: opts})
	if err != nil {
		t.Fatalf("new sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func mustCommit(t testing.TB, s connectors.Sink, id uint64) []byte {
	t.Helper()
	ctx := context.Background()
	staged, err := s.PreCommit(ctx, id)
	if err != nil {
		t.Fatalf("pre-commit %d: %v", id, err)
	}
	if err := s.Commit(ctx, id); err != nil {
		t.Fatalf("commit %d: %v", id, err)
	}
	return staged
}

func mustWrite(t testing.TB, s connectors.Sink, changes ...connectors.Change) {
	t.Helper()
	if err := s.Write(context.Background(), changes); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func up(vals ...types.Value) connectors.Change {
	return connectors.Change{Op: connectors.Upsert, Row: types.Row(vals)}
}

func del(vals ...types.Value) connectors.Change {
	return connectors.Change{Op: connectors.Delete, Row: types.Row(vals)}
}

func same(t testing.TB, what string, got []string, want ...string) {
	t.Helper()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}
