package main

import (
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/streamsql/streamsql/dashboard"
	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/metrics"
)

// httpFlags are the metrics listener's flags (--http, and the --insecure
// that admits a non-loopback address without passwords).
type httpFlags struct {
	addr     string
	insecure bool
	// pprof adds Go's profiles (net/http/pprof) under /debug/pprof/.
	pprof bool
	// sample is how often the dashboard samples the figures (0: its
	// default, 5 s); tests shorten it.
	sample time.Duration
}

// check applies the wire server's rule to --http: a non-loopback address
// needs users (basic authentication) or --insecure.
func (f httpFlags) check(users map[string]string) error {
	if f.addr == "" || f.insecure || len(users) > 0 || loopback(f.addr) {
		return nil
	}
	return fmt.Errorf("--http %s is not a loopback address: set --password or --users (or --insecure to let anyone read the metrics)", f.addr)
}

// start serves e's metrics and dashboard on --http (when given) until
// stop runs.
func (f httpFlags) start(e *engine.Engine, users map[string]string) (stop func(), err error) {
	if f.addr == "" {
		return func() {}, nil
	}
	dash := dashboard.New(e, dashboard.Options{Interval: f.sample})
	routes := []metrics.Route{{Pattern: "/", Handler: dash}}
	if f.pprof {
		routes = append(routes, pprofRoutes()...)
	}
	srv, err := metrics.Listen(f.addr, e, users, routes...)
	if err != nil {
		dash.Close()
		return nil, fmt.Errorf("--http: %w", err)
	}
	logger.Info("metrics and dashboard listening", "metrics", "http://"+srv.Addr()+"/metrics", "dashboard", "http://"+srv.Addr()+"/")
	return func() {
		_ = srv.Close()
		dash.Close()
	}, nil
}

// pprofRoutes are Go's profiling endpoints (the heap's in-use bytes by
// allocation site, CPU, goroutines, an execution trace) at the paths `go
// tool pprof http://ADDR/debug/pprof/heap` expects. They sit behind the
// same address rule and authentication as the metrics.
func pprofRoutes() []metrics.Route {
	return []metrics.Route{
		{Pattern: "/debug/pprof/", Handler: http.HandlerFunc(pprof.Index)},
		{Pattern: "/debug/pprof/cmdline", Handler: http.HandlerFunc(pprof.Cmdline)},
		{Pattern: "/debug/pprof/profile", Handler: http.HandlerFunc(pprof.Profile)},
		{Pattern: "/debug/pprof/symbol", Handler: http.HandlerFunc(pprof.Symbol)},
		{Pattern: "/debug/pprof/trace", Handler: http.HandlerFunc(pprof.Trace)},
	}
}
