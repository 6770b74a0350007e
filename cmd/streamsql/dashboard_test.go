package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/streamsql/streamsql/dashboard"
	"github.com/streamsql/streamsql/engine"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write the dashboard browser test's screenshots to docs/img")

// dashboardPipeline is an endless, throttled datagen pipeline: a windowed
// aggregate at parallelism 2 (an exchange in its plan) and a sink.
const dashboardPipeline = `
SET parallelism = 2;
CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR,
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)
WITH (connector = 'datagen', table = 'bid', seed = 7, throttle = 2000);

CREATE MATERIALIZED VIEW bids_per_window AS
SELECT auction, window_start, count(*) AS n, max(price) AS top
FROM TUMBLE(bid, date_time, INTERVAL '2' SECOND)
GROUP BY auction, window_start
LATE DATA DROP EMIT ON WINDOW CLOSE;

CREATE SINK out FROM bids_per_window WITH (connector = 'blackhole');
`

// startDashboard runs dashboardPipeline with `run --http` (the dashboard
// sampling every 200 ms) until the test ends, and returns the base URL.
func startDashboard(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "p.sql")
	if err := os.WriteFile(file, []byte(dashboardPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	web := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- runPipeline(ctx, file, filepath.Join(dir, "state"), 500*time.Millisecond, "", httpFlags{addr: web, sample: 200 * time.Millisecond}, nil, "never")
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	base := "http://" + web
	pollJSON(t, base+"/api/state", func(dashboard.State) bool { return true }) // listening
	return base
}

// pollJSON GETs url into v until ok(v) holds (a generous deadline: the
// pipeline runs on a busy machine).
func pollJSON[T any](t *testing.T, url string, ok func(T) bool) T {
	t.Helper()
	var v T
	body := ""
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		body = get(t, url)
		var x T
		if body != "" && json.Unmarshal([]byte(body), &x) == nil && ok(x) {
			return x
		}
	}
	if len(body) > 4000 {
		body = body[:4000] + " ..."
	}
	t.Fatalf("%s never answered what the test waits for; last answer:\n%s", url, body)
	return v
}

// TestDashboardAPI reads the dashboard's JSON API of a running datagen
// pipeline: the topology source → view → sink with the view's plan, and
// samples whose rows and watermark advance.
func TestDashboardAPI(t *testing.T) {
	base := startDashboard(t)
	topo := pollJSON(t, base+"/api/topology", func(tp engine.Topology) bool { return len(tp.Plans) == 1 })
	for _, e := range []engine.TopoEdge{{From: "source:bid", To: "view:bids_per_window"}, {From: "view:bids_per_window", To: "sink:out"}} {
		if !slices.Contains(topo.Edges, e) {
			t.Errorf("topology has no edge %v: %+v", e, topo.Edges)
		}
	}
	plan := topo.Plans["bids_per_window"]
	var ops []string
	for _, n := range plan.Graph.Nodes {
		ops = append(ops, n.Op)
		if n.Op == "WindowAggregate" && (n.Parallelism != 2 || !n.AppendOnly || n.StateBound == "") {
			t.Errorf("WindowAggregate node %+v: want parallelism 2, append-only, a state bound", n)
		}
	}
	for _, op := range []string{"Materialize", "WindowAggregate", "Exchange", "Scan"} {
		if !slices.Contains(ops, op) {
			t.Errorf("plan graph has no %s node: %v", op, ops)
		}
	}
	if len(plan.Graph.Edges) != len(plan.Graph.Nodes)-1 || !strings.Contains(plan.Explain, "physical plan:") {
		t.Errorf("plan: %d nodes, %d edges, explain %q", len(plan.Graph.Nodes), len(plan.Graph.Edges), plan.Explain)
	}
	// Two samples apart in time with more rows and a later watermark.
	st := pollJSON(t, base+"/api/state", func(s dashboard.State) bool {
		var with []dashboard.ViewSample // the samples once the view has a watermark
		for _, h := range s.History {
			if v, ok := h.Views["bids_per_window"]; ok && v.Watermark != nil {
				with = append(with, v)
			}
		}
		if len(with) < 2 {
			return false
		}
		first, last := with[0], with[len(with)-1]
		return last.RowsIn > first.RowsIn && *last.Watermark > *first.Watermark &&
			s.Current.Checkpoints.LastID > 0 && len(s.Current.Checkpoints.Recent) > 0 && s.Current.Sinks[0].Rows > 0
	})
	if st.Interval != 0.2 || st.Window != 900 {
		t.Errorf("interval %v window %v, want 0.2 and 900", st.Interval, st.Window)
	}
	// since= returns only the later samples.
	last := st.History[len(st.History)-1].T
	later := pollJSON(t, fmt.Sprintf("%s/api/state?since=%d", base, last), func(s dashboard.State) bool { return len(s.History) > 0 })
	for _, s := range later.History {
		if s.T <= last {
			t.Errorf("since=%d returned the sample of %d", last, s.T)
		}
	}
}

