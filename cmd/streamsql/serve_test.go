package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestServe runs `streamsql serve` in-process: a client creates a view
// over a bounded datagen source, the server's driver fills it without any
// session asking, a stop (the signal context ending) checkpoints, and a
// second serve on the same state directory shows the same rows.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	addr := freeAddr(t)
	run := func(check func(c *pgx.Conn)) {
		t.Helper()
		sctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			done <- serve(sctx, dir, serveFlags{listen: addr, interval: time.Second, stepRows: 512, user: "streamsql"})
		}()
		var c *pgx.Conn
		var err error
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if c, err = pgx.Connect(ctx, "postgres://me@"+addr+"/streamsql?sslmode=disable"); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		check(c)
		_ = c.Close(ctx)
		stop()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("serve did not stop")
		}
	}
	var before int64
	run(func(c *pgx.Conn) {
		for _, q := range []string{
			"CREATE SOURCE bid (auction BIGINT, price BIGINT) WITH (connector = 'datagen', table = 'bid', events = 5000)",
			"SET strict = off",
			"CREATE MATERIALIZED VIEW cnt AS SELECT auction, count(*) AS n FROM bid GROUP BY auction",
		} {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		deadline := time.Now().Add(time.Minute)
		for before < 4600 { // 46 of every 50 events are bids
			var sum *int64 // NULL while the view is empty
			if err := c.QueryRow(ctx, "SELECT sum(n) FROM cnt").Scan(&sum); err != nil {
				t.Fatal(err)
			}
			if sum != nil {
				before = *sum
			}
			if time.Now().After(deadline) {
				t.Fatalf("the background driver counted %d bids in a minute", before)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	run(func(c *pgx.Conn) {
		var after int64
		if err := c.QueryRow(ctx, "SELECT sum(n) FROM cnt").Scan(&after); err != nil || after != before {
			t.Fatalf("after restart: %d (%v), want %d", after, err, before)
		}
	})
}

func TestServeFlags(t *testing.T) {
	err := serve(context.Background(), t.TempDir(), serveFlags{listen: "0.0.0.0:0", user: "streamsql"})
	if err == nil || !strings.Contains(err.Error(), "not a loopback address") {
		t.Fatalf("non-loopback without a password: %v", err)
	}
	f := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(f, []byte("# users\nalice:pw1\n\nbob:p:w\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	users, err := loadUsers(serveFlags{usersFile: f, user: "carol", password: "pw3"})
	if err != nil || len(users) != 3 || users["alice"] != "pw1" || users["bob"] != "p:w" || users["carol"] != "pw3" {
		t.Fatalf("users %v %v", users, err)
	}
	if err := os.WriteFile(f, []byte("nocolon\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadUsers(serveFlags{usersFile: f}); err == nil {
		t.Fatal("accepted a line without a password")
	}
}

func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
