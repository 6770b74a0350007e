package kafka

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// SinkFactory returns the kafka sink factory.
func SinkFactory(opts ...Option) connectors.SinkFactory {
	cfg := newFactoryConfig(opts)
	return connectors.SinkFactory{
		Name:    "kafka",
		Doc:     "Writes a view's changelog to a Kafka topic: key = the view key as JSON, value = the row as JSON, deletes as tombstones. At-least-once (idempotent producer) or exactly-once (one transaction per checkpoint).",
		Options: sinkOptions,
		New:     func(spec connectors.SinkSpec) (connectors.Sink, error) { return newSink(spec, cfg) },
	}
}

// sink writes changes as keyed records. At-least-once it produces as
// changes arrive and flushes in PreCommit; exactly-once it buffers until
// PreCommit and writes each checkpoint in one transaction (see doc.go).
type sink struct {
	name    string
	topic   string
	schema  types.Schema
	key     []int // record key columns (all columns when the view has no key)
	exactly bool
	brokers []string
	cl      *kgo.Client
	log     *slog.Logger
	// ready says the topics exist and (exactly-once) the transactional
	// producer is initialised; set up at creation, or on first use when
	// the cluster was unreachable then.
	ready bool

	progressTopic string
	progressPart  int32

	// exactly-once state
	pending []connectors.Change // written since the last PreCommit
	staged  connectors.Staged   // pre-committed, not yet committed

	// at-least-once: the first asynchronous produce error
	mu      sync.Mutex
	prodErr error
	promise func(*kgo.Record, error)

	// retries counts commit attempts that failed and were retried.
	retries atomic.Int64
}