// chromiumPath finds the Chromium the browser test drives; make test
// installs Debian's package when it is missing.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: `make test` installs it (apt-get install -y chromium); the dashboard's browser test needs it")
	return ""
}

// consoleErrors collects the page's console errors and warnings, its
// uncaught exceptions and the browser log's errors (a failed request).
type consoleErrors struct {
	mu   sync.Mutex
	msgs []string
}

func (c *consoleErrors) listen(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		msg = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert && ev.Type != runtime.ConsoleAPICalledTypeWarning {
			return
		}
		msg = "console." + string(ev.Type) + ":"
		for _, a := range ev.Args {
			msg += " " + string(a.Value) + a.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError && ev.Entry.Level != log.EntryLevelWarning {
			return
		}
		msg = "log " + string(ev.Entry.Level) + ": " + ev.Entry.Text + " " + ev.Entry.URL
	default:
		return
	}
	c.mu.Lock()
	c.msgs = append(c.msgs, msg)
	c.mu.Unlock()
}

func (c *consoleErrors) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.msgs)
}

// browser drives one headless Chromium tab; steps fail the test.
type browser struct {
	t    *testing.T
	ctx  context.Context
	errs *consoleErrors
}

// newBrowser starts Chromium (ended with the test) and listens to its
// console.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	chromium := chromiumPath(t)
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(chromium),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	b := &browser{t: t, ctx: ctx, errs: &consoleErrors{}}
	if err := chromedp.Listen(ctx, b.errs.listen); err != nil {
		t.Fatalf("start chromium %s: %v", chromium, err)
	}
	return b
}

// do runs steps, failing the test with what and the console so far.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v (console: %q)", what, err, b.errs.list())
	}
}

// eval evaluates a JavaScript expression into T.
func eval[T any](b *browser, what, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("%s: %v (console: %q)", what, err, b.errs.list())
	}
	return v
}

// poll waits (90 s at most) until expr is truthy and returns its value.
func poll[T any](b *browser, what, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Poll[T](expr, chromedp.WithPollingTimeout(90*time.Second), chromedp.WithPollingInterval(200*time.Millisecond)))
	if err != nil {
		b.t.Fatalf("%s: %v (console: %q)", what, err, b.errs.list())
	}
	return v
}

// visible waits until every selector shows (90 s at most).
func (b *browser) visible(what string, selectors ...string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 90*time.Second)
	defer cancel()
	for _, sel := range selectors {
		if err := chromedp.Do(ctx, chromedp.WaitVisible(sel)); err != nil {
			b.t.Fatalf("%s: %s never showed: %v (console: %q)", what, sel, err, b.errs.list())
		}
	}
}

