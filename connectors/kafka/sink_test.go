package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func newTestSink(t *testing.T, name string, opts map[string]string) connectors.Sink {
	t.Helper()
	opts["connector"] = "kafka"
	s, err := SinkFactory().New(connectors.SinkSpec{Name: name, Schema: testSchema, Key: []int{0}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func upsert(id int64, name string) connectors.Change {
	return connectors.Change{Op: connectors.Upsert, Row: types.Row{types.IntValue(id), types.StringValue(name), types.FloatValue(float64(id) / 2)}}
}

func deleteKey(id int64) connectors.Change {
	return connectors.Change{Op: connectors.Delete, Row: types.Row{types.IntValue(id), types.NullValue, types.NullValue}}
}

// log renders the committed records of topic as "key=value" lines in
// offset order per partition ("key=<nil>" for a tombstone).
func log(t *testing.T, brokers, topic string) string {
	t.Helper()
	var lines []string
	for _, r := range committed(t, brokers, topic) {
		v := "<nil>"
		if r.Value != nil {
			v = string(r.Value)
		}
		lines = append(lines, fmt.Sprintf("%d/%03d %s=%s", r.Partition, r.Offset, r.Key, v))
	}
	sort.Strings(lines)
	for i, l := range lines {
		lines[i] = l[strings.IndexByte(l, ' ')+1:]
	}
	return strings.Join(lines, "\n")
}

func mustWrite(t *testing.T, s connectors.Sink, cs ...connectors.Change) {
	t.Helper()
	if err := s.Write(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
}

func mustCheckpoint(t *testing.T, s connectors.Sink, id uint64) []byte {
	t.Helper()
	staged, err := s.PreCommit(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	return staged
}

// TestSinkAtLeastOnce writes every change in order, keyed by the view key,
// deletes as tombstones, all visible after PreCommit's flush.
func TestSinkAtLeastOnce(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 1)
	s := newTestSink(t, "alo", map[string]string{"brokers": brokers, "topic": topic})
	if d := s.(connectors.Delivery).Delivery(); !strings.HasPrefix(d, "at-least-once") {
		t.Fatalf("Delivery() = %q", d)
	}
	mustWrite(t, s, upsert(1, "a"), upsert(2, `b"q`), upsert(1, "a2"))
	mustWrite(t, s, deleteKey(2))
	staged, err := s.PreCommit(context.Background(), 1)
	if err != nil || staged != nil {
		t.Fatalf("PreCommit = %v, %v; want nil, nil", staged, err)
	}
	want := `{"id":1}={"id":1,"name":"a","price":0.5}
{"id":2}={"id":2,"name":"b\"q","price":1}
{"id":1}={"id":1,"name":"a2","price":0.5}
{"id":2}=<nil>`
	if got := log(t, brokers, topic); got != want {
		t.Fatalf("topic:\n%s\nwant\n%s", got, want)
	}
	if err := s.Commit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
}

// TestSinkKeyOption overrides the record key columns; a topic that does
// not exist yet is created.
func TestSinkKeyOption(t *testing.T) {
	brokers := cluster(t)
	s := newTestSink(t, "k", map[string]string{"brokers": brokers, "topic": "fresh", "key": "name, id"})
	mustWrite(t, s, upsert(1, "a"))
	mustCheckpoint(t, s, 1)
	if got, want := log(t, brokers, "fresh"), `{"name":"a","id":1}={"id":1,"name":"a","price":0.5}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestSinkExactlyOnce: nothing is visible before Commit; Commit makes a
// checkpoint's changes, collapsed per key, visible atomically.
func TestSinkExactlyOnce(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 2)
	opts := map[string]string{"brokers": brokers, "topic": topic, "delivery": "exactly_once"}
	s := newTestSink(t, "eo", opts)
	if d := s.(connectors.Delivery).Delivery(); !strings.HasPrefix(d, "exactly-once") {
		t.Fatalf("Delivery() = %q", d)
	}
	mustWrite(t, s, upsert(1, "a"), upsert(2, "b"), upsert(1, "a2"), upsert(3, "c"), deleteKey(3))
	staged, err := s.PreCommit(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := log(t, brokers, topic); got != "" {
		t.Fatalf("visible before Commit:\n%s", got)
	}
	cs, err := connectors.DecodeChanges(staged)
	if err != nil || len(cs) != 3 {
		t.Fatalf("staged %v, %v; want 3 collapsed changes", cs, err)
	}
	if err := s.Commit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"id":1}={"id":1,"name":"a2","price":0.5}`, `{"id":2}={"id":2,"name":"b","price":1}`, `{"id":3}=<nil>`}
	got := strings.Split(log(t, brokers, topic), "\n")
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after Commit:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := log(t, brokers, DefaultProgressTopic); got != "eo=1" {
		t.Fatalf("progress topic: %q, want eo=1", got)
	}
}

// TestSinkCrashBetweenPreCommitAndCommit: the sink closes without Commit;
// a read_committed consumer sees nothing; a new sink's Recover commits
// the staged changes once; recovering again adds nothing.
func TestSinkCrashBetweenPreCommitAndCommit(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 1)
	opts := map[string]string{"brokers": brokers, "topic": topic, "delivery": "exactly_once"}
	s := newTestSink(t, "crash", opts)
	mustWrite(t, s, upsert(1, "a"))
	mustCheckpoint(t, s, 1)
	mustWrite(t, s, upsert(2, "b"), deleteKey(1))
	staged, err := s.PreCommit(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close() // the process dies before Commit(2)
	before := `{"id":1}={"id":1,"name":"a","price":0.5}`
	if got := log(t, brokers, topic); got != before {
		t.Fatalf("after the crash:\n%s\nwant\n%s", got, before)
	}
	after := before + "\n" + `{"id":2}={"id":2,"name":"b","price":1}` + "\n" + `{"id":1}=<nil>`
	for i := 0; i < 2; i++ {
		s = newTestSink(t, "crash", opts)
		if err := s.(connectors.Recoverer).Recover(context.Background(), 2, staged); err != nil {
			t.Fatal(err)
		}
		if got := log(t, brokers, topic); got != after {
			t.Fatalf("after recovery %d:\n%s\nwant\n%s", i+1, got, after)
		}
		_ = s.Close()
	}
	if got := log(t, brokers, DefaultProgressTopic); got != "crash=1\ncrash=2" {
		t.Fatalf("progress records:\n%s", got)
	}
}

// TestSinkCrashInsideTransaction: a process that dies after producing
// into its transaction but before ending it leaves nothing visible; the
// next instance fences it (aborting the transaction) and recovers.
func TestSinkCrashInsideTransaction(t *testing.T) {
	brokers := cluster(t)
	topic := newTopic(t, brokers, 1)
	opts := map[string]string{"brokers": brokers, "topic": topic, "delivery": "exactly_once"}
	old := newTestSink(t, "half", opts).(*sink)
	mustWrite(t, old, upsert(1, "a"))
	staged, err := old.PreCommit(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	// Commit's first half by hand: the records are in the log, uncommitted.
	if err := old.cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	changes, _ := old.staged.UpTo(1, old.key)
	if err := old.cl.ProduceSync(context.Background(), old.records(changes)...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	s := newTestSink(t, "half", opts) // fences old, aborting its transaction
	if got := log(t, brokers, topic); got != "" {
		t.Fatalf("an unfinished transaction is visible:\n%s", got)
	}
	if err := s.(connectors.Recoverer).Recover(context.Background(), 1, staged); err != nil {
		t.Fatal(err)
	}
	if got, want := log(t, brokers, topic), `{"id":1}={"id":1,"name":"a","price":0.5}`; got != want {
		t.Fatalf("after recovery:\n%s\nwant %s", got, want)
	}
	// The fenced instance cannot commit any more: its producer epoch is
	// stale, which no retry fixes.
	_ = old.cl.EndTransaction(context.Background(), kgo.TryAbort) // PRODUCER_FENCED
	mustWrite(t, old, upsert(5, "zombie"))
	if _, err := old.PreCommit(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := old.Commit(ctx, 2); err == nil || ctx.Err() != nil {
		t.Fatalf("a fenced sink's commit: err = %v (ctx %v), want a fencing error at once", err, ctx.Err())
	}
	if got, want := log(t, brokers, topic), `{"id":1}={"id":1,"name":"a","price":0.5}`; got != want {
		t.Fatalf("the fenced sink wrote:\n%s", got)
	}
}

// TestSinkOptions checks option validation.
func TestSinkOptions(t *testing.T) {
	brokers := cluster(t)
	tests := []struct {
		opts map[string]string
		err  string
	}{
		{map[string]string{"brokers": brokers, "topic": "x", "delivery": "twice"}, "option 'delivery' must be one of at_least_once, exactly_once"},
		{map[string]string{"topic": "x"}, "needs option 'brokers'"},
		{map[string]string{"brokers": brokers, "topic": "x", "key": "zz"}, `option 'key': no column "zz"`},
		{map[string]string{"brokers": brokers, "topic": "x", "transactionalid": "a"}, "did you mean 'transactional_id'?"},
	}
	for _, tc := range tests {
		tc.opts["connector"] = "kafka"
		_, err := SinkFactory().New(connectors.SinkSpec{Name: "s", Schema: testSchema, Key: []int{0}, Options: tc.opts})
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: err = %v, want %q", tc.opts, err, tc.err)
		}
	}
}

// TestSinkCommitWaitsForCluster: with the cluster gone, Commit keeps
// retrying (the pipeline's backpressure) until its context ends, and
// reports the context's error.
func TestSinkCommitWaitsForCluster(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	brokers := strings.Join(c.ListenAddrs(), ",")
	s := newTestSink(t, "down", map[string]string{"brokers": brokers, "topic": "out", "delivery": "exactly_once"})
	mustWrite(t, s, upsert(1, "a"))
	if _, err := s.PreCommit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Commit(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Commit with the cluster down: %v, want the context's deadline", err)
	}
}
