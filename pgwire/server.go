package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/streamsql/streamsql/engine"
)

// DefaultMaxMessageSize bounds the body of one client message (a query
// text, a Bind with its parameters): larger messages drop the connection
// before the server allocates for them.
const DefaultMaxMessageSize = 16 << 20

// Config configures a Server.
type Config struct {
	// Engine runs the statements; the server does not open or close it.
	Engine *engine.Engine
	// TLS, when set, is offered to clients that send SSLRequest.
	TLS *tls.Config
	// Users maps user names to passwords. Empty means trust: any user
	// connects without a password. Otherwise SCRAM-SHA-256 is required.
	Users map[string]string
	// MaxMessageSize bounds a client message body (default
	// DefaultMaxMessageSize).
	MaxMessageSize int
	// StartupTimeout bounds the time from accept to a finished startup
	// and authentication (default 10s).
	StartupTimeout time.Duration
	// Database is what current_database() reports (default "streamsql").
	Database string
	// Logger receives connection events with the client's address, user
	// and database as fields: a session's start and end at debug, a
	// dropped connection and a failed login at warn. Nil discards them.
	Logger *slog.Logger
	// AuthDelay is how long the answer to a failed login waits (default
	// DefaultAuthDelay, 100ms); it doubles with each consecutive failure
	// from the same address up to AuthDelayMax (default
	// DefaultAuthDelayMax, 3s). A successful login from the address
	// resets it; other addresses are not delayed.
	AuthDelay, AuthDelayMax time.Duration

	// authNow and authSleep replace the clock and the sleep of the
	// failed-login delay (tests).
	authNow   func() time.Time
	authSleep func(context.Context, time.Duration) error
}

// Server serves the Postgres wire protocol (version 3) over listeners.
// Each connection is a session on its own goroutine; statements of all
// sessions run on the one engine (which serialises them). Close stops
// accepting, drops every session and waits for their goroutines.
type Server struct {
	cfg  Config
	auth *authDelay

	mu        sync.Mutex
	sessions  map[uint32]*session
	conns     map[net.Conn]bool // every open connection, sessions or not yet
	listeners map[net.Listener]bool
	nextPID   uint32
	closed    bool
	wg        sync.WaitGroup
	ctx       context.Context
	stop      context.CancelFunc
}

// New returns a server for cfg.
func New(cfg Config) *Server {
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = DefaultMaxMessageSize
	}
	if cfg.StartupTimeout <= 0 {
		cfg.StartupTimeout = 10 * time.Second
	}
	if cfg.Database == "" {
		cfg.Database = "streamsql"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.AuthDelay <= 0 {
		cfg.AuthDelay = DefaultAuthDelay
	}
	if cfg.AuthDelayMax <= 0 {
		cfg.AuthDelayMax = DefaultAuthDelayMax
	}
	auth := newAuthDelay(cfg.AuthDelay, max(cfg.AuthDelayMax, cfg.AuthDelay), cfg.authNow, cfg.authSleep)
	ctx, stop := context.WithCancel(context.Background())
	return &Server{cfg: cfg, auth: auth, sessions: map[uint32]*session{}, conns: map[net.Conn]bool{}, listeners: map[net.Listener]bool{}, nextPID: 1000, ctx: ctx, stop: stop}
}

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("pgwire: server closed")

// Serve accepts connections on ln until Close; it always returns a
// non-nil error (ErrServerClosed after Close).
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrServerClosed
	}
	s.listeners[ln] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
	}()
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				time.Sleep(delay)
				continue
			}
			return fmt.Errorf("accept: %w", err)
		}
		delay = 0
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.ServeConn(c)
		}()
	}
}

// ServeConn runs one client connection to its end (the Terminate message,
// a closed socket, a protocol error or Close). It closes c.
func (s *Server) ServeConn(c net.Conn) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = c.Close()
		return
	}
	s.conns[c] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	sess := newSession(s, c)
	defer c.Close()
	if err := sess.run(); err != nil {
		s.cfg.Logger.Warn("pgwire: connection dropped", sess.logAttrs("error", err.Error())...)
	} else if sess.user != "" {
		s.cfg.Logger.Debug("pgwire: connection closed", sess.logAttrs()...)
	}
	sess.cleanup()
}

// Close stops the listeners, cancels running statements, closes every
// connection and waits until the sessions are gone or ctx ends.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	for ln := range s.listeners {
		_ = ln.Close()
	}
	for _, sess := range s.sessions {
		sess.kill()
	}
	for c := range s.conns {
		_ = c.Close() // connections still in startup
	}
	s.mu.Unlock()
	s.stop()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// register gives a session its process id and secret key
// (BackendKeyData) and lists it for cancel requests.
func (s *Server) register(sess *session) bool {
	var b [4]byte
	_, _ = rand.Read(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.nextPID++
	sess.pid = s.nextPID
	sess.secret = binary.BigEndian.Uint32(b[:])
	s.sessions[sess.pid] = sess
	return true
}

func (s *Server) unregister(sess *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[sess.pid] == sess {
		delete(s.sessions, sess.pid)
	}
}

// cancel handles a CancelRequest: the statement running in the session
// with that process id stops if the secret matches. Like Postgres, it
// answers nothing either way.
func (s *Server) cancel(pid uint32, secret []byte) {
	s.mu.Lock()
	sess := s.sessions[pid]
	s.mu.Unlock()
	if sess == nil || len(secret) != 4 {
		return
	}
	if subtle.ConstantTimeCompare(secret, binary.BigEndian.AppendUint32(nil, sess.secret)) != 1 {
		return
	}
	sess.cancelRunning()
}

// signal cancels the running statement of session pid, and with
// terminate closes its connection; it reports whether the session exists.
func (s *Server) signal(pid uint32, terminate bool) bool {
	s.mu.Lock()
	sess := s.sessions[pid]
	s.mu.Unlock()
	if sess == nil {
		return false
	}
	if terminate {
		sess.kill()
	} else {
		sess.cancelRunning()
	}
	return true
}
