package pgwire

import (
	"context"
	"sync"
	"time"
)

// Defaults of the failed-login delay (Config.AuthDelay, AuthDelayMax).
const (
	DefaultAuthDelay    = 100 * time.Millisecond
	DefaultAuthDelayMax = 3 * time.Second
)

const (
	// authForget is how long an address's failures are remembered: a
	// failure after a quiet spell this long starts again at the base delay.
	authForget = 10 * time.Minute
	// authAddrs bounds the table of addresses with recent failures; when
	// it is full the address whose last failure is oldest is forgotten.
	authAddrs = 10000
)

// authDelay slows password guessing, as Postgres' auth_delay does: a
// failed login is answered only after a delay that starts at base and
// doubles with each consecutive failure from the same address, up to max;
// a successful login from the address resets it. Other addresses are not
// delayed. Concurrent guesses from one address each wait their own delay.
type authDelay struct {
	base, max time.Duration
	now       func() time.Time
	sleep     func(context.Context, time.Duration) error

	mu    sync.Mutex
	addrs map[string]authFailures
}

// authFailures is one address's run of consecutive failed logins.
type authFailures struct {
	n    int
	last time.Time
}

func newAuthDelay(base, maxDelay time.Duration, now func() time.Time, sleep func(context.Context, time.Duration) error) *authDelay {
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepContext
	}
	return &authDelay{base: base, max: maxDelay, now: now, sleep: sleep, addrs: map[string]authFailures{}}
}

// sleepContext waits d or until ctx ends.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failed records a failed login from addr and returns how many failures
// in a row addr has now and the delay before the failure is answered.
func (a *authDelay) failed(addr string) (int, time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	f, ok := a.addrs[addr]
	if !ok || now.Sub(f.last) > authForget {
		f = authFailures{}
		if !ok && len(a.addrs) >= authAddrs {
			a.evict(now)
		}
	}
	f.n++
	f.last = now
	a.addrs[addr] = f
	d := a.base
	for i := 1; i < f.n && d < a.max; i++ {
		d *= 2
	}
	return f.n, min(d, a.max)
}

// evict makes room in the full table: it drops the addresses whose
// failures are forgotten, or else the one whose last failure is oldest.
// a.mu is held.
func (a *authDelay) evict(now time.Time) {
	oldest := ""
	for k, f := range a.addrs {
		if now.Sub(f.last) > authForget {
			delete(a.addrs, k)
			continue
		}
		if oldest == "" || f.last.Before(a.addrs[oldest].last) {
			oldest = k
		}
	}
	if len(a.addrs) >= authAddrs {
		delete(a.addrs, oldest)
	}
}

// succeeded forgets addr's failures.
func (a *authDelay) succeeded(addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.addrs, addr)
}
