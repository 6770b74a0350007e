package dashboard

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/engine"
)

// handClock is an engine clock the test moves; the sampler reads it from
// its own goroutine.
type handClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *handClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *handClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// getJSON GETs url into v and returns the status.
func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v in %s", url, err, b)
		}
	}
	return resp.StatusCode
}

// TestStalledViewOverAPI drives a real engine with a hand clock until a
// view's watermark stalls (one partition quiet, the other getting rows),
// and reads the flag, the figures, the topology and the plan from the
// dashboard's API over HTTP.
func TestStalledViewOverAPI(t *testing.T) {
	clock := &handClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	e, err := engine.Open(engine.Options{StateDir: t.TempDir(), Clock: clock.Now,
		Settings: map[string]string{"parallelism": "1", "watermark_stall_timeout": "1m"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	run := func(sql string) {
		t.Helper()
		if _, err := e.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	step := func(d time.Duration) {
		t.Helper()
		clock.Add(d)
		run(`FLUSH`)
		if _, _, err := e.Step(ctx, 1024); err != nil {
			t.Fatal(err)
		}
	}
	d := New(e, Options{Interval: 10 * time.Millisecond})
	defer d.Close()
	srv := httptest.NewServer(d)
	defer srv.Close()

	run(`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (partitions = 2)`)
	run(`CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
	     GROUP BY k, window_start LATE DATA DROP EMIT ON WINDOW CLOSE`)
	run(`INSERT INTO s PARTITION (p0) VALUES (1, '2024-01-01 00:00:01')`)
	run(`INSERT INTO s PARTITION (p1) VALUES (2, '2024-01-01 00:00:01')`)
	step(0)
	run(`INSERT INTO s PARTITION (p0) VALUES (1, '2024-01-01 00:00:30')`)
	step(10 * time.Second)
	run(`INSERT INTO s PARTITION (p0) VALUES (1, '2024-01-01 00:00:40')`)
	step(time.Minute)

	var st State
	if code := getJSON(t, srv.URL+"/api/state", &st); code != http.StatusOK {
		t.Fatalf("/api/state: status %d", code)
	}
	if len(st.Current.Views) != 1 {
		t.Fatalf("views %+v, want m", st.Current.Views)
	}
	v := st.Current.Views[0]
	if v.Name != "m" || !v.Stalled || v.RowsIn != 4 || v.Watermark == nil || *v.Watermark != 1704067201 {
		t.Errorf("view %+v: want m stalled with 4 rows in at watermark 1704067201", v)
	}
	if src := st.Current.Sources[0]; len(src.Partitions) != 2 || src.Partitions[0].Read != 3 || src.Partitions[1].Read != 1 {
		t.Errorf("source %+v: want 3 rows read from partition 0, 1 from partition 1", src)
	}
	// The sampler has seen the engine: wait for a sample with the stall
	// (it samples every 10 ms).
	for deadline := time.Now().Add(30 * time.Second); ; {
		getJSON(t, srv.URL+"/api/state", &st)
		if n := len(st.History); n > 0 && st.History[n-1].Views["m"].Stalled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sample shows the stall: %+v", st.History)
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}

	var topo engine.Topology
	getJSON(t, srv.URL+"/api/topology", &topo)
	if !slices.Contains(topo.Edges, engine.TopoEdge{From: "source:s", To: "view:m"}) {
		t.Errorf("topology edges %+v lack source:s -> view:m", topo.Edges)
	}
	var ops []string
	for _, n := range topo.Plans["m"].Graph.Nodes {
		ops = append(ops, n.Op)
	}
	if !slices.Contains(ops, "WindowAggregate") || !slices.Contains(ops, "Scan") || slices.Contains(ops, "Exchange") {
		t.Errorf("plan of m at parallelism 1: %v", ops)
	}
}

// TestServesPages: / is the embedded page, its script and stylesheet are
// served, and a bad since is refused.
func TestServesPages(t *testing.T) {
	e, err := engine.Open(engine.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d := New(e, Options{})
	defer d.Close()
	srv := httptest.NewServer(d)
	defer srv.Close()
	for path, want := range map[string]string{"/": `<script src="app.js">`, "/app.js": "function pipelinesPage", "/style.css": "svg.chart"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: status %d, body lacks %q", path, resp.StatusCode, want)
		}
	}
	if code := getJSON(t, srv.URL+"/api/state?since=x", nil); code != http.StatusBadRequest {
		t.Errorf("since=x: status %d, want 400", code)
	}
}
