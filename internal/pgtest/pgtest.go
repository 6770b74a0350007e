// Package pgtest gives tests a real, throwaway PostgreSQL server
// (internal/pgserver, which starts and stops it) with testing.TB helpers.
// Only tests import it: the streamsql binary must not link testing.
//
// One server per package, a database per test:
//
//	var srv *pgtest.Server
//
//	func TestMain(m *testing.M) {
//		s, stop, err := pgtest.StartMain()
//		if err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		srv = s
//		code := m.Run()
//		stop()
//		os.Exit(code)
//	}
//
//	func TestX(t *testing.T) {
//		dsn := srv.DSNFor(srv.NewDB(t))
//		...
//	}
//
// Stop and Restart (from pgserver.Server) simulate an outage.
package pgtest

import (
	"testing"

	"github.com/streamsql/streamsql/internal/pgserver"
)

// Server is a running (or stopped) throwaway PostgreSQL server.
type Server struct{ *pgserver.Server }

// Start starts a server for one test (or benchmark) and stops it when the
// test ends. Prefer StartMain in a TestMain to share one server per
// package, and NewDB for a fresh database per test.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := pgserver.Start()
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(s.Close)
	return &Server{s}
}

// StartMain starts a server for a whole test package: call it from
// TestMain and call the returned function after m.Run.
func StartMain() (*Server, func(), error) {
	s, err := pgserver.Start()
	if err != nil {
		return nil, func() {}, err
	}
	return &Server{s}, s.Close, nil
}

// NewDB creates a fresh, empty database for t and returns its name. The
// database lives until the server is closed.
func (s *Server) NewDB(t testing.TB) string {
	t.Helper()
	name, err := s.CreateDB(t.Name())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return name
}
