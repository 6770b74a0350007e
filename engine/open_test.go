package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/streamsql/streamsql/connectors"
)

// TestOpenContextEndsAWaitingRecovery: recovery reopens sources, which
// may wait for their system (a Kafka cluster that is down); cancelling
// the context ends that wait with the context's error (Ctrl-C during
// `run`'s start), and the state is untouched for the next open.
func TestOpenContextEndsAWaitingRecovery(t *testing.T) {
	waiting := make(chan struct{}, 1)
	block := false
	reg := connectors.NewRegistry()
	lines := lineFactory()
	reg.AddSource(connectors.SourceFactory{Name: "lines", Options: lines.Options,
		New: func(ctx context.Context, spec connectors.SourceSpec) (connectors.Source, error) {
			if block {
				waiting <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return lines.New(ctx, spec)
		}})
	dir := t.TempDir()
	e, err := Open(Options{StateDir: dir, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Exec(context.Background(), `CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', input = 'none');
SET strict = off;
CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM src`); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	block = true
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-waiting
		cancel()
	}()
	if _, err := OpenContext(ctx, Options{StateDir: dir, Registry: reg}); !errors.Is(err, context.Canceled) {
		t.Fatalf("OpenContext cancelled while a source waits: %v", err)
	}
	block = false
	e, err = Open(Options{StateDir: dir, Registry: reg})
	if err != nil {
		t.Fatalf("open after the cancelled recovery: %v", err)
	}
	defer e.Close()
	if _, err := e.Exec(context.Background(), `SELECT n FROM m`); err != nil {
		t.Fatal(err)
	}
}
