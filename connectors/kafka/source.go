package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// pollWait is how long Read waits for records before it returns an empty
// batch (the contract allows about 100 ms).
const pollWait = 50 * time.Millisecond

// SourceFactory returns the kafka source factory.
func SourceFactory(opts ...Option) connectors.SourceFactory {
	cfg := newFactoryConfig(opts)
	return connectors.SourceFactory{
		Name:    "kafka",
		Doc:     "Reads a Kafka topic: one source partition per Kafka partition, offsets kept in the engine's checkpoints, the record timestamp as ingestion time. JSON or CSV rows, or upsert/Debezium changelogs for a TABLE.",
		Options: sourceOptions,
		New: func(ctx context.Context, spec connectors.SourceSpec) (connectors.Source, error) {
			return newSource(ctx, spec, cfg)
		},
	}
}

// source reads one topic. Records come from the client in polls of up to
// pollMax; they are buffered per partition and handed out one partition
// per Read, and the next poll happens only once all are handed out, so the
// buffer never exceeds pollMax records plus one fetch per broker inside
// the client (fetch.max_bytes).
type source struct {
	name   string
	topic  string
	isoOpt string
	mode   string
	start  string // scan.startup.timestamp
	group  string
	dec    recordDecoder
	log    *slog.Logger

	cl      *kgo.Client
	parts   int
	pollMax int

	discoverEvery time.Duration // scan.topic-partition-discovery.interval; 0: never
	discovered    time.Time     // when the partition count was last read

	next     []int64         // per partition: offset after the last handed-out record
	pending  [][]*kgo.Record // per partition: polled, not yet handed out
	ends     []int64         // per partition: the end offset last seen (-1: not yet)
	announce []int           // partitions whose resolved start offset Read must report
	rr       int             // partition to serve next (round robin)
	opened   bool
}

// newSource builds the source and reads the topic's partition count,
// waiting while the cluster is unreachable (see waitForCluster).
func newSource(ctx context.Context, spec connectors.SourceSpec, cfg factoryConfig) (connectors.Source, error) {
	if err := connectors.ValidateOptions("kafka", sourceOptions, connectors.CommonSourceOptions, spec.Options); err != nil {
		return nil, err
	}
	o := connectors.Opts{Values: spec.Options, Specs: sourceOptions}
	brokers, err := brokerList(o.String("brokers"))
	if err != nil {
		return nil, err
	}
	s := &source{
		name: spec.Name, topic: o.String("topic"), isoOpt: strings.ToLower(o.String("isolation")),
		mode: strings.ToLower(o.String("scan.startup.mode")), start: o.String("scan.startup.timestamp"),
		group: o.String("group"), pollMax: int(o.Int("poll.max_records")),
		discoverEvery: o.Duration("scan.topic-partition-discovery.interval"), log: cfg.log,
	}
	if s.discoverEvery < 0 {
		return nil, fmt.Errorf("option 'scan.topic-partition-discovery.interval' must not be negative")
	}
	if s.pollMax <= 0 {
		return nil, fmt.Errorf("option 'poll.max_records' must be positive")
	}
	if s.mode == startTime {
		if _, err := startupMillis(s.start); err != nil {
			return nil, err
		}
	}
	if s.mode == startGroup && s.group == "" {
		return nil, fmt.Errorf("scan.startup.mode = 'group-offsets' needs option 'group'")
	}
	switch f := strings.ToLower(o.String("format")); {
	case (f == formatUpsert || f == formatDebezium) && !spec.Table:
		return nil, fmt.Errorf("format '%s' carries updates and deletes: use it in CREATE TABLE, not CREATE SOURCE", f)
	case (f == formatJSON || f == formatCSV) && spec.Table:
		return nil, fmt.Errorf("a TABLE reads a changelog: use format 'upsert-json' or 'debezium-json', not '%s'", f)
	}
	if s.dec, err = newRecordDecoder(strings.ToLower(o.String("format")), spec.Schema, spec.Key, spec.Required, o); err != nil {
		return nil, err
	}
	iso := kgo.ReadUncommitted()
	if s.isoOpt == "read_committed" {
		iso = kgo.ReadCommitted()
	}
	maxBytes := o.Int("fetch.max_bytes")
	if maxBytes <= 0 || maxBytes > 1<<30 {
		return nil, fmt.Errorf("option 'fetch.max_bytes' must be in (0, 1 GiB], got %d", maxBytes)
	}
	s.cl, err = kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ClientID("streamsql"),
		kgo.FetchIsolationLevel(iso),
		kgo.FetchMaxBytes(int32(maxBytes)),
		kgo.FetchMaxPartitionBytes(int32(min(maxBytes, 1<<20))),
		kgo.FetchMaxWait(time.Second),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		// A partition found by discovery is consumed once the client's
		// metadata has it; the default minimum age (5 s) would add that
		// much to the discovery interval.
		kgo.MetadataMinAge(500*time.Millisecond),
		kgo.WithHooks(newBrokerWatch(cfg.log, "source", spec.Name)),
	)
	if err != nil {
		return nil, fmt.Errorf("kafka source %s: %w", spec.Name, err)
	}
	err = s.retry(ctx, "partition count", func(ctx context.Context) (err error) {
		s.parts, err = partitionCount(ctx, kadm.NewClient(s.cl), s.topic)
		return err
	})
	if err != nil {
		s.cl.Close()
		return nil, fmt.Errorf("kafka source %s: %w", spec.Name, err)
	}
	s.discovered = time.Now()
	s.next = make([]int64, s.parts)
	s.pending = make([][]*kgo.Record, s.parts)
	s.ends = unknownEnds(s.parts)
	return s, nil
}

