// Package stdout is the sink that prints a view's changelog, one line per
// change: `<sink> <op> (<values>)`. It is at-least-once: after a crash the
// changes since the last checkpoint are printed again.
package stdout

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// Factory returns the stdout sink factory writing to w.
func Factory(w io.Writer) connectors.SinkFactory {
	var mu sync.Mutex
	bw := bufio.NewWriter(w)
	return connectors.SinkFactory{
		Name: "stdout",
		Doc:  "Prints the view's changelog to standard output.",
		New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
			for k := range spec.Options {
				if k != "connector" {
					return nil, fmt.Errorf("unknown option %q for connector stdout", k)
				}
			}
			return &sink{name: spec.Name, schema: spec.Schema, w: bw, mu: &mu}, nil
		},
	}
}

type sink struct {
	name   string
	schema types.Schema
	w      *bufio.Writer
	mu     *sync.Mutex
}

func (s *sink) Write(_ context.Context, changes []connectors.Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, c := range changes {
		b.Reset()
		b.WriteString(s.name)
		b.WriteByte(' ')
		b.WriteString(c.Op.String())
		b.WriteString(" (")
		for i, v := range c.Row {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(v.String())
		}
		b.WriteString(")\n")
		if _, err := s.w.WriteString(b.String()); err != nil {
			return err
		}
	}
	return s.w.Flush()
}

func (s *sink) PreCommit(context.Context, uint64) ([]byte, error) {
	return nil, s.flush()
}

func (s *sink) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Flush()
}

func (s *sink) Commit(context.Context, uint64) error { return nil }
func (s *sink) Close() error                         { return s.flush() }
