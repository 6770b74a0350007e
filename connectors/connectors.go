// Package connectors is the small interface package every connector
// implements and the engine consumes. Concrete connectors live in
// subpackages (memory, datagen, stdout, ...) and import only this package
// and the leaves; cmd/streamsql wires them into a Registry.
//
// Source lifecycle: the engine calls Open with the offsets stored in the
// last checkpoint (nil offsets: from the start), then Read repeatedly, and
// Close when the pipeline stops. Offsets are per partition; a checkpoint
// stores the offset *after* the last row the engine consumed, so a restart
// replays exactly the rows that the checkpoint did not cover.
//
// Sink lifecycle: Write any number of change batches, then PreCommit(id)
// when checkpoint id is being taken and Commit(id) once the engine has
// durably stored it. A sink that cannot be transactional treats PreCommit
// as a flush and Commit as a no-op (at-least-once; idempotent by key).
//
// Exactly-once sinks are two-phase: Write buffers, PreCommit(id) returns
// the checkpoint's changes as staged bytes (see EncodeChanges), which the
// engine stores atomically with checkpoint id; Commit(id) then writes them
// together with a progress marker (sink name → id) in one destination
// transaction. If the process dies between the two, the engine reopens the
// sink and calls Recover(id, staged): the sink commits the staged changes
// unless the destination's progress marker says id is already there.
// Commit and Recover retry while the destination is unreachable; blocking
// there is the pipeline's backpressure (nothing is read meanwhile).
package connectors

import (
	"context"
	"errors"

	"github.com/streamsql/streamsql/types"
)

// ErrEndOfInput is returned by Source.Read when a bounded source has no
// more rows, ever.
var ErrEndOfInput = errors.New("end of input")

// Batch is a run of rows read from one partition of a source.
type Batch struct {
	Partition int
	// Rows are in the source schema's column order. The engine may keep
	// them; a source must not reuse a returned Row's backing array.
	Rows []types.Row
	// Next is the partition offset after the last row (and after any
	// poison records) of this batch.
	Next int64
	// Errors are records that could not be decoded; they are not in Rows.
	Errors []DecodeError
	// Ingested is the ingestion time of the batch in microseconds (used for
	// INGESTION_TIME() columns when the source has no per-record time).
	Ingested int64
	// Times, when not nil, is a per-row ingestion time (the Kafka record
	// timestamp), parallel to Rows; it overrides Ingested.
	Times []int64
	// Bytes is the size of the records this batch consumed as the source
	// read them (keys and values, poison records included); 0 when the
	// source does not measure it.
	Bytes int64
	// Ops, when not nil, is parallel to Rows: Upsert or Delete. Only
	// sources feeding a TABLE (upsert topics, change events) set it; a
	// Delete row carries the key columns, the others may be NULL.
	Ops []Op
}

// DecodeError is a poison record: raw bytes that did not decode (bad
// syntax, a wrong type, a missing time column). The engine applies the
// source's on_error policy to it.
type DecodeError struct {
	Partition int
	Offset    int64
	Raw       []byte
	Err       error
}

// Source is an append-only input split into partitions.
type Source interface {
	// Partitions is the number of partitions. It may grow while the
	// source runs (a Kafka topic given more partitions), never shrink; a
	// source reports a new partition here before any batch from it. Open
	// receives an offset for every partition; one the last checkpoint did
	// not know gets 0, its start.
	Partitions() int
	// Open positions every partition at offsets[p] (nil: the start).
	Open(ctx context.Context, offsets []int64) error
	// Read returns up to max rows from one partition. It returns an empty
	// batch and nil when nothing is available now, and ErrEndOfInput when a
	// bounded source is exhausted.
	Read(ctx context.Context, max int) (Batch, error)
	// Close releases the source.
	Close() error
}

// Backlogger is implemented by sources that know how far each
// partition's end is ahead of what Read has returned: Kafka's consumer
// lag (end offset − position). The engine calls it after each Read, from
// the goroutine that reads.
type Backlogger interface {
	// Backlog returns, per partition, the records between the position
	// after the last record Read returned and the partition's end as last
	// seen; -1 where the end is not known yet.
	Backlog() []int64
}

// Progresser is implemented by bounded sources that know how much input
// they hold: `streamsql run`'s progress bar and ETA read it. The engine
// calls it after each Read, from the goroutine that reads.
type Progresser interface {
	// Progress returns the input consumed since Open and the input there
	// was to consume at Open, in one unit the source picks (bytes of its
	// files, events of its sequence); total ≤ 0 means it does not know
	// (an unbounded source).
	Progress() (done, total int64)
}

