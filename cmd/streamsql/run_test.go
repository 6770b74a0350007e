package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCheckpointIntervalFlag: run passes --checkpoint-interval on only
// when it is given, so that otherwise the pipeline file's SET
// checkpoint_interval applies (engine.RunOptions' zero value).
func TestCheckpointIntervalFlag(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 0},
		{[]string{"--checkpoint-interval", "3s"}, 3 * time.Second},
		{[]string{"--checkpoint-interval=10s"}, 10 * time.Second},
	} {
		cmd := runCmd(&dir)
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		if got := checkpointInterval(cmd); got != tc.want {
			t.Errorf("run %v: interval %v, want %v", tc.args, got, tc.want)
		}
	}
}

// lateAndMalformed is a JSON-lines input with 7 good rows, 2 of them
// late for a 10-second window closed by the rows before them, and 2
// lines that do not decode.
const lateAndMalformed = `{"k":1,"ts":"2024-01-01 00:00:01"}
{"k":2,"ts":"2024-01-01 00:00:05"}
not json
{"k":3,"ts":"2024-01-01 00:00:15"}
{"k":4,"ts":"2024-01-01 00:00:25"}
{"k":5,"ts":"2024-01-01 00:00:02"}
{"k":"six","ts":"2024-01-01 00:00:26"}
{"k":7,"ts":"2024-01-01 00:00:27"}
{"k":8,"ts":"2024-01-01 00:00:03"}
`

// windowPipeline writes input and a pipeline over it (a file source with
// on_error policy, a 10-second window dropping late rows, a file sink)
// and returns the pipeline file.
func windowPipeline(t *testing.T, policy string) string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(lateAndMalformed), 0o644); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`CREATE SOURCE ev (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)
  WITH (connector = 'file', path = '%s', on_error = '%s');
CREATE MATERIALIZED VIEW w AS SELECT window_start, count(*) AS n FROM TUMBLE(ev, ts, INTERVAL '10' SECOND)
  GROUP BY window_start LATE DATA DROP EMIT ON WINDOW CLOSE;
CREATE SINK out FROM w WITH (connector = 'file', path = '%s');`, in, policy, filepath.Join(dir, "out.jsonl"))
	file := filepath.Join(dir, "p.sql")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// summaryRe matches run's summary line; its groups are the outcome and
// the counts.
var summaryRe = regexp.MustCompile(`(?m)^run (done|failed|interrupted) in \S+: (\d+) rows read, (\d+) late, (\d+) dead-lettered, (\d+) skipped, (\d+) written to sinks, (\d+) view changes$`)

// TestRunSummary: run ends with one summary line on stderr, whether it
// succeeds or fails, with the counts of a known input: 7 rows read, 2
// late, the 2 malformed lines dead-lettered or skipped by the source's
// on_error, the 3 windows written to the sink. Off a terminal there is
// no progress bar; a run that fails prints its summary and its ERROR.
func TestRunSummary(t *testing.T) {
	for _, tc := range []struct {
		policy, want string
	}{
		{"dead_letter", "done 7 2 2 0 3 3"},
		{"skip", "done 7 2 0 2 3 3"},
	} {
		code, _, stderr := runCLI(t, "run", "--state-dir", t.TempDir(), windowPipeline(t, tc.policy))
		m := summaryRe.FindStringSubmatch(stderr)
		if code != 0 || m == nil {
			t.Fatalf("%s: exit %d, stderr %q; want a summary line", tc.policy, code, stderr)
		}
		if got := strings.Join(m[1:], " "); got != tc.want {
			t.Errorf("%s: summary %q, want outcome and counts %q", tc.policy, m[0], tc.want)
		}
		if strings.ContainsAny(stderr, "\r\033") || strings.Contains(stderr, "rows/s") {
			t.Errorf("%s: progress drawn off a terminal: %q", tc.policy, stderr)
		}
	}
	code, _, stderr := runCLI(t, "run", "--state-dir", t.TempDir(), windowPipeline(t, "fail"))
	if m := summaryRe.FindStringSubmatch(stderr); code != 1 || m == nil || m[1] != "failed" || !strings.Contains(stderr, "ERROR: ") {
		t.Fatalf("on_error fail: exit %d, stderr %q; want exit 1, a 'run failed' summary and the ERROR", code, stderr)
	}
}

// TestRunProgressForced: --progress always draws the progress bar (the
// share of the file read, the rate and the ETA) and erases it before the
// summary line.
func TestRunProgressForced(t *testing.T) {
	code, _, stderr := runCLI(t, "run", "--progress", "always", "--state-dir", t.TempDir(), windowPipeline(t, "dead_letter"))
	if code != 0 || !regexp.MustCompile(`\r\033\[K\s*\d+% \[[#.]+\] \S+ rows/s  \S+  ETA \S+`).MatchString(stderr) {
		t.Fatalf("exit %d, stderr %q; want a progress bar", code, stderr)
	}
	if !regexp.MustCompile(`\r\033\[Krun done in `).MatchString(stderr) {
		t.Fatalf("the bar is not erased before the summary: %q", stderr)
	}
}

// TestRunSummaryOnInterrupt: a run stopped by SIGINT checkpoints, exits
// 0 and still prints its summary, with the rows it read.
func TestRunSummaryOnInterrupt(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.sql")
	src := `CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR) WITH (connector = 'datagen', table = 'bid', throttle = 1000, seed = 1);
CREATE MATERIALIZED VIEW b AS SELECT auction, price FROM bid;`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	c := exec.Command(streamsqlBinary(t), "run", "--log-level", "debug", "--checkpoint-interval", "100ms", "--state-dir", filepath.Join(dir, "state"), file)
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// A checkpoint after rows were read: the run is reading and its
	// signal handler is in place.
	for deadline := time.Now().Add(time.Minute); !regexp.MustCompile(`msg="checkpoint stored" id=\d+ .* rows=[1-9]`).MatchString(stderr.String()); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = c.Process.Kill()
			t.Fatalf("no checkpoint with rows within a minute; stderr:\n%s", stderr.String())
		}
	}
	_ = c.Process.Signal(os.Interrupt)
	if err := c.Wait(); err != nil {
		t.Fatalf("run exited with %v; stderr:\n%s", err, stderr.String())
	}
	m := summaryRe.FindStringSubmatch(stderr.String())
	if m == nil || m[1] != "interrupted" || m[2] == "0" {
		t.Fatalf("want a 'run interrupted' summary with rows read; stderr:\n%s", stderr.String())
	}
}

// lockedBuffer is a process's stderr that a test reads while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
