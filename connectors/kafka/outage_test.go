package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
)

// logBuffer collects a connector's log lines (slog handlers write each
// line in one call; the lock guards reading while the client logs).
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) option() Option {
	return WithLogger(slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

// freePort returns a TCP port nothing listens on (yet).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// clusterOn starts kfake on port with topic seeded (one partition);
// more options (a DataDir, so that a restart keeps topics, their ids
// and records, as a broker restart does) may follow.
func clusterOn(t *testing.T, port int, topic string, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(1, topic)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// waitFor polls cond until it holds (60 s at most: a busy machine).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestSourceWaitsForClusterAtStart: a source created while nothing
// listens on the broker's port retries (logging each attempt) instead of
// failing, and reads once the cluster is up.
func TestSourceWaitsForClusterAtStart(t *testing.T) {
	port := freePort(t)
	brokers := fmt.Sprintf("127.0.0.1:%d", port)
	var logs logBuffer
	type result struct {
		src connectors.Source
		err error
	}
	done := make(chan result, 1)
	go func() {
		src, err := SourceFactory(logs.option()).New(context.Background(), connectors.SourceSpec{Name: "bids", Schema: testSchema,
			Options: map[string]string{"connector": "kafka", "brokers": brokers, "topic": "bids"}})
		done <- result{src, err}
	}()
	waitFor(t, "a failed attempt to be logged", func() bool {
		return strings.Contains(logs.String(), "kafka: cluster unreachable, retrying")
	})
	select {
	case r := <-done:
		t.Fatalf("New returned while the cluster was down: %v", r.err)
	default:
	}
	clusterOn(t, port, "bids")
	produce(t, brokers, "bids", values(0, bidJSON(1, "a"), bidJSON(2, "b"))...)
	r := <-done
	if r.err != nil {
		t.Fatalf("New after the cluster came up: %v", r.err)
	}
	t.Cleanup(func() { _ = r.src.Close() })
	if err := r.src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, b := range readAll(t, r.src, 2, 10) {
		rows += len(b.Rows)
	}
	if rows != 2 {
		t.Fatalf("read %d rows, want 2", rows)
	}
	l := logs.String()
	for _, want := range []string{"source=bids", "attempt=1", "connection refused", "kafka: cluster reached"} {
		if !strings.Contains(l, want) {
			t.Errorf("the log lacks %q:\n%s", want, l)
		}
	}
}

// TestSourceUnknownTopicFailsFast: a topic the cluster does not have is
// a configuration error: New fails at once, naming it, without retrying.
func TestSourceUnknownTopicFailsFast(t *testing.T) {
	brokers := cluster(t)
	var logs logBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := SourceFactory(logs.option()).New(ctx, connectors.SourceSpec{Name: "s", Schema: testSchema,
		Options: map[string]string{"connector": "kafka", "brokers": brokers, "topic": "nosuch"}})
	if err == nil || !strings.Contains(err.Error(), "topic nosuch does not exist") || ctx.Err() != nil {
		t.Fatalf("New on a missing topic: %v", err)
	}
	if strings.Contains(logs.String(), "retrying") {
		t.Errorf("a missing topic was retried:\n%s", logs.String())
	}
}

// TestSourceLogsBrokerOutageOnce: while the broker is down the source
// says so once, however often the client redials, and once that it is
// back; reading resumes after the restart.
func TestSourceLogsBrokerOutageOnce(t *testing.T) {
	port := freePort(t)
	brokers := fmt.Sprintf("127.0.0.1:%d", port)
	data := t.TempDir()
	c := clusterOn(t, port, "bids", kfake.DataDir(data))
	var logs logBuffer
	src, err := SourceFactory(logs.option()).New(context.Background(), connectors.SourceSpec{Name: "bids", Schema: testSchema,
		Options: map[string]string{"connector": "kafka", "brokers": brokers, "topic": "bids"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	const (
		outage   = `level=WARN msg="kafka: broker unreachable"`
		redial   = `level=DEBUG msg="kafka: broker unreachable"` // the attempts after the first
		recovery = `level=INFO msg="kafka: broker is back"`
	)
	if err := src.Open(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	produce(t, brokers, "bids", values(0, bidJSON(1, "before"))...)
	readAll(t, src, 1, 10)

	c.Close()
	read := func() {
		if _, err := src.Read(context.Background(), 10); err != nil {
			t.Fatal(err)
		}
	}
	// The client keeps redialling: wait for a few failed dials.
	waitFor(t, "failed dials", func() bool {
		read()
		return strings.Count(logs.String(), redial) >= 3
	})
	clusterOn(t, port, "bids", kfake.DataDir(data))
	produce(t, brokers, "bids", values(0, bidJSON(2, "after"))...)
	b := readAll(t, src, 1, 10)
	if len(b) != 1 || len(b[0].Rows) != 1 || b[0].Rows[0][0].I != 2 {
		t.Fatalf("after the restart: batches %v, want the one new row", b)
	}
	waitFor(t, "the recovery to be logged", func() bool { return strings.Contains(logs.String(), recovery) })
	l := logs.String()
	if strings.Count(l, outage) != 1 || strings.Count(l, recovery) != 1 {
		t.Fatalf("want one outage warning and one recovery note:\n%s", l)
	}
	if !strings.Contains(l, "broker="+brokers) || !strings.Contains(l, "source=bids") {
		t.Errorf("the lines do not name the source and the broker:\n%s", l)
	}
}

// TestSinkSetsUpOnFirstUse: a sink created while the cluster is down is
// created (the cluster may be restarting); its first checkpoint waits for
// the cluster, then creates the topic and commits.
func TestSinkSetsUpOnFirstUse(t *testing.T) {
	for _, delivery := range []string{"exactly_once", "at_least_once"} {
		t.Run(delivery, func(t *testing.T) {
			port := freePort(t)
			brokers := fmt.Sprintf("127.0.0.1:%d", port)
			var logs logBuffer
			s, err := SinkFactory(logs.option()).New(connectors.SinkSpec{Name: "q", Schema: testSchema, Key: []int{0},
				Options: map[string]string{"connector": "kafka", "brokers": brokers, "topic": "out", "delivery": delivery}})
			if err != nil {
				t.Fatalf("New with the cluster down: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			if !strings.Contains(logs.String(), "setting up on first use") {
				t.Fatalf("the deferred setup is not logged:\n%s", logs.String())
			}
			done := make(chan error, 1)
			go func() {
				if err := s.Write(context.Background(), []connectors.Change{upsert(1, "a")}); err != nil {
					done <- err
					return
				}
				_, err := s.PreCommit(context.Background(), 1)
				if err == nil {
					err = s.Commit(context.Background(), 1)
				}
				done <- err
			}()
			waitFor(t, "a retry while the cluster is down", func() bool {
				return strings.Contains(logs.String(), "kafka: cluster unreachable, retrying") || strings.Contains(logs.String(), "op=\"set up\"")
			})
			clusterOn(t, port, "unrelated")
			if err := <-done; err != nil {
				t.Fatalf("checkpoint after the cluster came up: %v", err)
			}
			if got := log(t, brokers, "out"); got != `{"id":1}={"id":1,"name":"a","price":0.5}` {
				t.Fatalf("topic out holds %q", got)
			}
		})
	}
}

func TestRetriable(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("metadata of topic bids: unable to dial: %w", dial), true},
		{context.DeadlineExceeded, true},
		{kerr.LeaderNotAvailable, true},
		{fmt.Errorf("topic x %w", errNoTopic), false},
		{kerr.UnknownTopicOrPartition, false},
		{kerr.TopicAuthorizationFailed, false},
		{kerr.SaslAuthenticationFailed, false},
		{&permanentError{errors.New("recreated")}, false},
	} {
		if got := retriable(c.err); got != c.want {
			t.Errorf("retriable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
