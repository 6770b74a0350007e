package file

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
)

// OpField is the JSON field of a sink line that holds the change's op,
// "upsert" or "delete". The double underscore keeps it clear of column
// names (a column named __op is rejected).
const OpField = "__op"

// Delivery modes of the sink.
const (
	atLeastOnce = "at_least_once"
	exactlyOnce = "exactly_once"
)

// flushAt is how many encoded bytes an at-least-once sink buffers before
// writing them to the file (PreCommit always writes and syncs).
const flushAt = 1 << 20

// Commit retries: a failed append or progress update is retried this many
// times with doubling waits from retryWait, since a full disk or a
// transient I/O error may clear; the write is idempotent (it rewrites the
// same bytes at the committed size).
const (
	commitAttempts = 5
	retryWait      = 50 * time.Millisecond
)

// progress is the exactly-once sink's sidecar file: the last committed
// checkpoint id and the file's size right after it.
type progress struct {
	ID   uint64 `json:"checkpoint"`
	Size int64  `json:"size"`
}

// sink is the file connectors.Sink: JSON lines of the changelog.
type sink struct {
	path   string
	schema types.Schema
	key    []int
	exact  bool
	f      *os.File
	buf    []byte // at-least-once: encoded, not yet written
	// exactly-once state
	pending []connectors.Change // written since the last PreCommit
	staged  connectors.Staged   // pre-committed, not yet committed
	prog    progress
	retry   time.Duration // first wait between commit attempts
}

// newSink validates spec and opens the file. An exactly-once sink reads
// its progress file, creating it (checkpoint 0 at the current size) when
// missing, and truncates the file to the committed size: bytes beyond it
// are the torn tail of a commit that crashed before its progress update.
func newSink(spec connectors.SinkSpec) (*sink, error) {
	if err := connectors.ValidateOptions("file", sinkOptions, connectors.CommonSinkOptions, spec.Options); err != nil {
		return nil, err
	}
	for _, c := range spec.Schema {
		if strings.EqualFold(c.Name, OpField) {
			return nil, fmt.Errorf("file: column %s clashes with the sink's op field", c.Name)
		}
	}
	o := connectors.Opts{Values: spec.Options, Specs: sinkOptions}
	s := &sink{
		path:   o.String("path"),
		schema: spec.Schema,
		key:    spec.Key,
		exact:  strings.EqualFold(o.String("delivery"), exactlyOnce),
		retry:  retryWait,
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if s.exact {
		flags = os.O_WRONLY | os.O_CREATE
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	f, err := os.OpenFile(s.path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("file sink: %w", err)
	}
	s.f = f
	if s.exact {
		if err := s.openProgress(); err != nil {
			f.Close()
			return nil, err
		}
	}
	return s, nil
}

// progressPath is the exactly-once sink's sidecar file.
func (s *sink) progressPath() string { return s.path + ".progress" }

// openProgress loads (or creates) the progress file and cuts the data
// file back to the committed size.
func (s *sink) openProgress() error {
	fi, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("file sink: %w", err)
	}
	b, err := os.ReadFile(s.progressPath())
	switch {
	case os.IsNotExist(err):
		s.prog = progress{Size: fi.Size()}
		return s.saveProgress()
	case err != nil:
		return fmt.Errorf("file sink: read progress: %w", err)
	}
	if err := json.Unmarshal(b, &s.prog); err != nil {
		return fmt.Errorf("file sink: progress file %s: %w", s.progressPath(), err)
	}
	if fi.Size() < s.prog.Size {
		return fmt.Errorf("file sink: %s has %d bytes but %s records %d committed (remove both to start over)",
			s.path, fi.Size(), s.progressPath(), s.prog.Size)
	}
	if fi.Size() > s.prog.Size {
		if err := s.f.Truncate(s.prog.Size); err != nil {
			return fmt.Errorf("file sink: cut the uncommitted tail: %w", err)
		}
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("file sink: %w", err)
		}
	}
	return nil
}

// saveProgress replaces the progress file atomically.
func (s *sink) saveProgress() error {
	b, _ := json.Marshal(s.prog)
	if err := writeFileAtomic(s.progressPath(), append(b, '\n')); err != nil {
		return fmt.Errorf("file sink: write progress: %w", err)
	}
	return nil
}

// Delivery names the sink's guarantee.
func (s *sink) Delivery() string {
	if s.exact {
		return "exactly-once (appended at commit; progress file per checkpoint)"
	}
	return "at-least-once (appended and synced per checkpoint; replays repeat changes, idempotent by key)"
}

