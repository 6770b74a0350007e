package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/streamsql/streamsql/connectors"
)

// TestQuerySinkOverViewBackfill: a sink with its own query over a view
// that already has rows gets the view's current contents first (the
// backfill runs once the sink is attached), then the view's changes, and
// DROP of the view is refused while the sink reads it; the pipeline
// lists the view among what it reads.
func TestQuerySinkOverViewBackfill(t *testing.T) {
	rec := &recordSink{}
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(connectors.SinkSpec) (connectors.Sink, error) { return rec, nil }})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg, Settings: map[string]string{"strict": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	run := mustExec(t, e)
	run(`CREATE SOURCE s (k BIGINT, v BIGINT)`)
	run(`CREATE MATERIALIZED VIEW sums AS SELECT k, sum(v) AS total FROM s GROUP BY k`)
	run(`INSERT INTO s VALUES (1, 10), (2, 20)`)
	run(`FLUSH`)
	run(`CREATE SINK out AS SELECT k, total * 2 AS twice FROM sums WITH (connector = 'record')`)
	run(`INSERT INTO s VALUES (1, 5)`)
	run(`FLUSH`)
	for _, v := range e.Metrics().Views {
		if v.Name == "out" && !slices.Contains(v.Sources, "sums") {
			t.Fatalf("the query sink's pipeline does not list the view it reads: %q", v.Sources)
		}
	}
	if _, err := e.Exec(context.Background(), `DROP MATERIALIZED VIEW sums`); err == nil {
		t.Fatal("DROP of a view a sink's query reads succeeded")
	}
	rec.mu.Lock()
	got := slices.Clone(rec.changes)
	rec.mu.Unlock()
	want := []string{"upsert 1 20", "upsert 2 40", "upsert 1 30"}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Fatalf("the sink never got %q: %q", w, got)
		}
	}
	if slices.Index(got, "upsert 1 30") < slices.Index(got, "upsert 1 20") {
		t.Fatalf("the backfill came after the view's later change: %q", got)
	}
}