// partitionCount reads the topic's partition count from the cluster.
func partitionCount(ctx context.Context, adm *kadm.Client, topic string) (int, error) {
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("metadata of topic %s: %w", topic, err)
	}
	td, ok := tds[topic]
	if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
		return 0, fmt.Errorf("topic %s %w", topic, errNoTopic)
	}
	if td.Err != nil {
		return 0, fmt.Errorf("topic %s: %w", topic, td.Err)
	}
	if len(td.Partitions) == 0 {
		return 0, fmt.Errorf("topic %s has no partitions", topic)
	}
	return len(td.Partitions), nil
}

// startupMillis parses scan.startup.timestamp: epoch ms or a timestamp.
func startupMillis(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("scan.startup.mode = 'timestamp' needs option 'scan.startup.timestamp'")
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	us, err := types.ParseTimestamp(s)
	if err != nil {
		return 0, fmt.Errorf("option 'scan.startup.timestamp': %w", err)
	}
	return us / 1000, nil
}

// retry runs fn as waitForCluster does, logging as this source.
func (s *source) retry(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	return waitForCluster(ctx, s.log, what, []any{"source", s.name, "topic", s.topic}, fn)
}

func (s *source) Partitions() int { return s.parts }

// Open starts consuming every partition at offsets[p], or, with nil
// offsets, at the start the startup mode resolves to (the resolved offsets
// are reported by the first Reads as empty batches, so the engine's next
// checkpoint holds them).
func (s *source) Open(ctx context.Context, offsets []int64) error {
	if s.opened {
		return fmt.Errorf("kafka source %s: opened twice", s.name)
	}
	if offsets != nil && len(offsets) > s.parts {
		return fmt.Errorf("kafka source %s: %d checkpointed offsets for %d partitions (was the topic recreated?)", s.name, len(offsets), s.parts)
	}
	if offsets != nil && len(offsets) < s.parts { // partitions added since: from their start
		offsets = append(slices.Clip(offsets), make([]int64, s.parts-len(offsets))...)
	}
	if offsets == nil {
		var start []int64
		err := s.retry(ctx, "start offsets", func(ctx context.Context) (err error) {
			start, err = s.resolveStart(ctx)
			return err
		})
		if err != nil {
			return fmt.Errorf("kafka source %s: %w", s.name, err)
		}
		for p, o := range start {
			if o != 0 {
				s.announce = append(s.announce, p)
			}
		}
		offsets = start
	} else if err := s.retry(ctx, "end offsets", func(ctx context.Context) error { return s.checkOffsets(ctx, offsets) }); err != nil {
		return err
	}
	copy(s.next, offsets)
	s.seedEnds(ctx)
	at := make(map[int32]kgo.Offset, s.parts)
	for p, o := range offsets {
		at[int32(p)] = kgo.NewOffset().At(o)
	}
	s.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{s.topic: at})
	s.opened = true
	return nil
}

// seedEnds reads the partitions' end offsets once at the start, so the
// backlog is known before the first fetch (a partition with nothing new
// gets none). A failure leaves them unknown until records arrive.
func (s *source) seedEnds(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, pollWait*20)
	defer cancel()
	ends, err := kadm.NewClient(s.cl).ListEndOffsets(ctx, s.topic)
	if err != nil {
		return
	}
	for p := range s.ends {
		if o, ok := ends.Lookup(s.topic, int32(p)); ok && o.Err == nil {
			s.ends[p] = o.Offset
		}
	}
}

