package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/engine"
)

const crashPipeline = `
CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)
WITH (connector = 'datagen', table = 'bid', events = 300000, seed = 3, throttle = 150000);

CREATE MATERIALIZED VIEW w AS
SELECT auction, window_start, count(*) AS n, max(price) AS top
FROM TUMBLE(bid, date_time, INTERVAL '2' SECOND)
GROUP BY auction, window_start
LATE DATA DROP EMIT ON WINDOW CLOSE;

-- Nexmark q5: its HOP count is one operator feeding two consumers.
CREATE MATERIALIZED VIEW hot AS
SELECT AuctionBids.auction, AuctionBids.num, AuctionBids.starttime
FROM (
  SELECT auction, count(*) AS num, window_start AS starttime
  FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
  GROUP BY window_start, auction
) AS AuctionBids
JOIN (
  SELECT max(CountBids.num) AS maxn, CountBids.starttime_c
  FROM (
    SELECT count(*) AS num, window_start AS starttime_c
    FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
    GROUP BY auction, window_start
  ) AS CountBids
  GROUP BY CountBids.starttime_c
) AS MaxBids
ON AuctionBids.starttime = MaxBids.starttime_c AND AuctionBids.num >= MaxBids.maxn
LATE DATA DROP EMIT ON WINDOW CLOSE;

-- A view over w: it reads w's changelog and keeps no position of its own.
CREATE MATERIALIZED VIEW per_auction AS
SELECT auction, count(*) AS windows, sum(n) AS bids, max(top) AS top
FROM w GROUP BY auction STATE TTL INTERVAL '1' DAY;
`

// crashViews and crashHot read the views of crashPipeline in a fixed order.
const (
	crashViews = "SELECT auction, window_start, n, top FROM w ORDER BY window_start, auction"
	crashHot   = "SELECT auction, num, starttime FROM hot ORDER BY starttime, auction, num"
	crashOverW = "SELECT auction, windows, bids, top FROM per_auction ORDER BY auction"
)

// TestKillNineRecovers runs a datagen pipeline in a real child process,
// kills it with SIGKILL twice at checkpoints (polled on /metrics), runs it
// again to the end, and requires
// the views to equal those of a run that was never interrupted (hot's
// shared window aggregate restores one copy of its state for two
// consumers; per_auction, a view over w, restores from the same
// checkpoint as w and never reads w again from its start).
func TestKillNineRecovers(t *testing.T) {
	cleanRun, crashedRun := newPipelineRun(t, crashPipeline), newPipelineRun(t, crashPipeline)
	toEnd := func(p *pipelineRun) {
		c, _ := p.startHTTP("150ms")
		if err := c.Wait(); err != nil {
			t.Fatalf("run: %v; log:\n%s", err, p.logText())
		}
	}
	toEnd(cleanRun)
	// Each kill waits for checkpoints on /metrics, never for a time, so
	// the killed state always holds the views however slow the machine.
	for i, after := range []int{2, 1} {
		killAtCheckpoint(t, crashedRun, after, i)
	}
	bin, clean, crashed := crashedRun.bin, cleanRun.state, crashedRun.state
	// query reads a killed pipeline's state (recovering its storage
	// first, as a restart would) without running it.
	if out, err := exec.Command(bin, "query", "--state-dir", crashed, "SELECT count(*) FROM w").CombinedOutput(); err != nil {
		t.Fatalf("query after kill: %v\n%s", err, out)
	}
	toEnd(crashedRun)

	want := viewRows(t, clean, crashViews)
	got := viewRows(t, crashed, crashViews)
	if len(want) == 0 {
		t.Fatal("uninterrupted run produced an empty view")
	}
	wantHot, gotHot := viewRows(t, clean, crashHot), viewRows(t, crashed, crashHot)
	if len(wantHot) == 0 || strings.Join(gotHot, "\n") != strings.Join(wantHot, "\n") {
		t.Fatalf("after kill -9, hot has\n%s\nuninterrupted\n%s", strings.Join(gotHot, "\n"), strings.Join(wantHot, "\n"))
	}
	wantOver, gotOver := viewRows(t, clean, crashOverW), viewRows(t, crashed, crashOverW)
	if len(wantOver) == 0 || strings.Join(gotOver, "\n") != strings.Join(wantOver, "\n") {
		t.Fatalf("after kill -9, per_auction has\n%s\nuninterrupted\n%s", strings.Join(gotOver, "\n"), strings.Join(wantOver, "\n"))
	}
	if len(got) != len(want) {
		t.Fatalf("after kill -9: %d rows, uninterrupted: %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d differs: got %q want %q", i, got[i], want[i])
		}
	}
	// query's read-only answer is the full recovery's.
	out, err := exec.Command(bin, "query", "--state-dir", clean, "SELECT auction, window_start, n, top FROM w ORDER BY window_start, auction").Output()
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")[1:] // after the header
	if len(lines) != len(want) {
		t.Fatalf("query printed %d rows, full recovery has %d", len(lines), len(want))
	}
}

func viewRows(t *testing.T, state, query string) []string {
	t.Helper()
	e, err := engine.Open(engine.Options{StateDir: state, Registry: registry(discard{})})
	if err != nil {
		t.Fatalf("open %s: %v", state, err)
	}
	defer e.Crash()
	res, err := e.Exec(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r.String()
	}
	return out
}