// screenshot saves the page; with -update-screenshots into docs/img.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := b.t.TempDir()
	if *updateScreenshots {
		dir = filepath.Join("..", "..", "docs", "img")
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// TestDashboardBrowser loads the dashboard of a running datagen pipeline
// in headless Chromium: the pipeline graph, the view's plan graph with
// its operators, a chart with data, rows and the watermark advancing
// between two reads, the checkpoint history; and no console errors.
func TestDashboardBrowser(t *testing.T) {
	b := newBrowser(t)
	base := startDashboard(t)
	b.do("open the pipelines page", chromedp.Navigate(base+"/"))
	b.visible("the pipeline graph", `#pipeline-graph g.node[data-id="source:bid"]`,
		`#pipeline-graph g.node[data-id="view:bids_per_window"]`, `#pipeline-graph g.node[data-id="sink:out"]`)
	if n := eval[int](b, "count the pipeline edges", `document.querySelectorAll("#pipeline-graph path.edge").length`); n != 2 {
		t.Errorf("pipeline graph has %d edges, want 2 (source → view → sink)", n)
	}
	b.screenshot("dashboard-pipelines.png")

	b.do("open the view page", chromedp.Navigate(base+"/#/view/bids_per_window"))
	b.visible("the plan graph", `#plan-graph g.node[data-op="WindowAggregate"]`)
	ops := eval[[]string](b, "read the plan's operators", `[...document.querySelectorAll("#plan-graph g.node")].map(n => n.dataset.op)`)
	for _, op := range []string{"Materialize", "WindowAggregate", "Exchange", "Scan"} {
		if !slices.Contains(ops, op) {
			t.Errorf("plan graph has no %s node: %v", op, ops)
		}
	}
	first := waitFigures(b, nil)
	second := waitFigures(b, &first)
	t.Logf("view figures: %+v then %+v", first, second)
	modes := eval[[]string](b, "read the plan's output modes", `[...document.querySelectorAll("#plan-graph g.node")].map(n => n.dataset.op + ":" + n.dataset.mode)`)
	for _, m := range modes {
		if !strings.HasSuffix(m, ":append-only") && !strings.HasSuffix(m, ":retracting") {
			t.Errorf("plan node %s is neither append-only nor retracting", m)
		}
	}
	// The scan's output rate and the aggregate's state size (its windows
	// close only after seconds of event time: its own rate may stay 0).
	figs := poll[map[string]float64](b, "the operators' rates and state size on the plan graph", `(() => {
	  const d = (op) => (document.querySelector('#plan-graph g.node[data-op="' + op + '"]') || {dataset: {}}).dataset;
	  const scan = d("Scan"), agg = d("WindowAggregate");
	  const f = {scanRate: Number(scan.rate || 0), scanRows: Number(scan.rowsOut || 0), aggKeys: Number(agg.stateKeys || 0), aggBytes: Number(agg.stateBytes || 0)};
	  return f.scanRate > 0 && f.scanRows > 0 && f.aggKeys > 0 && f.aggBytes > 0 ? f : null;
	})()`)
	t.Logf("plan graph figures: %v", figs)
	// Materialize, Project, WindowAggregate, Scan: the exchanges and the
	// local phase count with their node.
	if n := eval[int](b, "count the operators table's rows", `document.querySelectorAll("#operators tbody tr").length`); n != 4 {
		t.Errorf("the operators table has %d rows for plan nodes %v, want 4", n, ops)
	}
	b.screenshot("dashboard-view.png")

	b.do("open the checkpoints page", chromedp.Navigate(base+"/#/checkpoints"))
	poll[bool](b, "a stored checkpoint in the history", `document.querySelectorAll("#page td .ok").length > 0`)
	b.screenshot("dashboard-checkpoints.png")
	if msgs := b.errs.list(); len(msgs) > 0 {
		t.Fatalf("the browser console reported errors:\n%s", strings.Join(msgs, "\n"))
	}
}

// viewFigures are what the view page shows of rows, rate and watermark.
type viewFigures struct {
	RowsIn    float64 `json:"rowsIn"`
	Rate      float64 `json:"rate"`
	Watermark float64 `json:"watermark"`
	Points    int     `json:"points"`
}

// waitFigures waits until the view page shows a positive rate, a
// watermark and chart points, all beyond prev's rows and watermark when
// prev is given (the page polls the engine every 2 s).
func waitFigures(b *browser, prev *viewFigures) viewFigures {
	b.t.Helper()
	var rows, wm float64
	if prev != nil {
		rows, wm = prev.RowsIn, prev.Watermark
	}
	return poll[viewFigures](b, "advancing rows, rate and watermark on the view page", fmt.Sprintf(`(() => {
	  const num = (sel) => Number((document.querySelector(sel) || {dataset: {}}).dataset.value || 0);
	  const c = document.querySelector("#chart-watermark");
	  const f = {rowsIn: num("#tile-rows-in"), rate: num("#tile-rows-in-s"), watermark: num("#view-watermark"),
	             points: c ? Number(c.dataset.points) : 0};
	  return f.rate > 0 && f.points > 0 && f.rowsIn > %v && f.watermark > %v ? f : null;
	})()`, rows, wm))
}
