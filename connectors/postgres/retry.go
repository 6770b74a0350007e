package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamsql/streamsql/connectors"
)

// errClosed ends a call blocked in retry when the sink is closed.
var errClosed = errors.New("sink closed")

// permanentError marks an error retrying cannot fix (a misfit table, a
// value of the wrong kind).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

// transientCode reports whether a Postgres error code means "try again
// later": connection exceptions (08), insufficient resources (53, e.g.
// too many connections), operator intervention (57P01 admin shutdown,
// 57P02 crash shutdown, 57P03 cannot connect now), system errors (58),
// serialization failures and deadlocks.
func transientCode(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "58"):
		return true
	}
	switch code {
	case "57P01", "57P02", "57P03", "40001", "40P01":
		return true
	}
	return false
}

// transient reports whether err is worth retrying: Postgres said to try
// later, or the connection failed or was lost (refused, reset, EOF,
// timeout). connLost says the connection is closed after the error.
func transient(err error, connLost bool) bool {
	var p *permanentError
	if errors.As(err, &p) {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return transientCode(pg.Code)
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		pgconn.Timeout(err), pgconn.SafeToRetry(err):
		return true
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return false // e.g. the server refused TLS: a configuration problem
	}
	return connLost
}

// retry runs fn on lane l until it succeeds, fails permanently, or ctx is
// done, reconnecting between attempts and waiting as connectors.Backoff
// says (up to retry_max_backoff). attempt counts from 1. The sink's
// outage tracker logs when Postgres becomes unreachable and when it is
// back, once each however many attempts and connections fail.
func (s *sink) retry(ctx context.Context, what string, l *lane, fn func(ctx context.Context, l *lane, attempt int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.closing, func() { cancel(errClosed) })()
	backoff := connectors.Backoff{Max: s.cfg.maxBackoff}
	for attempt := 1; ; attempt++ {
		err := s.connect(ctx, l)
		if err == nil {
			err = fn(ctx, l, attempt)
		}
		if err == nil {
			s.outage.Ok()
			return nil
		}
		connLost := l.lost()
		if ctx.Err() != nil || !transient(err, connLost) {
			if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
				err = fmt.Errorf("%w (last error: %w)", cause, err)
			}
			return s.red.error(s.wrap(what, err))
		}
		l.drop()
		wait := backoff.Next()
		s.outage.Failed(s.red.error(err), "op", what, "retry_in", wait.String())
		if err := connectors.Wait(ctx, wait); err != nil {
			return s.red.error(s.wrap(what, fmt.Errorf("%w while Postgres was unavailable", context.Cause(ctx))))
		}
	}
}

// onLanes runs fn on every lane, each with its own retries: on lane 0
// alone for a one-connection sink, else in parallel once lane 0 has
// connected and checked the table (so lanes never set up concurrently).
// When one lane fails for good the others are cancelled, and the first
// error is returned; lanes that committed stay committed (their progress
// rows say so, and a retry or Recover redoes the rest).
func (s *sink) onLanes(ctx context.Context, what string, fn func(ctx context.Context, l *lane, attempt int) error) error {
	if len(s.lanes) == 1 {
		return s.retry(ctx, what, s.lanes[0], fn)
	}
	if err := s.retry(ctx, what, s.lanes[0], func(context.Context, *lane, int) error { return nil }); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(s.lanes))
	var wg sync.WaitGroup
	for _, l := range s.lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[l.i] = s.retry(ctx, what, l, fn); errs[l.i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}
