// Package stdout is the sink that prints a view's changelog, one line per
// change, as each Write arrives:
//
//	<sink> <op> (<value>, <value>, ...)
//
// op is upsert or delete. Values print as in query results (NULL, t/f,
// numbers, 'YYYY-MM-DD HH:MM:SS[.ffffff]' timestamps, interval text),
// except that strings are double-quoted with Go's escapes
// (strconv.Quote), so a string holding ", ", a newline or the text NULL
// reads back unambiguously: "Bob, Jr." and NULL differ from "NULL". The
// conformance test parses the lines back this way.
//
// It is at-least-once: PreCommit flushes and Commit does nothing, so after
// a crash the changes since the last checkpoint are printed again. Several
// stdout sinks of one factory share its writer; a line is never split
// between them.
package stdout

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
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
			if v.K == types.String {
				b.WriteString(strconv.Quote(v.S))
			} else {
				b.WriteString(v.String())
			}
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

// Delivery states the sink's guarantee for EXPLAIN.
func (s *sink) Delivery() string {
	return "at-least-once (printed as computed; after a crash the changes since the last checkpoint print again)"
}

func (s *sink) Close() error { return s.flush() }
