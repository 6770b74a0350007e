// Package pgserver runs a real, throwaway PostgreSQL server: for tests
// (through internal/pgtest, which adds testing.TB helpers) and for
// `streamsql dev postgres`. It does not import testing, so the binary
// does not link it.
//
// Lifecycle: Start runs initdb into a fresh temporary directory and
// starts postgres on a free TCP port of 127.0.0.1 (StartOnPort takes a
// fixed port instead, for `streamsql dev postgres`; a server that answers
// on the port but has another data directory is an error, never mistaken
// for ours) with trust authentication, its unix socket in the same
// directory, and durability switched off (fsync, synchronous_commit,
// full_page_writes) for speed. CreateDB creates a fresh database, so one
// server per test package is enough. Stop shuts the server down (fast
// shutdown: clients see "terminating connection due to administrator
// command"); Restart starts it again on the same port and data directory,
// which is how tests simulate a Postgres outage. Close stops the server
// and removes the directory.
//
// initdb and postgres refuse to run as root. When the process is root
// they run as the "postgres" OS user (the temporary directory is chowned
// to it); the credentials are set on the child process directly, like
// runuser does, so that stop signals reach postgres itself and the server
// dies with its parent (parent-death signal). Otherwise they run as the
// current user. The binaries are taken from $PGTEST_BIN or
// /usr/lib/postgresql/15/bin; when they are missing Start fails with a
// message saying so.
package pgserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultBinDir is where the PostgreSQL 15 binaries live on Debian.
const DefaultBinDir = "/usr/lib/postgresql/15/bin"

// Server is a running (or stopped) throwaway PostgreSQL server.
type Server struct {
	bin  string
	dir  string // owned by the server's OS user; holds data/ and the socket
	port int
	cred *syscall.Credential // nil when not running as root
	uid  int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd exits
	dbs  atomic.Int64
}

// Start starts a server on a free port; Close stops it and deletes its
// data.
func Start() (*Server, error) { return StartOnPort(0) }

// StartOnPort is Start on a fixed TCP port of 127.0.0.1 (0: a free one).
// A port that is taken is an error naming it; it is not retried.
func StartOnPort(port int) (*Server, error) {
	s, err := startOn(port)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s, nil
}

func startOn(port int) (*Server, error) {
	bin := os.Getenv("PGTEST_BIN")
	if bin == "" {
		bin = DefaultBinDir
	}
	for _, name := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return nil, fmt.Errorf("PostgreSQL binaries not found: %s is missing (install postgresql-15 or set PGTEST_BIN): %w", filepath.Join(bin, name), err)
		}
	}
	if port != 0 {
		// Probe first (before the slow initdb): if another server holds
		// the port, waitReady would connect to it and take it for ours.
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return nil, fmt.Errorf("port %d is not free: %w", port, err)
		}
		_ = l.Close()
	}
	s := &Server{bin: bin, uid: os.Getuid()}
	if err := s.prepareDir(); err != nil {
		return nil, err
	}
	if err := s.initdb(); err != nil {
		s.removeDir()
		return nil, err
	}
	if port != 0 {
		s.port = port
		if err := s.Restart(); err != nil {
			s.removeDir()
			return nil, fmt.Errorf("port %d: %w", port, err)
		}
		return s, nil
	}
	var err error
	for range 5 { // a free port can be taken between probing and binding
		if s.port, err = freePort(); err != nil {
			break
		}
		if err = s.Restart(); err == nil {
			return s, nil
		}
	}
	s.removeDir()
	return nil, err
}

// prepareDir makes the temporary directory, owned by the postgres OS user
// when we are root.
func (s *Server) prepareDir() error {
	parent := os.Getenv("PGTEST_TMP")
	if parent == "" && s.uid == 0 {
		parent = "/tmp" // the default TMPDIR may not be traversable by postgres
	}
	dir, err := os.MkdirTemp(parent, "pgtest-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	s.dir = dir
	if s.uid != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		s.removeDir()
		return fmt.Errorf("running as root needs the postgres OS user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if err := os.Chown(dir, uid, gid); err != nil {
		s.removeDir()
		return fmt.Errorf("chown %s: %w", dir, err)
	}
	return nil
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	// Pdeathsig stops postgres (immediate shutdown) if the test binary
	// dies without cleaning up. Linux sends it when the forking OS thread
	// exits, which Go does only for goroutines that exit while locked to
	// their thread; nothing here locks threads.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGQUIT}
	return cmd
}

func (s *Server) initdb() error {
	cmd := s.command("initdb", "-D", s.dataDir(), "--auth=trust", "--username=postgres",
		"--encoding=UTF8", "--no-locale", "--no-sync", "--no-instructions")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return nil
}

func (s *Server) dataDir() string { return filepath.Join(s.dir, "data") }
func (s *Server) logPath() string { return filepath.Join(s.dir, "postgres.log") }

// Restart starts the server again after Stop, on the same port and data
// directory; it returns once the server accepts connections.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("server is already running")
	}
	logf, err := os.OpenFile(s.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	defer logf.Close()
	cmd := s.command("postgres", "-D", s.dataDir(), "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+s.dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=128MB", "-c", "max_connections=50",
		"-c", "max_wal_size=1GB", "-c", "checkpoint_timeout=30min",
		"-c", "log_min_messages=warning")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	if err := s.waitReady(done); err != nil {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		<-done
		return fmt.Errorf("%w\n%s", err, s.logTail())
	}
	s.cmd, s.done = cmd, done
	return nil
}

func (s *Server) waitReady(done <-chan struct{}) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, s.DSN())
		var dataDir string
		if err == nil {
			err = conn.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&dataDir)
			_ = conn.Close(ctx)
		}
		cancel()
		if err == nil {
			// Whoever answers must be our server: another one that took
			// the port first (ours then exits, unable to bind) must not
			// pass for it.
			if dataDir != s.dataDir() {
				return fmt.Errorf("port %d is taken by another PostgreSQL server (data directory %s)", s.port, dataDir)
			}
			return nil
		}
		select {
		case <-done:
			return errors.New("postgres exited during startup")
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 60s: %w", err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.logPath())
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop shuts the server down (fast shutdown: open connections are
// terminated) and waits for it to exit. Stopping a stopped server does
// nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Signal(syscall.SIGQUIT)
		<-s.done
	}
	s.cmd, s.done = nil, nil
	return nil
}

// Close stops the server and removes its directory.
func (s *Server) Close() {
	_ = s.Stop()
	s.removeDir()
}

func (s *Server) removeDir() {
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// Port is the server's TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// DSN is the URL of the "postgres" database as the superuser "postgres".
func (s *Server) DSN() string { return s.DSNFor("postgres") }

// DSNFor is the URL of database db as the superuser "postgres".
func (s *Server) DSNFor(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// CreateDB creates a fresh database whose name starts with a sanitised
// hint and returns the name.
func (s *Server) CreateDB(hint string) (string, error) { return s.CreateDBWith(hint, "") }

// CreateDBWith is CreateDB with options appended to CREATE DATABASE, for
// example a locale: "TEMPLATE template0 LC_CTYPE 'C.utf8'".
func (s *Server) CreateDBWith(hint, options string) (string, error) {
	name := fmt.Sprintf("t%d_%s", s.dbs.Add(1), sanitize(hint))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DSN())
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, strings.TrimSpace("CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" "+options)); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return name, nil
}

// sanitize keeps a database name short and free of quoting surprises.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if b.Len() >= 40 {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
