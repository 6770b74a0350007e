package connectors

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"
)

// InitialBackoff is the first wait after a failed attempt to reach the
// system a connector talks to; Backoff doubles it up to its Max.
const InitialBackoff = 100 * time.Millisecond

// DefaultMaxBackoff is the longest wait between attempts unless a
// connector's options say otherwise (the postgres sink's
// retry_max_backoff).
const DefaultMaxBackoff = 5 * time.Second

// Backoff is the retry schedule every connector follows while its system
// is unreachable: InitialBackoff, doubling up to Max (DefaultMaxBackoff
// when zero), each wait with ±20% jitter so that many clients do not
// retry in step. The zero value is ready to use.
type Backoff struct {
	Max  time.Duration
	next time.Duration
}

// Next returns the wait before the next attempt (before jitter) and
// doubles the one after it.
func (b *Backoff) Next() time.Duration {
	ceiling := b.Max
	if ceiling <= 0 {
		ceiling = DefaultMaxBackoff
	}
	if b.next <= 0 {
		b.next = InitialBackoff
	}
	d := min(b.next, ceiling)
	b.next = min(2*d, ceiling)
	return d
}

// Wait sleeps d with ±20% jitter, or until ctx is done, when it returns
// ctx's error.
func Wait(ctx context.Context, d time.Duration) error {
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Outage tracks whether a connector's system is reachable and logs each
// change of that state once: a warning when an attempt fails after a
// success (or first of all), a note when one succeeds after failures,
// however many attempts fail in between. It is safe for concurrent use
// (a sink's connections report to one Outage).
type Outage struct {
	log      *slog.Logger
	down     string // the warning's message
	up       string // the note's message
	attrs    []any
	mu       sync.Mutex
	isDown   bool
	since    time.Time
	failures int
	ended    int   // outages that ended
	total    int64 // failed attempts since NewOutage
}

// NewOutage returns an Outage that logs to log (nil: nowhere) message
// down when the system becomes unreachable and up when it is back, each
// with attrs (slog key-value pairs naming the connector).
func NewOutage(log *slog.Logger, down, up string, attrs ...any) *Outage {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Outage{log: log, down: down, up: up, attrs: attrs}
}

// Failed records a failed attempt. The first one of an outage is logged
// as a warning with err and extra (more key-value pairs, such as the
// operation and the next wait); later ones go to the debug level.
func (o *Outage) Failed(err error, extra ...any) {
	o.mu.Lock()
	first := !o.isDown
	if first {
		o.isDown, o.since, o.failures = true, time.Now(), 0
	}
	o.failures++
	o.total++
	n := o.failures
	o.mu.Unlock()
	args := append(append(append([]any{}, o.attrs...), extra...), "attempt", n, "error", err.Error())
	if first {
		o.log.Warn(o.down, args...)
		return
	}
	o.log.Debug(o.down, args...)
}

// Ok records a successful attempt; the first after an outage is logged
// with how long the outage lasted and how many attempts failed.
func (o *Outage) Ok() {
	o.mu.Lock()
	if !o.isDown {
		o.mu.Unlock()
		return
	}
	o.isDown = false
	o.ended++
	down, n := time.Since(o.since), o.failures
	o.mu.Unlock()
	args := append(append([]any{}, o.attrs...), "down_for", down.Round(time.Millisecond).String(), "failed_attempts", n)
	o.log.Info(o.up, args...)
}

// Failures counts the failed attempts recorded since NewOutage, over
// every outage: a connector's retries.
func (o *Outage) Failures() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total
}

// Down reports whether the last attempt failed.
func (o *Outage) Down() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.isDown
}

// Epoch counts the outages that have ended. A connection opened in an
// earlier epoch may have died in the outage without noticing (its server
// restarted): a connector reopens it instead of failing on it once more.
func (o *Outage) Epoch() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ended
}
