package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestCountersSurviveKillNine: the totals users read as totals — decode
// errors by policy and late rows — are kept in the checkpoint, so a
// `run` killed with SIGKILL and started again reports the same totals on
// /metrics, neither reset to zero nor counted twice by the replay of the
// input after the last checkpoint.
func TestCountersSurviveKillNine(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(lateAndMalformed), 0o644); err != nil {
		t.Fatal(err)
	}
	// follow keeps the run going after the file's end, so it is killed
	// mid-run rather than ending on its own.
	p := newPipelineRun(t, fmt.Sprintf(`CREATE SOURCE ev (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)
  WITH (connector = 'file', path = '%s', follow = true, poll_interval = '20ms', on_error = 'skip');
CREATE MATERIALIZED VIEW w AS SELECT window_start, count(*) AS n FROM TUMBLE(ev, ts, INTERVAL '10' SECOND)
  GROUP BY window_start LATE DATA DROP EMIT ON WINDOW CLOSE;`, in))
	start := func() (*exec.Cmd, string) { return p.startHTTP("100ms") }
	totals := func(body string) string {
		return fmt.Sprintf("skipped %v, late %v", seriesSum(body, "streamsql_source_decode_errors_total", `policy="skipped"`),
			seriesSum(body, "streamsql_view_late_rows_total", `view="w"`))
	}
	const want = "skipped 2, late 2" // lateAndMalformed's 2 malformed and 2 late lines

	c, url := start()
	counted := pollMetrics(t, p, url, func(body string) bool { return totals(body) == want })
	first := gaugeValue(counted, "streamsql_checkpoint_id")
	// A checkpoint taken after the counts holds them.
	pollMetrics(t, p, url, func(body string) bool { return gaugeValue(body, "streamsql_checkpoint_id") > first })
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()

	c, url = start()
	defer p.stop(c)
	restored := pollMetrics(t, p, url, func(body string) bool { return gaugeValue(body, "streamsql_checkpoint_id") >= 0 })
	again := gaugeValue(restored, "streamsql_checkpoint_id")
	// Once a checkpoint of the restarted run is taken, whatever it replays
	// has been read: the totals must be those before the kill.
	body := pollMetrics(t, p, url, func(body string) bool { return gaugeValue(body, "streamsql_checkpoint_id") > again })
	if got := totals(body); got != want {
		t.Fatalf("after kill -9 and restart /metrics says %s, want %s; log:\n%s", got, want, p.logText())
	}
}

// seriesSum adds the values of the series of metric name whose labels
// contain label; -1 when there is none.
func seriesSum(body, name, label string) float64 {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\{([^}]*)\} (\S+)$`)
	sum, found := 0.0, false
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		if !strings.Contains(m[1], label) {
			continue
		}
		if v, err := strconv.ParseFloat(m[2], 64); err == nil {
			sum, found = sum+v, true
		}
	}
	if !found {
		return -1
	}
	return sum
}
