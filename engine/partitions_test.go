package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connectors"
)

// growInput is a test input whose partitions (lists of "k,ts" lines) can
// be added while a source reads it, as a Kafka topic can.
type growInput struct {
	mu    sync.Mutex
	parts [][]string
}

func (g *growInput) add(p int, lines ...string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(g.parts) <= p {
		g.parts = append(g.parts, nil)
	}
	g.parts[p] = append(g.parts[p], lines...)
}

func (g *growInput) factory() connectors.SourceFactory {
	return connectors.SourceFactory{Name: "grow", New: func(context.Context, connectors.SourceSpec) (connectors.Source, error) {
		s := &growSource{in: g}
		g.mu.Lock()
		s.discover()
		g.mu.Unlock()
		return s, nil
	}}
}

// growSource reads a growInput round robin; it reports partitions as they
// appear, the way the kafka source's discovery does.
type growSource struct {
	in   *growInput
	offs []int64
	rr   int
}

func (s *growSource) Partitions() int { return len(s.offs) }

// discover picks up partitions added to the input (under in.mu).
func (s *growSource) discover() {
	for len(s.offs) < len(s.in.parts) {
		s.offs = append(s.offs, 0)
	}
}

func (s *growSource) Open(_ context.Context, offs []int64) error {
	s.in.mu.Lock()
	defer s.in.mu.Unlock()
	s.discover()
	copy(s.offs, offs)
	return nil
}

func (s *growSource) Close() error { return nil }

func (s *growSource) Read(_ context.Context, max int) (connectors.Batch, error) {
	s.in.mu.Lock()
	defer s.in.mu.Unlock()
	s.discover()
	for i := range s.offs {
		p := (s.rr + i) % len(s.offs)
		lines := s.in.parts[p]
		if int(s.offs[p]) >= len(lines) {
			continue
		}
		s.rr = p + 1
		b := connectors.Batch{Partition: p}
		for int(s.offs[p]) < len(lines) && len(b.Rows) < max {
			row, err := decodeLine(lines[s.offs[p]])
			if err != nil {
				return b, err
			}
			b.Rows = append(b.Rows, row)
			s.offs[p]++
		}
		b.Next = s.offs[p]
		return b, nil
	}
	return connectors.Batch{Next: s.offs[0]}, nil
}

// TestSourceGainsPartitions: a source that gains a partition while the
// pipeline runs is read from the new partition's start, its position is
// checkpointed, and a restart resumes every partition once.
func TestSourceGainsPartitions(t *testing.T) {
	in := &growInput{}
	in.add(0, "1,2024-01-01 00:00:01", "2,2024-01-01 00:00:02")
	dir := t.TempDir()
	open := func() (*Engine, func(string) *Result) {
		reg := connectors.NewRegistry()
		reg.AddSource(in.factory())
		e, err := Open(Options{StateDir: dir, Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		return e, mustExec(t, e)
	}
	e, exec := open()
	exec(`CREATE SOURCE src (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH (connector = 'grow')`)
	exec(`SET strict = off`)
	exec(`CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(k) AS total FROM src`)
	exec(`FLUSH`)
	want := func(exec func(string) *Result, n, total int64) {
		t.Helper()
		r := exec(`SELECT n, total FROM m`)
		if len(r.Rows) != 1 || r.Rows[0][0].I != n || r.Rows[0][1].I != total {
			t.Fatalf("m = %v, want n %d total %d", r.Rows, n, total)
		}
	}
	want(exec, 2, 3)
	in.add(1, "10,2024-01-01 00:00:03", "20,2024-01-01 00:00:04")
	exec(`FLUSH`)
	want(exec, 4, 33)
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	in.add(2, "100,2024-01-01 00:00:05")
	exec(`FLUSH`)
	want(exec, 5, 133)
	if err := e.Crash(); err != nil {
		t.Fatal(err)
	}
	// The restart knows three partitions; the checkpoint knew two.
	in.add(1, "1000,2024-01-01 00:00:06")
	e, exec = open()
	exec(`FLUSH`)
	want(exec, 6, 1133)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// An input with fewer partitions than the checkpoint was recreated.
	in.mu.Lock()
	in.parts = in.parts[:1]
	in.mu.Unlock()
	reg := connectors.NewRegistry()
	reg.AddSource(in.factory())
	if e, err := Open(Options{StateDir: dir, Registry: reg}); err == nil || !strings.Contains(err.Error(), "partitions only go away when the input is recreated") {
		if e != nil {
			_ = e.Close()
		}
		t.Fatalf("reopening on fewer partitions: %v", err)
	}
}