// Op is the kind of a change row.
type Op uint8

// Change operations: upsert by key (insert or replace) and delete by key.
const (
	Upsert Op = iota + 1
	Delete
)

// String returns the changelog name of the op.
func (o Op) String() string {
	if o == Delete {
		return "delete"
	}
	return "upsert"
}

// Change is one changelog row of a view, keyed by the view's key columns.
type Change struct {
	Op  Op
	Row types.Row
}

// Sink receives a view's changelog.
type Sink interface {
	// Write delivers changes in order.
	Write(ctx context.Context, changes []Change) error
	// PreCommit makes everything written so far ready to commit under
	// checkpoint id: an at-least-once sink flushes and returns nil; an
	// exactly-once sink returns the staged changes the engine must keep
	// with checkpoint id (handed back to Recover after a crash).
	PreCommit(ctx context.Context, id uint64) (staged []byte, err error)
	// Commit makes checkpoint id's changes visible; called only after the
	// engine stored checkpoint id.
	Commit(ctx context.Context, id uint64) error
	// Close releases the sink.
	Close() error
}

// Retrier is implemented by sinks that retry while their destination is
// unreachable or a commit fails; it is safe for concurrent use.
type Retrier interface {
	// Retries counts the failed attempts the sink retried since it was
	// built.
	Retries() int64
}

// Recoverer is implemented by exactly-once sinks. After a restart the
// engine calls Recover with the last stored checkpoint's id and the bytes
// its PreCommit returned, before any Write; the sink commits them unless
// the destination already has checkpoint id.
type Recoverer interface {
	Recover(ctx context.Context, id uint64, staged []byte) error
}

// Delivery names a sink's delivery guarantee for EXPLAIN's contract.
type Delivery interface {
	// Delivery returns e.g. "exactly-once (transactional, per checkpoint)"
	// or "at-least-once (idempotent upsert by key)".
	Delivery() string
}

// SourceSpec is what a source factory gets: the source's name, schema and
// validated WITH options.
type SourceSpec struct {
	Name    string
	Schema  types.Schema
	Options map[string]string
	// StateDir is a directory the connector may use for its own files.
	StateDir string
	// Table is set when the source feeds a TABLE (it may emit Ops); Key
	// is then the primary key's positions in Schema.
	Table bool
	Key   []int
	// Required lists columns (positions in Schema) a record must have a
	// non-NULL value for — the watermark's time column. A record without
	// one is a DecodeError.
	Required []int
}

// SinkSpec is what a sink factory gets.
type SinkSpec struct {
	Name    string
	Schema  types.Schema
	Key     []int // key column positions in Schema
	Options map[string]string
	// AppendOnly is true when the view never replaces or deletes a row
	// it has emitted (each key is written once), e.g. a window that
	// emits on close; a sink may lay out its storage for inserts only.
	AppendOnly bool
}

// OptionSpec describes one WITH option of a connector.
type OptionSpec struct {
	Name    string
	Type    string // "string", "int", "duration", "bool"
	Default string
	Doc     string
	Example string
	// Enum, when set, lists the accepted values (case-insensitive).
	Enum []string
	// Required options have no default and must be given.
	Required bool
}

// SourceFactory builds a source.
type SourceFactory struct {
	Name    string
	Doc     string
	Options []OptionSpec
	// Typed is true when the source's rows are typed values, not records
	// it decodes (a generator): Read never returns a DecodeError, so a
	// view over it cannot fail on a poison record (EXPLAIN's contract
	// says so).
	Typed bool
	// New builds a source. A source that must ask its system for the
	// partition count waits (retrying with Backoff) while the system is
	// unreachable, until ctx ends; errors no retry can fix (a missing
	// topic, a refused authorisation) return at once.
	New func(ctx context.Context, spec SourceSpec) (Source, error)
}

// SinkFactory builds a sink.
type SinkFactory struct {
	Name    string
	Doc     string
	Options []OptionSpec
	New     func(spec SinkSpec) (Sink, error)
}

// Registry maps connector names to factories.
type Registry struct {
	Sources map[string]SourceFactory
	Sinks   map[string]SinkFactory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{Sources: map[string]SourceFactory{}, Sinks: map[string]SinkFactory{}}
}

// AddSource registers a source factory.
func (r *Registry) AddSource(f SourceFactory) { r.Sources[f.Name] = f }

// AddSink registers a sink factory.
func (r *Registry) AddSink(f SinkFactory) { r.Sinks[f.Name] = f }
