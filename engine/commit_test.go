package engine

import (
	"context"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
)

// blockingSink's Commit waits until release is closed: an unreachable
// destination that a sink keeps retrying.
type blockingSink struct {
	committing chan struct{}
	release    chan struct{}
}

func (s *blockingSink) Write(context.Context, []connectors.Change) error { return nil }
func (s *blockingSink) PreCommit(context.Context, uint64) ([]byte, error) {
	return nil, nil
}
func (s *blockingSink) Commit(context.Context, uint64) error {
	select {
	case s.committing <- struct{}{}:
	default:
	}
	<-s.release
	return nil
}
func (s *blockingSink) Close() error { return nil }

// TestQueriesRunWhileASinkCommits: a sink blocked in Commit holds the
// pipeline but not queries or INSERTs.
func TestQueriesRunWhileASinkCommits(t *testing.T) {
	bs := &blockingSink{committing: make(chan struct{}, 1), release: make(chan struct{})}
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "blocking", New: func(connectors.SinkSpec) (connectors.Sink, error) { return bs, nil }})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		close(bs.release)
		_ = e.Close()
	}()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE SOURCE s (k BIGINT)`,
		`SET strict = off`,
		`CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n FROM s GROUP BY k`,
		`CREATE SINK out FROM v WITH (connector = 'blocking')`,
		`INSERT INTO s VALUES (1), (2)`,
		`FLUSH`,
	} {
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- e.Checkpoint() }()
	<-bs.committing
	qctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := e.Exec(qctx, `SELECT k, n FROM v`)
	if err != nil || len(res.Rows) != 2 {
		t.Fatalf("query while the sink commits: %v %v", res, err)
	}
	if _, err := e.Exec(qctx, `INSERT INTO s VALUES (3)`); err != nil {
		t.Fatalf("insert while the sink commits: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("checkpoint returned before its sink committed: %v", err)
	default:
	}
	// The deferred close(bs.release) lets the commit finish before Close.
}
