package engine

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// crashDest is what a sink of TestSessionCrashRandomized has delivered:
// like a destination, it outlives the engines that crash over it.
type crashDest struct {
	mu       sync.Mutex
	changes  []connectors.Change
	progress uint64     // exactly-once: the last checkpoint committed
	key      []int      // the view key, which contents applies the changes by
	sink     *crashSink // the sink the current engine writes through
}

// crashSink delivers a view's changes to a crashDest. At-least-once it
// makes what was written durable at PreCommit; exactly-once (with
// exactCrashSink) it stages each checkpoint's changes, collapsed per
// key, and appends them at Commit or Recover unless the destination's
// progress already holds that checkpoint, as the file sink does.
type crashSink struct {
	dest   *crashDest
	key    []int
	exact  bool
	buf    []connectors.Change // written, not yet pre-committed
	staged connectors.Staged
}

func (s *crashSink) Write(_ context.Context, changes []connectors.Change) error {
	s.dest.mu.Lock()
	defer s.dest.mu.Unlock()
	s.buf = append(s.buf, changes...)
	return nil
}

func (s *crashSink) PreCommit(_ context.Context, id uint64) ([]byte, error) {
	s.dest.mu.Lock()
	defer s.dest.mu.Unlock()
	buf := s.buf
	s.buf = nil
	if !s.exact {
		s.dest.changes = append(s.dest.changes, buf...)
		return nil, nil
	}
	return s.staged.Stage(id, connectors.Collapse(buf, s.key)), nil
}

func (s *crashSink) Commit(_ context.Context, id uint64) error {
	if !s.exact {
		return nil
	}
	n, _ := s.staged.Each(id, func(id uint64, changes []connectors.Change) error {
		s.commit(id, changes)
		return nil
	})
	s.staged.Drop(n)
	return nil
}

// commit appends checkpoint id's changes unless the destination has them.
func (s *crashSink) commit(id uint64, changes []connectors.Change) {
	s.dest.mu.Lock()
	defer s.dest.mu.Unlock()
	if id <= s.dest.progress {
		return
	}
	s.dest.changes = append(s.dest.changes, changes...)
	s.dest.progress = id
}

func (s *crashSink) Close() error { return nil }

// exactCrashSink is the exactly-once crashSink, the one that recovers.
type exactCrashSink struct{ *crashSink }

func (s exactCrashSink) Recover(_ context.Context, id uint64, b []byte) error {
	changes, err := connectors.DecodeChanges(b)
	if err != nil {
		return err
	}
	s.commit(id, changes)
	return nil
}

// crashRegistry returns a registry whose sink connector 'crash' delivers
// to exact when its WITH option delivery is exactly_once, else to least.
func crashRegistry(exact, least *crashDest) *connectors.Registry {
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "crash", New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
		if spec.Options["delivery"] == "exactly_once" {
			exact.key = spec.Key
			return exactCrashSink{&crashSink{dest: exact, key: spec.Key, exact: true}}, nil
		}
		least.key = spec.Key
		least.sink = &crashSink{dest: least, key: spec.Key}
		return least.sink, nil
	}})
	return reg
}

// contents applies the delivered changelog by key and returns the rows it
// leaves, sorted, one per line, as the view's rows print.
func (d *crashDest) contents() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	rows := map[string]types.Row{}
	for _, c := range d.changes {
		var k strings.Builder
		for _, i := range d.key {
			k.WriteString(c.Row[i].String() + "\x00")
		}
		if c.Op == connectors.Delete {
			delete(rows, k.String())
			continue
		}
		rows[k.String()] = c.Row
	}
	lines := make([]string, 0, len(rows))
	for _, r := range rows {
		lines = append(lines, r.String())
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