// newSink builds the sink and tries once to set it up (see setup); when
// the cluster is unreachable it sets up on first use instead, as the
// postgres sink checks its table.
func newSink(spec connectors.SinkSpec, cfg factoryConfig) (connectors.Sink, error) {
	if err := connectors.ValidateOptions("kafka", sinkOptions, connectors.CommonSinkOptions, spec.Options); err != nil {
		return nil, err
	}
	o := connectors.Opts{Values: spec.Options, Specs: sinkOptions}
	brokers, err := brokerList(o.String("brokers"))
	if err != nil {
		return nil, err
	}
	s := &sink{
		name: spec.Name, topic: o.String("topic"), schema: spec.Schema, key: spec.Key, brokers: brokers,
		exactly:       strings.EqualFold(o.String("delivery"), exactlyOnce),
		progressTopic: o.String("progress_topic"), log: cfg.log,
	}
	s.promise = s.recordDone
	if k := o.String("key"); k != "" {
		if s.key, err = columnList("key", k, spec.Schema.Names()); err != nil {
			return nil, err
		}
	}
	if len(s.key) == 0 {
		s.key = make([]int, len(spec.Schema))
		for i := range s.key {
			s.key[i] = i
		}
	}
	maxBuf := o.Int("max_buffered_records")
	if maxBuf <= 0 {
		return nil, fmt.Errorf("option 'max_buffered_records' must be positive")
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.ClientID("streamsql"),
		kgo.MaxBufferedRecords(int(maxBuf)),
		kgo.RecordPartitioner(partitioner{progress: s.progressTopic}),
		kgo.ProducerLinger(5 * time.Millisecond),
		kgo.WithHooks(newBrokerWatch(cfg.log, "sink", spec.Name)),
	}
	if s.exactly {
		txnID := o.String("transactional_id")
		if txnID == "" {
			txnID = "streamsql-" + spec.Name
		}
		opts = append(opts, kgo.TransactionalID(txnID), kgo.TransactionTimeout(time.Minute))
	}
	if s.cl, err = kgo.NewClient(opts...); err != nil {
		return nil, fmt.Errorf("kafka sink %s: %w", spec.Name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	switch err := s.setup(ctx); {
	case err == nil:
	case retriable(err):
		s.log.Warn("kafka sink: cluster unreachable at creation; setting up on first use", "sink", s.name, "topic", s.topic, "error", err.Error())
	default:
		s.cl.Close()
		return nil, fmt.Errorf("kafka sink %s: %w", spec.Name, err)
	}
	return s, nil
}

// ensureReady sets the sink up if creation could not, waiting while the
// cluster is unreachable (backpressure: nothing is read meanwhile).
func (s *sink) ensureReady(ctx context.Context) error {
	if s.ready {
		return nil
	}
	err := waitForCluster(ctx, s.log, "set up", []any{"sink", s.name, "topic", s.topic}, s.setup)
	if err != nil {
		return fmt.Errorf("kafka sink %s: %w", s.name, err)
	}
	return nil
}

// setup creates missing topics and, exactly-once, initialises the
// transactional producer, which fences any older producer with the same
// transactional id and aborts its open transaction.
func (s *sink) setup(ctx context.Context) error {
	adm := kadm.NewClient(s.cl)
	if _, err := ensureTopic(ctx, adm, s.topic, -1, nil); err != nil {
		return err
	}
	if !s.exactly {
		s.ready = true
		return nil
	}
	compact := "compact"
	n, err := ensureTopic(ctx, adm, s.progressTopic, 1, map[string]*string{"cleanup.policy": &compact})
	if err != nil {
		return err
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(s.name))
	s.progressPart = int32(h.Sum32() % uint32(n))
	if _, _, err := s.cl.ProducerID(ctx); err != nil {
		return fmt.Errorf("init transactional producer: %w", err)
	}
	s.ready = true
	return nil
}

// ensureTopic creates topic unless it exists and returns its partition
// count. (The count comes from the create response: metadata read just
// before may still be cached as "unknown topic".)
func ensureTopic(ctx context.Context, adm *kadm.Client, topic string, parts int32, configs map[string]*string) (int, error) {
	if n, err := partitionCount(ctx, adm, topic); err == nil {
		return n, nil
	}
	resp, err := adm.CreateTopic(ctx, parts, -1, configs, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		if errors.Is(err, kerr.TopicAlreadyExists) {
			return partitionCount(ctx, adm, topic)
		}
		return 0, fmt.Errorf("create topic %s: %w", topic, err)
	}
	return int(resp.NumPartitions), nil
}

// partitioner hashes record keys like Kafka's default partitioner (so a
// key's changes stay ordered in one partition) and places progress
// records on the partition the sink chose for them.
type partitioner struct{ progress string }

func (p partitioner) ForTopic(topic string) kgo.TopicPartitioner {
	if topic == p.progress {
		return kgo.ManualPartitioner().ForTopic(topic)
	}
	return kgo.StickyKeyPartitioner(nil).ForTopic(topic)
}

// Delivery names the sink's guarantee for EXPLAIN.
func (s *sink) Delivery() string {
	if s.exactly {
		return "exactly-once (one Kafka transaction per checkpoint; read_committed consumers)"
	}
	return "at-least-once (idempotent producer flushed per checkpoint; converges by key)"
}

// Write produces changes (at-least-once) or buffers them (exactly-once).
func (s *sink) Write(ctx context.Context, changes []connectors.Change) error {
	if s.exactly {
		s.pending = append(s.pending, changes...)
		return nil
	}
	if err := s.err(); err != nil {
		return err
	}
	if err := s.ensureReady(ctx); err != nil {
		return err
	}
	for _, r := range s.records(changes) {
		s.cl.Produce(ctx, r, s.promise)
	}
	return ctx.Err()
}

// records encodes changes; keys and values share one buffer per call.
func (s *sink) records(changes []connectors.Change) []*kgo.Record {
	recs := make([]kgo.Record, len(changes))
	out := make([]*kgo.Record, len(changes))
	buf := make([]byte, 0, 128*len(changes))
	for i, c := range changes {
		start := len(buf)
		buf = format.AppendJSONCols(buf, s.schema, c.Row, s.key)
		recs[i].Key = buf[start:len(buf):len(buf)]
		if c.Op != connectors.Delete {
			start = len(buf)
			buf = format.AppendJSON(buf, s.schema, c.Row)
			recs[i].Value = buf[start:len(buf):len(buf)]
		}
		recs[i].Topic = s.topic
		out[i] = &recs[i]
	}
	return out
}

func (s *sink) recordDone(_ *kgo.Record, err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	if s.prodErr == nil {
		s.prodErr = err
	}
	s.mu.Unlock()
}

func (s *sink) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prodErr != nil {
		return fmt.Errorf("kafka sink %s: produce to %s: %w", s.name, s.topic, s.prodErr)
	}
	return nil
}

// PreCommit flushes (at-least-once) or stages the changes since the last
// checkpoint, collapsed per key, and returns them for the engine to keep
// with checkpoint id (exactly-once).
func (s *sink) PreCommit(ctx context.Context, id uint64) ([]byte, error) {
	if !s.exactly {
		if err := s.cl.Flush(ctx); err != nil {
			return nil, fmt.Errorf("kafka sink %s: flush for checkpoint %d: %w", s.name, id, err)
		}
		return nil, s.err()
	}
	changes := connectors.Collapse(s.pending, s.key)
	s.pending = nil
	return s.staged.Stage(id, changes), nil
}

// Commit writes the staged checkpoints up to id in one transaction with
// the progress record id (exactly-once; a no-op at-least-once).
func (s *sink) Commit(ctx context.Context, id uint64) error {
	if !s.exactly {
		return nil
	}
	changes, n := s.staged.UpTo(id, s.key)
	if n == 0 {
		return nil
	}
	if err := s.commitWithRetry(ctx, id, changes, false); err != nil {
		return err
	}
	s.staged.Drop(n)
	return nil
}

// Recover commits checkpoint id's staged changes unless the progress
// topic already shows id (or a later checkpoint) committed for this sink.
func (s *sink) Recover(ctx context.Context, id uint64, staged []byte) error {
	if !s.exactly {
		return nil
	}
	changes, err := connectors.DecodeChanges(staged)
	if err != nil {
		return fmt.Errorf("kafka sink %s: recover checkpoint %d: %w", s.name, id, err)
	}
	return s.commitWithRetry(ctx, id, changes, true)
}

// commitWithRetry runs the transaction until it commits, backing off
// while the cluster is unreachable. When check is set, and on every
// retry (a failed attempt may have committed after all), the progress
// topic is read first and a checkpoint already there is not written again.
func (s *sink) commitWithRetry(ctx context.Context, id uint64, changes []connectors.Change, check bool) error {
	if err := s.ensureReady(ctx); err != nil {
		return err
	}
	var backoff connectors.Backoff
	for {
		err := s.commitOnce(ctx, id, changes, check)
		if err == nil {
			return nil
		}
		if fatal(err) || ctx.Err() != nil {
			return fmt.Errorf("kafka sink %s: commit checkpoint %d: %w", s.name, id, err)
		}
		s.retries.Add(1)
		wait := backoff.Next()
		s.log.Debug("kafka sink: commit failed, retrying", "sink", s.name, "checkpoint", id, "retry_in", wait.String(), "error", err.Error())
		if werr := connectors.Wait(ctx, wait); werr != nil {
			return fmt.Errorf("kafka sink %s: commit checkpoint %d: %w (last error: %w)", s.name, id, werr, err)
		}
		check = true
	}
}

// Retries implements connectors.Retrier: the commits retried.
func (s *sink) Retries() int64 { return s.retries.Load() }

// fatal reports errors that no retry can fix: another producer took the
// transactional id over, or the client may not use it.
func fatal(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.TransactionalIDAuthorizationFailed) ||
		errors.Is(err, kerr.InvalidProducerEpoch) || errors.Is(err, kerr.TopicAuthorizationFailed)
}

