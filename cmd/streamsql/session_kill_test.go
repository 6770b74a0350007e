package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/streamsql/streamsql/engine"
)

// sessionKillPipeline is a SESSION pipeline over datagen bids: sessions
// per bidder that merge, close and are extended by late rows (LATE DATA
// UPDATE within the allowed lateness, rows out of order by up to a
// second against a watermark 200 ms behind), at most 20 sessions in
// memory so groups are evicted and loaded back, into a view and a file
// sink. %s is the sink's path.
//
// The sink is exactly_once. An at_least_once file keeps the changes
// written after the last checkpoint that a crash lost, and a SESSION
// view's changelog depends on how rows are batched: a window's bounds
// are part of its key, so an intermediate session (emitted at its close,
// then merged by a late row, or one of several late updates coalesced in
// one batch) exists in one batching and not in another. The replay after
// kill -9 batches rows differently (it catches up in large batches), so
// it may never touch again a key the lost tail upserted, and that row
// would stay in the file (docs/design/sinks.md).
const sessionKillPipeline = `
SET state_cache_size = '20';
CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '200' MILLISECOND)
WITH (connector = 'datagen', table = 'bid', events = 40000, seed = 7, rate = 2000, throttle = 40000,
  out_of_orderness = '1 second');
CREATE MATERIALIZED VIEW s AS
SELECT bidder, window_start, window_end, count(*) AS n, sum(price) AS total, count(DISTINCT auction) AS auctions
FROM SESSION(bid, date_time, INTERVAL '300' MILLISECOND)
GROUP BY bidder, window_start, window_end
ALLOWED LATENESS INTERVAL '300' MILLISECOND
LATE DATA UPDATE EMIT ON WINDOW CLOSE;
CREATE SINK out FROM s WITH (connector = 'file', path = '%s', delivery = 'exactly_once');
`

// sessionKillSeed and sessionKillKills replay or stress
// TestSessionKillNineRecovers (go test -run SessionKillNine -args
// -session-kill-seed 1796176649983579000 -session-kill-kills 8).
var (
	sessionKillSeed  = flag.Int64("session-kill-seed", 0, "TestSessionKillNineRecovers: the seed of the kill points (0: from the clock)")
	sessionKillKills = flag.Int("session-kill-kills", 3, "TestSessionKillNineRecovers: how many times the run is killed")
)

// TestSessionKillNineRecovers runs the SESSION pipeline in a child
// process, kills it with SIGKILL three times (-session-kill-kills) at
// checkpoints drawn at random (it waits for the checkpoint id on
// /metrics, never for a time), runs it to the end, and requires the view
// and the sink's consolidated changelog to equal those of a run never
// interrupted. The seed picks the kill points; when a checkpoint lands
// still depends on the machine, so a seed replays them only roughly.
func TestSessionKillNineRecovers(t *testing.T) {
	seed := *sessionKillSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -args -session-kill-seed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	newRun := func() (*pipelineRun, string) {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		return newPipelineRun(t, fmt.Sprintf(sessionKillPipeline, out)), out
	}
	toEnd := func(p *pipelineRun) {
		c, _ := p.startHTTP("100ms")
		if err := c.Wait(); err != nil {
			t.Fatalf("run: %v; log:\n%s", err, p.logText())
		}
	}

	clean, cleanOut := newRun()
	toEnd(clean)
	crashed, crashedOut := newRun()
	for i := range *sessionKillKills {
		killAtCheckpoint(t, crashed, 1+rng.Intn(4), i)
	}
	toEnd(crashed)

	want, got := sessionViewRows(t, clean.state), sessionViewRows(t, crashed.state)
	if len(want) < 1000 {
		t.Fatalf("the uninterrupted run closed only %d sessions", len(want))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after kill -9 the view differs from the uninterrupted run's (%d rows, want %d): %s", len(got), len(want), firstDiff(got, want))
	}
	if w, g := sinkContents(t, cleanOut), sinkContents(t, crashedOut); !slices.Equal(g, w) {
		t.Fatalf("after kill -9 the sink differs from the uninterrupted run's (%d rows, want %d): %s", len(g), len(w), firstDiff(g, w))
	}
	if w := sinkContents(t, cleanOut); !slices.Equal(w, want) {
		t.Fatalf("the sink differs from the view (%d rows, want %d): %s", len(w), len(want), firstDiff(w, want))
	}
}

// killAtCheckpoint starts p and kills it with SIGKILL once its
// checkpoint id passes the first one it reports by more than after; a
// run that ends before is left ended (the test still checks recovery).
func killAtCheckpoint(t *testing.T, p *pipelineRun, after, i int) {
	t.Helper()
	c, url := p.startHTTP("100ms")
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	first := -1.0
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-exited:
			t.Logf("kill %d: the run ended before its checkpoint (%v)", i, err)
			return
		default:
		}
		id := gaugeValue(get(t, url), "streamsql_checkpoint_id")
		if first < 0 {
			first = id
		} else if id > first+float64(after) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("kill %d: no checkpoint within a minute; log:\n%s", i, p.logText())
		}
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	<-exited
}

// sessionViewRows reads view s of the stopped pipeline in state, sorted.
func sessionViewRows(t *testing.T, state string) []string {
	t.Helper()
	e, err := engine.Open(engine.Options{StateDir: state, Registry: registry(discard{})})
	if err != nil {
		t.Fatalf("open %s: %v", state, err)
	}
	defer e.Crash()
	res, err := e.Exec(context.Background(), "SELECT bidder, window_start, window_end, n, total, auctions FROM s")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r.String()
	}
	slices.Sort(out)
	return out
}

// sinkContents consolidates the file sink's changelog at path into the
// rows it leaves, rendered as sessionViewRows renders the view's.
func sinkContents(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type change struct {
		Bidder      int64  `json:"bidder"`
		WindowStart string `json:"window_start"`
		WindowEnd   string `json:"window_end"`
		N           int64  `json:"n"`
		Total       int64  `json:"total"`
		Auctions    int64  `json:"auctions"`
		Op          string `json:"__op"`
	}
	rows := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c change
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("sink line %q: %v", sc.Text(), err)
		}
		key := fmt.Sprintf("%d %s %s", c.Bidder, c.WindowStart, c.WindowEnd)
		if c.Op == "delete" {
			delete(rows, key)
			continue
		}
		rows[key] = fmt.Sprintf("%s %d %d %d", key, c.N, c.Total, c.Auctions)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// firstDiff describes the first place two sorted row lists differ.
func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d: got %q, want %q", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("one list is a prefix of the other (%d vs %d rows)", len(got), len(want))
}