// Backlog implements connectors.Backlogger: per partition, the end offset
// last seen (the high watermark, or the last stable offset under
// read_committed) minus the position after the last record handed out.
// Under read_committed a transaction's commit marker takes an offset
// past its last record, so it counts until the next record passes it.
func (s *source) Backlog() []int64 {
	out := make([]int64, s.parts)
	for p := range out {
		out[p] = -1
		if p < len(s.ends) && s.ends[p] >= 0 {
			out[p] = max(s.ends[p]-s.next[p], 0)
		}
	}
	return out
}

// checkOffsets refuses checkpointed offsets past a partition's end: the
// topic was deleted and recreated (or truncated), and resuming there
// would silently skip or misplace its records.
func (s *source) checkOffsets(ctx context.Context, offsets []int64) error {
	ends, err := kadm.NewClient(s.cl).ListEndOffsets(ctx, s.topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("kafka source %s: end offsets of %s: %w", s.name, s.topic, err)
	}
	for p, o := range offsets {
		if end, ok := ends.Lookup(s.topic, int32(p)); ok && o > end.Offset {
			return &permanentError{fmt.Errorf("kafka source %s: the checkpoint resumes partition %d of %s at offset %d, but the partition ends at %d (was the topic recreated?); drop and recreate the source to read it from its startup mode", s.name, p, s.topic, o, end.Offset)}
		}
	}
	return nil
}

// resolveStart turns the startup mode into one offset per partition.
func (s *source) resolveStart(ctx context.Context) ([]int64, error) {
	adm := kadm.NewClient(s.cl)
	starts, err := adm.ListStartOffsets(ctx, s.topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("start offsets of %s: %w", s.topic, err)
	}
	out := make([]int64, s.parts)
	for p := range out {
		o, _ := starts.Lookup(s.topic, int32(p))
		out[p] = max(o.Offset, 0)
	}
	var listed kadm.ListedOffsets
	switch s.mode {
	case startLatest:
		listed, err = adm.ListEndOffsets(ctx, s.topic)
	case startTime:
		ms, _ := startupMillis(s.start)
		listed, err = adm.ListOffsetsAfterMilli(ctx, ms, s.topic)
	case startGroup:
		return s.groupStart(ctx, adm, out)
	default:
		return out, nil
	}
	if err == nil {
		err = listed.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("%s offsets of %s: %w", s.mode, s.topic, err)
	}
	ends, err := adm.ListEndOffsets(ctx, s.topic)
	if err != nil {
		return nil, fmt.Errorf("end offsets of %s: %w", s.topic, err)
	}
	for p := range out {
		o, ok := listed.Lookup(s.topic, int32(p))
		if !ok || o.Offset < 0 { // no record after the time: the end
			o, _ = ends.Lookup(s.topic, int32(p))
		}
		out[p] = max(o.Offset, out[p])
	}
	return out, nil
}

// groupStart uses the group's committed offsets; partitions without one
// keep their log start.
func (s *source) groupStart(ctx context.Context, adm *kadm.Client, out []int64) ([]int64, error) {
	committed, err := adm.FetchOffsets(ctx, s.group)
	if err == nil {
		err = committed.Error()
	}
	if errors.Is(err, kerr.GroupIDNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("offsets of group %s: %w", s.group, err)
	}
	for p := range out {
		if o, ok := committed.Lookup(s.topic, int32(p)); ok && o.Err == nil && o.At >= 0 {
			out[p] = max(o.At, out[p])
		}
	}
	return out, nil
}

// Read returns up to max records of one partition: rows, poison records
// and, for TABLE formats, ops. It waits at most pollWait for records.
func (s *source) Read(ctx context.Context, max int) (connectors.Batch, error) {
	if !s.opened {
		return connectors.Batch{}, fmt.Errorf("kafka source %s: read before open", s.name)
	}
	s.discover(ctx)
	if len(s.announce) > 0 {
		p := s.announce[0]
		s.announce = s.announce[1:]
		return connectors.Batch{Partition: p, Next: s.next[p]}, nil
	}
	if max <= 0 {
		max = 1
	}
	p := s.pick()
	if p < 0 {
		if err := s.poll(ctx); err != nil {
			return connectors.Batch{}, err
		}
		if p = s.pick(); p < 0 {
			return connectors.Batch{Partition: 0, Next: s.next[0]}, nil
		}
	}
	return s.batch(p, max), nil
}

