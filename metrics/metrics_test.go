package metrics

import (
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/engine"
)

// scrape GETs url and returns the body and status.
func scrape(t *testing.T, url, user, password string) (string, int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), resp.StatusCode
}

// waitFor scrapes url until every series in want appears (a generous
// deadline: the pipeline runs in the background).
func waitFor(t *testing.T, url string, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		body, _ := scrape(t, url, "", "")
		missing := ""
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics never showed %q; last scrape:\n%s", missing, body)
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not an assertion
	}
}

// TestScrapeRunningEngine serves a running engine's metrics over real
// HTTP and waits for the series of its source, view, late rows and
// checkpoints, then for the runtime and process collectors'.
func TestScrapeRunningEngine(t *testing.T) {
	e, err := engine.Open(engine.Options{StateDir: t.TempDir(), Settings: map[string]string{"parallelism": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, q := range []string{
		`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)`,
		`CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
		 GROUP BY k, window_start LATE DATA DROP EMIT ON WINDOW CLOSE`,
		`INSERT INTO s VALUES (1, '2024-01-01 00:00:01'), (1, '2024-01-01 00:00:12'), (1, '2024-01-01 00:00:02')`,
		`FLUSH`,
	} {
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	runDone := make(chan error, 1)
	go func() { runDone <- e.Run(ctx, engine.RunOptions{CheckpointInterval: 10 * time.Millisecond}) }()
	srv, err := Listen("127.0.0.1:0", e, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := "http://" + srv.Addr() + "/metrics"
	body := waitFor(t, url,
		`streamsql_source_records_read_total{partition="0",pipeline="m",source="s"} 3`,
		`streamsql_view_rows_in_total{view="m"} 3`,
		`streamsql_view_late_rows_total{policy="drop",reason="expired",view="m"} 1`,
		`streamsql_source_watermark_seconds{pipeline="m",source="s"} 1.704067212e+09`,
		`streamsql_watermark_stalled{view="m"} 0`,
		`streamsql_source_decode_errors_total{pipeline="m",policy="failed",source="s"} 0`,
		`streamsql_checkpoint_duration_seconds_bucket{le="+Inf"}`,
		`streamsql_checkpoint_last_success_timestamp_seconds `,
		`streamsql_checkpoint_last_changes `,
		`streamsql_checkpoint_last_bytes `,
		`streamsql_operator_rows_out_total{operator="Scan#3",view="m"} 3`,
		`streamsql_operator_rows_in_total{operator="WindowAggregate#2",view="m"} 3`,
		`streamsql_operator_state_keys{operator="WindowAggregate#2",view="m"} 1`,
		`streamsql_operator_watermark_seconds{operator="WindowAggregate#2",view="m"} 1.704067212e+09`,
		"go_goroutines ", "process_start_time_seconds ",
	)
	if !regexp.MustCompile(`streamsql_source_watermark_lag_seconds\{pipeline="m",source="s"\} \d`).MatchString(body) {
		t.Fatalf("no watermark lag:\n%s", body)
	}
	cancel()
	if err := <-runDone; err != nil {
		t.Fatal(err)
	}
}

// TestBasicAuth: with users, /metrics and the other routes (the
// dashboard) answer only requests that authenticate as one of them.
func TestBasicAuth(t *testing.T) {
	e, err := engine.Open(engine.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "page") })
	srv, err := Listen("127.0.0.1:0", e, map[string]string{"ops": "secret"}, Route{Pattern: "/", Handler: page})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, path := range []string{"/metrics", "/api/state"} {
		url := "http://" + srv.Addr() + path
		for _, tc := range []struct {
			user, password string
			status         int
		}{{"", "", 401}, {"ops", "wrong", 401}, {"other", "secret", 401}, {"ops", "secret", 200}} {
			if _, status := scrape(t, url, tc.user, tc.password); status != tc.status {
				t.Errorf("%s: user %q password %q: status %d, want %d", path, tc.user, tc.password, status, tc.status)
			}
		}
	}
}

// TestEveryMetricDocumented: docs/observability.md lists every metric
// family the collector describes.
func TestEveryMetricDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for _, d := range allDescs {
		m := name.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("no name in %s", d)
		}
		if !strings.Contains(string(doc), "`"+m[1]+"`") {
			t.Errorf("docs/observability.md does not list `%s`", m[1])
		}
	}
}
