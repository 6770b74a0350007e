// Package dashboard is the web UI `streamsql serve` and `run --http`
// serve at / next to /metrics: static pages embedded in the binary (plain
// HTML, CSS and JavaScript, no build step) and a JSON API over the
// engine's own figures (engine.Snapshot, the copy /metrics reads) and
// topology. A sampler keeps the last 15 minutes of snapshots in a ring
// buffer for the charts; nothing else is counted here.
// docs/observability.md describes each page.
package dashboard

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/streamsql/streamsql/engine"
)

//go:embed web
var webFS embed.FS

// Source is what the dashboard reads: *engine.Engine.
type Source interface {
	Metrics() engine.Snapshot
	Topology() engine.Topology
}

// Options configure a Dashboard.
type Options struct {
	// Interval is how often the sampler copies the figures (default 5 s).
	Interval time.Duration
	// Window is how far back the history goes (default 15 minutes).
	Window time.Duration
}

// Dashboard serves the UI and its API and samples the figures.
type Dashboard struct {
	src     Source
	opts    Options
	hist    *history
	mux     *http.ServeMux
	stop    chan struct{}
	done    chan struct{}
	closeMu sync.Once
}

// New returns a dashboard over src and starts its sampler; Close stops
// it.
func New(src Source, opts Options) *Dashboard {
	if opts.Interval <= 0 {
		opts.Interval = 5 * time.Second
	}
	if opts.Window <= 0 {
		opts.Window = 15 * time.Minute
	}
	d := &Dashboard{src: src, opts: opts, hist: newHistory(int(opts.Window/opts.Interval) + 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	static, err := fs.Sub(webFS, "web")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	d.mux = http.NewServeMux()
	d.mux.Handle("GET /", http.FileServerFS(static))
	d.mux.HandleFunc("GET /api/topology", d.serveTopology)
	d.mux.HandleFunc("GET /api/state", d.serveState)
	go d.sample()
	return d
}

// ServeHTTP serves the pages and the API.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) { d.mux.ServeHTTP(w, r) }

// Close stops the sampler.
func (d *Dashboard) Close() {
	d.closeMu.Do(func() { close(d.stop) })
	<-d.done
}

// sample adds a snapshot to the history now and at every interval.
func (d *Dashboard) sample() {
	defer close(d.done)
	t := time.NewTicker(d.opts.Interval)
	defer t.Stop()
	for {
		d.hist.add(sampleOf(d.src.Metrics()))
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
	}
}

// State is the answer of /api/state: the figures now and the samples
// after the request's since.
type State struct {
	Current Current  `json:"current"`
	History []Sample `json:"history"`
	// Interval and Window are the sampler's, in seconds.
	Interval float64 `json:"interval"`
	Window   float64 `json:"window"`
}

// serveState answers GET /api/state?since=MS.
func (d *Dashboard) serveState(w http.ResponseWriter, r *http.Request) {
	since := int64(-1 << 62)
	if s := r.URL.Query().Get("since"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			http.Error(w, "since: not a number of milliseconds", http.StatusBadRequest)
			return
		}
		since = n
	}
	writeJSON(w, State{Current: currentOf(d.src.Metrics()), History: d.hist.since(since),
		Interval: d.opts.Interval.Seconds(), Window: d.opts.Window.Seconds()})
}

// serveTopology answers GET /api/topology.
func (d *Dashboard) serveTopology(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, d.src.Topology())
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}