func (s *sink) commitOnce(ctx context.Context, id uint64, changes []connectors.Change, check bool) error {
	if check {
		last, err := s.lastCommitted(ctx)
		if err != nil {
			return err
		}
		if last >= id {
			return nil
		}
	}
	if len(changes) == 0 && !check {
		return nil // nothing to make visible; Recover of this id is a no-op too
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	var (
		mu   sync.Mutex
		perr error
	)
	done := func(_ *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			if perr == nil {
				perr = err
			}
			mu.Unlock()
		}
	}
	recs := s.records(changes)
	recs = append(recs, &kgo.Record{Topic: s.progressTopic, Partition: s.progressPart, Key: []byte(s.name), Value: fmt.Appendf(nil, "%d", id)})
	for _, r := range recs {
		s.cl.Produce(ctx, r, done)
	}
	err := s.cl.Flush(ctx)
	mu.Lock()
	if err == nil {
		err = perr
	}
	mu.Unlock()
	if err == nil {
		if err = s.cl.EndTransaction(ctx, kgo.TryCommit); err == nil {
			return nil
		}
	}
	return errors.Join(fmt.Errorf("transaction: %w", err), s.abort(ctx))
}

// begin starts a transaction. A failed abort can leave the client inside
// the old one: it is aborted again first (a fenced producer fails here
// with ProducerFenced, which fatal recognises).
func (s *sink) begin(ctx context.Context) error {
	err := s.cl.BeginTransaction()
	if err == nil {
		return nil
	}
	if aerr := s.cl.EndTransaction(ctx, kgo.TryAbort); aerr != nil {
		return fmt.Errorf("begin transaction: %w", errors.Join(err, aerr))
	}
	if err := s.cl.BeginTransaction(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	return nil
}

// abort drops what a failed transaction buffered and aborts it.
func (s *sink) abort(ctx context.Context) error {
	if err := s.cl.AbortBufferedRecords(ctx); err != nil {
		return fmt.Errorf("abort buffered records: %w", err)
	}
	if err := s.cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
		return fmt.Errorf("abort transaction: %w", err)
	}
	return nil
}

// Close flushes an at-least-once producer briefly and stops the client;
// an exactly-once sink drops its uncommitted changes (the engine replays
// or recovers them).
func (s *sink) Close() error {
	if !s.exactly {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = s.cl.Flush(ctx)
		cancel()
	}
	s.cl.Close()
	return nil
}
