package exec

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
)

// Sink is the sink operator: it writes the changes of a view (or of its
// LATE DATA side table, a TABLE or a dead-letter table) to one connector
// and runs the connector's side of a checkpoint. PreCommit stages the
// checkpoint's changes; the checkpoint stores the staged bytes (Stage)
// with the state and positions, in one transaction; Commit then makes
// them visible at the destination. After a crash, Recover hands the
// connector the staged bytes of the last stored checkpoint, which it may
// not have committed: an exactly-once sink neither loses nor repeats a
// change.
//
// State: the staged bytes of the last checkpoint (in the store, under
// sinkstage/<sink>), one value per sink; figures of rows written and
// commit times in fixed buckets.
type Sink struct {
	name, conn string
	key        string // the columns the sink writes by, for the contract
	side       bool   // reads the view's side table, not the view
	out        connectors.Sink
	rows       atomic.Int64
	// mu guards the commit figures: sinks commit with the engine's
	// statement lock released.
	mu        sync.Mutex
	bounds    []float64 // commit-time buckets' upper bounds (seconds)
	counts    []uint64  // len(bounds)+1
	sum       float64
	commits   uint64
	committed uint64 // the last checkpoint committed
}

// NewSink builds the sink operator writing to out; key names the
// columns it writes by and side says it reads a view's side table.
// bounds are the upper bounds (seconds) of its commit-time buckets.
func NewSink(name, conn, key string, side bool, out connectors.Sink, bounds []float64) *Sink {
	return &Sink{name: name, conn: conn, key: key, side: side, out: out, bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

// Name is the sink's name in the catalog.
func (s *Sink) Name() string { return s.name }

// Connector is the sink's connector name.
func (s *Sink) Connector() string { return s.conn }

// Side reports whether the sink reads a view's side table.
func (s *Sink) Side() bool { return s.side }

// Conn is the connector the sink writes to.
func (s *Sink) Conn() connectors.Sink { return s.out }

// Rows is the number of changes written.
func (s *Sink) Rows() int64 { return s.rows.Load() }

// CommitStats are the commit-time bucket counts (one past the bounds),
// their sum in seconds and count, and the last checkpoint committed.
func (s *Sink) CommitStats() (counts []uint64, sum float64, n, committed uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.counts), s.sum, s.commits, s.committed
}

// ContractLine is the sink's line in EXPLAIN and the contract.
func (s *Sink) ContractLine() string {
	delivery := "at-least-once"
	if d, ok := s.out.(connectors.Delivery); ok {
		delivery = d.Delivery()
	}
	return fmt.Sprintf("sink %s: %s, %s, key [%s]", s.name, s.conn, delivery, s.key)
}

// Write writes changes (connectors retry transient failures themselves).
func (s *Sink) Write(changes []connectors.Change) error {
	s.rows.Add(int64(len(changes)))
	if err := s.out.Write(context.Background(), changes); err != nil {
		return fmt.Errorf("sink %s: %w", s.name, err)
	}
	return nil
}

// Snapshot writes the rows a view or table holds when the sink is
// attached (as upserts); they are not counted as changes written.
func (s *Sink) Snapshot(changes []connectors.Change) error {
	return s.out.Write(context.Background(), changes)
}

// PreCommit stages checkpoint id's changes; the bytes it returns (nil:
// none) go into the checkpoint through Stage.
func (s *Sink) PreCommit(ctx context.Context, id uint64) ([]byte, error) {
	b, err := s.out.PreCommit(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: sink %s: %w", id, s.name, err)
	}
	return b, nil
}

// Commit makes checkpoint id visible at the destination, once the
// checkpoint is stored, and records how long it took.
func (s *Sink) Commit(ctx context.Context, id uint64) error {
	start := time.Now()
	err := s.out.Commit(ctx, id)
	d := time.Since(start).Seconds()
	s.mu.Lock()
	i, _ := slices.BinarySearch(s.bounds, d)
	s.counts[i]++
	s.sum += d
	s.commits++
	if err == nil {
		s.committed = id
	}
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("checkpoint %d: sink %s commit: %w", id, s.name, err)
	}
	return nil
}

// Close closes the connector.
func (s *Sink) Close() error { return s.out.Close() }

// Staged sink changes live under sinkstage/<sink>: the id of the
// checkpoint they belong to, then the bytes the sink's PreCommit returned.
// Each checkpoint replaces them; only the last one can be uncommitted.
func stagedKey(sink string) []byte { return []byte("sinkstage/" + strings.ToLower(sink)) }

// DropStaged deletes what sink name staged (DROP SINK).
func DropStaged(w *state.Writer, sink string) error { return w.Delete(stagedKey(sink)) }

// Stage writes, in checkpoint id's transaction, the bytes PreCommit
// returned (nil deletes the last checkpoint's).
func (s *Sink) Stage(w *state.Writer, id uint64, b []byte) error {
	if b == nil {
		return w.Delete(stagedKey(s.name))
	}
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(b)), id)
	return w.Set(stagedKey(s.name), append(v, b...))
}

// Recover hands an exactly-once connector the changes of the last
// checkpoint in st, which a crash may have kept from being committed.
func (s *Sink) Recover(st *state.Store) error {
	r, ok := s.out.(connectors.Recoverer)
	if !ok {
		return nil
	}
	b, found, err := st.Get(stagedKey(s.name))
	if err != nil || !found || len(b) < 8 {
		return err
	}
	if err := r.Recover(context.Background(), binary.BigEndian.Uint64(b), b[8:]); err != nil {
		return fmt.Errorf("sink %s: recover checkpoint %d: %w", s.name, binary.BigEndian.Uint64(b), err)
	}
	return nil
}

// Sinks are the sink operators under one Materialize (or a TABLE's or a
// dead-letter table's changelog). Write keeps the first error a sink
// returned; the pipeline stops with it.
type Sinks struct {
	list []*Sink
	err  error
}

// Add attaches s.
func (ss *Sinks) Add(s *Sink) { ss.list = append(ss.list, s) }

// Remove closes and detaches sink name.
func (ss *Sinks) Remove(name string) {
	for i, s := range ss.list {
		if strings.EqualFold(s.name, name) {
			_ = s.Close()
			ss.list = append(ss.list[:i], ss.list[i+1:]...)
			return
		}
	}
}

// List is the attached sinks (not to be changed).
func (ss *Sinks) List() []*Sink {
	if ss == nil {
		return nil
	}
	return ss.list
}

// Len is the number of attached sinks.
func (ss *Sinks) Len() int { return len(ss.List()) }

// Err is the first error a sink returned from Write.
func (ss *Sinks) Err() error { return ss.err }

// Write writes changes to the sinks whose side flag is side and returns
// the first error, which it also keeps.
func (ss *Sinks) Write(changes []connectors.Change, side bool) error {
	var first error
	for _, s := range ss.list {
		if s.side != side {
			continue
		}
		if err := s.Write(changes); err != nil && first == nil {
			first = err
		}
	}
	if first != nil && ss.err == nil {
		ss.err = first
	}
	return first
}

// Close closes every sink.
func (ss *Sinks) Close() {
	for _, s := range ss.list {
		_ = s.Close()
	}
}
