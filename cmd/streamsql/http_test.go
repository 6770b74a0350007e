package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestServeMetrics scrapes a running `streamsql serve` over HTTP: the
// records a datagen pipeline reads, its view's changes and the
// checkpoints show up on /metrics while a client only created the view.
func TestServeMetrics(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	addr, web := freeAddr(t), freeAddr(t)
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, t.TempDir(), serveFlags{listen: addr, interval: 100 * time.Millisecond, stepRows: 512, user: "streamsql", web: httpFlags{addr: web}})
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
	for _, q := range []string{
		"CREATE SOURCE bid (auction BIGINT, price BIGINT) WITH (connector = 'datagen', table = 'bid', events = 5000)",
		"SET strict = off",
		"CREATE MATERIALIZED VIEW cnt AS SELECT auction, count(*) AS n FROM bid GROUP BY auction",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = c.Close(ctx)
	want := []*regexp.Regexp{
		regexp.MustCompile(`(?m)^streamsql_source_records_read_total\{partition="0",pipeline="cnt",source="bid"\} 4600$`),
		regexp.MustCompile(`(?m)^streamsql_view_rows_out_total\{view="cnt"\} [1-9]`),
		regexp.MustCompile(`(?m)^streamsql_checkpoint_duration_seconds_count [1-9]`),
	}
	var body string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		body = get(t, "http://"+web+"/metrics")
		missing := 0
		for _, re := range want {
			if !re.MatchString(body) {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics never showed all of %v:\n%s", want, body)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

func get(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return "" // not listening yet
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeRefusesOpenMetrics: a non-loopback --http without passwords
// needs --insecure, as --listen does.
func TestServeRefusesOpenMetrics(t *testing.T) {
	err := serve(context.Background(), t.TempDir(), serveFlags{listen: freeAddr(t), web: httpFlags{addr: "0.0.0.0:0"}})
	if err == nil || !strings.Contains(err.Error(), "--http 0.0.0.0:0 is not a loopback address") {
		t.Fatalf("serve = %v, want the loopback rule", err)
	}
}

// TestServePprof: with --pprof the --http listener serves Go's heap
// profile at /debug/pprof/heap; without it the path is not there.
func TestServePprof(t *testing.T) {
	for _, on := range []bool{true, false} {
		ctx, stop := context.WithCancel(context.Background())
		addr, web := freeAddr(t), freeAddr(t)
		done := make(chan error, 1)
		go func() {
			done <- serve(ctx, t.TempDir(), serveFlags{listen: addr, interval: time.Second, stepRows: 512, user: "streamsql", web: httpFlags{addr: web, pprof: on}})
		}()
		var code int
		var body string
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if code, body = status(t, "http://"+web+"/debug/pprof/heap?debug=1"); code != 0 {
				break
			}
		}
		stop()
		if err := <-done; err != nil {
			t.Fatalf("serve: %v", err)
		}
		switch {
		case on && (code != http.StatusOK || !strings.Contains(body, "heap profile")):
			t.Fatalf("--pprof: /debug/pprof/heap answered %d:\n%.300s", code, body)
		case !on && code == http.StatusOK && strings.Contains(body, "heap profile"):
			t.Fatalf("without --pprof /debug/pprof/heap served a profile")
		}
	}
}

// status is a GET's status code and body (0 while nothing listens).
func status(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}