// appendChange appends c as one JSON line: the row's columns plus OpField.
func (s *sink) appendChange(dst []byte, c connectors.Change) []byte {
	dst = format.AppendJSON(dst, s.schema, c.Row)
	dst = dst[:len(dst)-1] // drop '}'
	if len(s.schema) > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, `"`+OpField+`":"`...)
	dst = append(dst, c.Op.String()...)
	return append(dst, "\"}\n"...)
}

// Write appends changes (at-least-once) or buffers them for the next
// PreCommit (exactly-once).
func (s *sink) Write(_ context.Context, changes []connectors.Change) error {
	if s.f == nil {
		return errors.New("file sink: closed")
	}
	if s.exact {
		s.pending = append(s.pending, changes...)
		return nil
	}
	for _, c := range changes {
		s.buf = s.appendChange(s.buf, c)
	}
	if len(s.buf) >= flushAt {
		return s.flush()
	}
	return nil
}

// flush writes the at-least-once buffer.
func (s *sink) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	if _, err := s.f.Write(s.buf); err != nil {
		return fmt.Errorf("file sink: write %s: %w", s.path, err)
	}
	s.buf = s.buf[:0]
	return nil
}

// PreCommit writes and syncs (at-least-once, nil staged bytes) or returns
// checkpoint id's changes, collapsed per key, as staged bytes.
func (s *sink) PreCommit(_ context.Context, id uint64) ([]byte, error) {
	if s.f == nil {
		return nil, errors.New("file sink: closed")
	}
	if !s.exact {
		if err := s.flush(); err != nil {
			return nil, err
		}
		if err := s.f.Sync(); err != nil {
			return nil, fmt.Errorf("file sink: sync %s: %w", s.path, err)
		}
		return nil, nil
	}
	c := connectors.Collapse(s.pending, s.key)
	s.pending = nil
	return s.staged.Stage(id, c), nil
}

// Commit appends the staged changes of every pre-committed checkpoint up
// to id (exactly-once); a no-op for at-least-once.
func (s *sink) Commit(ctx context.Context, id uint64) error {
	if !s.exact {
		return nil
	}
	n, err := s.staged.Each(id, func(id uint64, changes []connectors.Change) error {
		return s.commit(ctx, id, changes)
	})
	if err != nil {
		return err
	}
	s.staged.Drop(n)
	return nil
}

// exactSink is the exactly-once sink: only it implements
// connectors.Recoverer.
type exactSink struct{ *sink }

// Recover commits checkpoint id's staged changes unless the progress file
// already records id (or a later checkpoint).
func (s exactSink) Recover(ctx context.Context, id uint64, b []byte) error {
	changes, err := connectors.DecodeChanges(b)
	if err != nil {
		return fmt.Errorf("file sink: recover checkpoint %d: %w", id, err)
	}
	return s.commit(ctx, id, changes)
}

// commit appends changes at the committed size, syncs, then records
// (id, new size) in the progress file; retried on failure.
func (s *sink) commit(ctx context.Context, id uint64, changes []connectors.Change) error {
	if id <= s.prog.ID {
		return nil
	}
	var b []byte
	for _, c := range changes {
		b = s.appendChange(b, c)
	}
	wait := s.retry
	var err error
	for attempt := 1; ; attempt++ {
		if err = s.tryCommit(id, b); err == nil {
			return nil
		}
		if attempt == commitAttempts {
			return fmt.Errorf("checkpoint %d: %w", id, err)
		}
		sleepCtx(ctx, wait)
		if ctx.Err() != nil {
			return fmt.Errorf("checkpoint %d: %w (then %w)", id, err, ctx.Err())
		}
		wait *= 2
	}
}

// tryCommit is one attempt of commit.
func (s *sink) tryCommit(id uint64, b []byte) error {
	if len(b) > 0 {
		if _, err := s.f.WriteAt(b, s.prog.Size); err != nil {
			return fmt.Errorf("file sink: write %s: %w", s.path, err)
		}
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("file sink: sync %s: %w", s.path, err)
		}
	}
	next := progress{ID: id, Size: s.prog.Size + int64(len(b))}
	old := s.prog
	s.prog = next
	if err := s.saveProgress(); err != nil {
		s.prog = old
		return err
	}
	return nil
}

// Close writes what an at-least-once sink buffered and closes the file.
// An exactly-once sink drops uncommitted changes: the engine replays or
// recovers them.
func (s *sink) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.flush()
	if serr := s.f.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("file sink: sync %s: %w", s.path, serr)
	}
	if cerr := s.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("file sink: close %s: %w", s.path, cerr)
	}
	s.f = nil
	return err
}
