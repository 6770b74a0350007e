package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Option configures the Kafka connector factories.
type Option func(*factoryConfig)

type factoryConfig struct {
	log *slog.Logger
}

// WithLogger sets where the connectors log waiting for an unreachable
// cluster at start (each attempt), a broker becoming unreachable and its
// return (once each). The default logs nowhere.
func WithLogger(l *slog.Logger) Option {
	return func(c *factoryConfig) { c.log = l }
}

func newFactoryConfig(opts []Option) factoryConfig {
	c := factoryConfig{log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// errNoTopic is a topic the cluster does not have. The source does not
// create topics, so retrying cannot help.
var errNoTopic = errors.New("does not exist")

// permanentError marks an error retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// retriable reports whether a failed call to the cluster may succeed
// later: anything but a missing topic, an error the broker marks as not
// retriable (authorisation and authentication failures, an invalid
// topic) and errors marked permanent. An unreachable broker — refused or
// timed-out dials, reset connections, a connection closed at once (a
// container's port proxy whose broker is not up yet), a name that does
// not resolve yet — is an outage, not a configuration error: it is
// retried, and each attempt's error is logged.
func retriable(err error) bool {
	var (
		p  *permanentError
		ke *kerr.Error
	)
	switch {
	case errors.Is(err, errNoTopic), errors.As(err, &p):
		return false
	case errors.As(err, &ke):
		return ke.Retriable && !errors.Is(err, kerr.UnknownTopicOrPartition)
	}
	return true
}

// waitForCluster runs fn until it succeeds, fails with an error retrying
// cannot fix, or ctx ends, waiting as connectors.Backoff says between
// attempts. Each failed attempt is logged (at start nothing else tells
// the user why the pipeline waits), and the first success after them.
// Each attempt may take up to setupTimeout.
func waitForCluster(ctx context.Context, log *slog.Logger, what string, attrs []any, fn func(ctx context.Context) error) error {
	var backoff connectors.Backoff
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, setupTimeout)
		err := fn(actx)
		cancel()
		if err == nil {
			if attempt > 1 {
				log.Info("kafka: cluster reached", slices.Concat(attrs, []any{"op", what, "attempts", attempt})...)
			}
			return nil
		}
		if !retriable(err) || ctx.Err() != nil {
			return err
		}
		wait := backoff.Next()
		log.Warn("kafka: cluster unreachable, retrying", slices.Concat(attrs, []any{"op", what, "attempt", attempt, "retry_in", wait.String(), "error", err.Error()})...)
		if werr := connectors.Wait(ctx, wait); werr != nil {
			return fmt.Errorf("%w while waiting for the cluster (last error: %w)", werr, err)
		}
	}
}

// brokerWatch is a kgo hook that logs when the client cannot reach a
// broker and when it can again, once per change per broker
// (connectors.Outage), so a source or sink stalled on a broker outage
// says why. kgo itself retries the dials.
type brokerWatch struct {
	log   *slog.Logger
	attrs []any
	mu    sync.Mutex
	by    map[string]*connectors.Outage // by host:port
}

func newBrokerWatch(log *slog.Logger, attrs ...any) *brokerWatch {
	return &brokerWatch{log: log, attrs: attrs, by: map[string]*connectors.Outage{}}
}

// OnBrokerConnect implements kgo.HookBrokerConnect.
func (w *brokerWatch) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, kgo.ErrClientClosed)) {
		return // the client is closing, or gave up on a dial it no longer needs
	}
	o := w.outage(net.JoinHostPort(meta.Host, strconv.Itoa(int(meta.Port))))
	if err != nil {
		o.Failed(err)
		return
	}
	o.Ok()
}

func (w *brokerWatch) outage(addr string) *connectors.Outage {
	w.mu.Lock()
	defer w.mu.Unlock()
	o := w.by[addr]
	if o == nil {
		o = connectors.NewOutage(w.log, "kafka: broker unreachable", "kafka: broker is back", slices.Concat(w.attrs, []any{"broker", addr})...)
		w.by[addr] = o
	}
	return o
}

var _ kgo.HookBrokerConnect = (*brokerWatch)(nil)