// discover reads the topic's partition count once discoverEvery has
// passed and starts consuming partitions added since, at their start
// (every record in them was written after the source started). A failed
// lookup is tried again at the next interval: the partitions already
// known keep flowing meanwhile.
func (s *source) discover(ctx context.Context) {
	if s.discoverEvery <= 0 || time.Since(s.discovered) < s.discoverEvery {
		return
	}
	s.discovered = time.Now()
	ctx, cancel := context.WithTimeout(ctx, pollWait*20)
	defer cancel()
	n, err := partitionCount(ctx, kadm.NewClient(s.cl), s.topic)
	if err != nil || n <= s.parts {
		return
	}
	at := make(map[int32]kgo.Offset, n-s.parts)
	for p := s.parts; p < n; p++ {
		at[int32(p)] = kgo.NewOffset().AtStart()
	}
	s.next = append(s.next, make([]int64, n-s.parts)...)
	s.pending = append(s.pending, make([][]*kgo.Record, n-s.parts)...)
	s.ends = append(s.ends, unknownEnds(n-s.parts)...)
	s.parts = n
	s.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{s.topic: at})
}

// pick returns the next partition with buffered records, or -1.
func (s *source) pick() int {
	for i := 0; i < s.parts; i++ {
		p := (s.rr + i) % s.parts
		if len(s.pending[p]) > 0 {
			s.rr = p
			return p
		}
	}
	return -1
}

// poll takes up to pollMax records from the client.
func (s *source) poll(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, pollWait)
	defer cancel()
	fs := s.cl.PollRecords(pctx, s.pollMax)
	if fs.IsClientClosed() {
		return fmt.Errorf("kafka source %s: client closed", s.name)
	}
	var ferr error
	fs.EachError(func(topic string, p int32, err error) {
		var loss *kgo.ErrDataLoss
		switch {
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), errors.As(err, &loss):
			// nothing arrived in time; or retention removed records the
			// client skipped (nothing to replay: they are gone)
		case ferr == nil:
			ferr = fmt.Errorf("kafka source %s: topic %s partition %d: %w", s.name, topic, p, err)
		}
	})
	if ferr != nil {
		return ferr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fs.EachPartition(func(ftp kgo.FetchTopicPartition) {
		if p := int(ftp.Partition); p >= 0 && p < s.parts && ftp.Topic == s.topic {
			s.pending[p] = append(s.pending[p], ftp.Records...)
			s.ends[p] = ftp.HighWatermark
			if s.isoOpt == "read_committed" {
				s.ends[p] = ftp.LastStableOffset
			}
		}
	})
	return nil
}

// batch decodes up to max buffered records of partition p.
func (s *source) batch(p, max int) connectors.Batch {
	recs := s.pending[p]
	n := min(max, len(recs))
	b := connectors.Batch{Partition: p, Rows: make([]types.Row, 0, n), Times: make([]int64, 0, n), Ingested: time.Now().UnixMicro()}
	table := s.dec.table()
	if table {
		b.Ops = make([]connectors.Op, 0, n)
	}
	for _, r := range recs[:n] {
		b.Bytes += int64(len(r.Key) + len(r.Value))
		row, op, skip, err := s.dec.decode(r.Key, r.Value)
		switch {
		case err != nil:
			b.Errors = append(b.Errors, connectors.DecodeError{Partition: p, Offset: r.Offset, Raw: r.Value, Err: fmt.Errorf("offset %d: %w", r.Offset, err)})
		case !skip:
			b.Rows = append(b.Rows, row)
			b.Times = append(b.Times, r.Timestamp.UnixMicro())
			if table {
				b.Ops = append(b.Ops, op)
			}
		}
		s.next[p] = r.Offset + 1
	}
	clear(recs[:n]) // let the records be collected
	if n == len(recs) {
		s.pending[p] = recs[:0]
		s.rr = (p + 1) % s.parts
	} else {
		s.pending[p] = recs[n:]
	}
	b.Next = s.next[p]
	return b
}

// unknownEnds returns n end offsets not known yet.
func unknownEnds(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = -1
	}
	return out
}

// Close stops the client.
func (s *source) Close() error {
	s.cl.Close()
	return nil
}
