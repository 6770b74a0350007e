package pgwire

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/engine"
)

// startServer starts an engine in a temporary directory (with the datagen
// connector, strict off so small test views need no TTL) and a server on
// a free loopback port; the pipelines run in the background as under
// `streamsql serve`. Cleanup stops both.
func startServer(t testing.TB) (addr string, e *engine.Engine) {
	t.Helper()
	return startServerWith(t, Config{})
}

// startServerWith is startServer with server options (cfg.Engine is set).
func startServerWith(t testing.TB, cfg Config) (addr string, e *engine.Engine) {
	t.Helper()
	reg := connectors.NewRegistry()
	reg.AddSource(datagen.Factory())
	e, err := engine.Open(engine.Options{StateDir: t.TempDir(), Registry: reg, Settings: map[string]string{"strict": "off", "parallelism": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Engine = e
	srv := New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error, 1)
	go func() { runDone <- e.Run(ctx, engine.RunOptions{CheckpointInterval: time.Second, StepRows: 256}) }()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		if err := srv.Close(cctx); err != nil {
			t.Errorf("close server: %v", err)
		}
		cancel()
		if err := <-runDone; err != nil {
			t.Errorf("run: %v", err)
		}
		if err := e.Close(); err != nil {
			t.Errorf("close engine: %v", err)
		}
	})
	return ln.Addr().String(), e
}

// connString returns a pgx/libpq connection string for addr.
func connString(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	return "host=" + host + " port=" + port + " user=tester dbname=streamsql sslmode=disable connect_timeout=5"
}

func connect(t testing.TB, addr string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(connString(addr))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

func mustExec(t testing.TB, c *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, q := range sqls {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// pgCode returns the SQLSTATE of err and the PgError ("" when err is not
// a server error).
func pgCode(err error) (string, *pgconn.PgError) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code, pe
	}
	return "", nil
}
