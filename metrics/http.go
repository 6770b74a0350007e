package metrics

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"time"
)

// Server is the HTTP listener `serve` and `run --http` start: /metrics
// and the caller's other routes (the dashboard), behind HTTP basic
// authentication when users are given.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Route is another handler the listener serves, at Pattern (an
// http.ServeMux pattern).
type Route struct {
	Pattern string
	Handler http.Handler
}

// Listen starts serving src's metrics, and routes, on addr. With users
// (name to password), every request must authenticate with one of them
// (basic authentication); the caller decides when none is needed
// (loopback).
func Listen(addr string, src Source, users map[string]string, routes ...Route) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", Handler(NewRegistry(src)))
	for _, r := range routes {
		mux.Handle(r.Pattern, r.Handler)
	}
	var h http.Handler = mux
	if len(users) > 0 {
		h = basicAuth(users, mux)
	}
	s := &Server{ln: ln, srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, waiting up to a few seconds for scrapes in
// flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// basicAuth admits requests whose basic-auth user and password match
// users.
func basicAuth(users map[string]string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		want, known := users[u]
		if !ok || !known || subtle.ConstantTimeCompare([]byte(p), []byte(want)) != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="streamsql"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
