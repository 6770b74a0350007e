package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/types"
)

// The addresses examples/kafka_to_postgres.sql hard-codes: the defaults of
// `streamsql dev kafka` and `streamsql dev postgres`.
const (
	exampleBrokers = "'127.0.0.1:9092'"
	exampleDSN     = "'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'"
)

// TestKafkaToPostgresExample runs examples/kafka_to_postgres.sql the way
// docs/connectors/kafka-to-postgres.md does, so the walkthrough cannot
// rot: Nexmark bids with 1% malformed records in Kafka, `streamsql run`
// with the built binary, rows checked in Postgres, kill -9 and a restart,
// the table equal to the windows computed from the topic, and the dead
// letters counted with `streamsql query`. The example's fixed addresses
// are replaced by the test's kfake and Postgres (both on free ports).
func TestKafkaToPostgresExample(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "kafka_to_postgres.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{exampleBrokers, exampleDSN} {
		if !strings.Contains(string(src), s) {
			t.Fatalf("examples/kafka_to_postgres.sql no longer uses %s, the address the walkthrough starts", s)
		}
	}
	// 25 s of event time produced over 5 s of wall time, as `dev kafka
	// --rate` does: windows [0,10) and [10,20) close, the first while the
	// second is still being produced.
	const n = 25_000
	srv := sharedPostgres(t)
	streamsqlBinary(t) // built before the bids start flowing
	in, produced := newBidsTopic(t, n, 0.01, 5*time.Second)
	dsn := srv.DSNFor(srv.NewDB(t))
	sql := strings.ReplaceAll(string(src), exampleBrokers, "'"+in.brokers+"'")
	sql = strings.ReplaceAll(sql, exampleDSN, "'"+dsn+"'")

	p := newPipelineRun(t, sql)
	c := p.start()
	// As in the walkthrough: the first window arrives, then the process is
	// killed while bids are still coming in.
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, _ := windowRows(dsn, exampleQuery)
		if len(got) > 0 {
			t.Logf("killing the run with %d window(s) in Postgres", len(got))
			break
		}
		if time.Now().After(deadline) {
			_ = c.Process.Kill()
			_ = c.Wait()
			t.Fatalf("no rows in Postgres after 60 s; log:\n%s", p.logText())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()

	if err := <-produced; err != nil {
		t.Fatalf("produce: %v", err)
	}
	in.expect(t, n)
	closed, _ := types.ParseTimestamp("2024-01-01 00:00:20")
	want := in.closedWindows(closed)
	if len(want) != 2 || len(in.poison) == 0 {
		t.Fatalf("input has windows %v and %d malformed records; the test needs two closed windows and some", want, len(in.poison))
	}
	c, url := p.startHTTP("300ms")
	waitForRows(t, dsn, exampleQuery, want, 60*time.Second)
	// Every malformed record read and dead-lettered, then a checkpoint
	// taken after that holds them, before the run is stopped: the topic's
	// tail may still be unread when the windows are in Postgres.
	dead := func(body string) float64 {
		return seriesSum(body, "streamsql_source_decode_errors_total", `policy="dead_lettered"`)
	}
	body := pollMetrics(t, p, url, func(body string) bool { return dead(body) == float64(len(in.poison)) })
	read := gaugeValue(body, "streamsql_checkpoint_id")
	pollMetrics(t, p, url, func(body string) bool { return gaugeValue(body, "streamsql_checkpoint_id") > read })
	p.stop(c)
	if log := p.logText(); !strings.Contains(log, "bid_volume_out upsert (2024-01-01 00:00:00, 2024-01-01 00:00:10, ") {
		t.Fatalf("the stdout sink printed no changelog line for the first window; log:\n%s", log)
	}

	out, err := exec.Command(p.bin, "query", "--state-dir", p.state, "SELECT count(*) FROM bids_dead_letter").CombinedOutput()
	if err != nil {
		t.Fatalf("streamsql query: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if got, _ := strconv.Atoi(lines[len(lines)-1]); got != len(in.poison) {
		t.Fatalf("streamsql query counted dead letters:\n%s\nwant %d (every malformed record)", out, len(in.poison))
	}
}

// closedWindows renders the expected rows of the windows that end at or
// before end, as exampleRows does.
func (in *bidsInput) closedWindows(end int64) []string {
	var out []string
	for w, agg := range in.windows {
		if w+10*types.Second <= end {
			out = append(out, fmt.Sprintf("%s %s %d %d", types.FormatTimestamp(w), types.FormatTimestamp(w+10*types.Second), agg[0], agg[1]))
		}
	}
	sort.Strings(out)
	return out
}

// exampleQuery reads the example's table (see windowRows).
const exampleQuery = `SELECT window_start, window_end, bids, total_price FROM bid_volume`
