package engine

import (
	"context"
	"errors"
	"github.com/streamsql/streamsql/connectors"
	"sort"
	"testing"
)

func TestSubscribe(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"strict": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	exec := func(q string) {
		t.Helper()
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE SOURCE s (k BIGINT, v VARCHAR) WITH (connector='memory')")
	exec("CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n FROM s GROUP BY k")
	exec("INSERT INTO s VALUES (1, 'a'); FLUSH")
	sub, err := e.Subscribe("v", 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmtRows(sub.Snapshot); got != "[[1 1]]" || !sub.Keyed {
		t.Fatalf("snapshot %s keyed %v", got, sub.Keyed)
	}
	exec("INSERT INTO s VALUES (1, 'b'), (2, 'c'); FLUSH")
	var rows []string
	for len(rows) < 2 {
		for _, c := range <-sub.C {
			rows = append(rows, c.Row.String()+map[bool]string{true: " delete", false: " upsert"}[c.Op == connectors.Delete])
		}
	}
	sort.Strings(rows) // batches of different keys come in any order
	if len(rows) != 2 || rows[0] != "1 2 upsert" || rows[1] != "2 1 upsert" {
		t.Fatalf("changes %q", rows)
	}

	// A subscriber that does not read is dropped; the pipeline goes on.
	slow, err := e.Subscribe("v", 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		exec("INSERT INTO s VALUES (3, 'x'); FLUSH")
	}
	for range slow.C {
	}
	if !errors.Is(slow.Err(), ErrSubscriberTooSlow) {
		t.Fatalf("slow subscriber: %v", slow.Err())
	}
	sub.Close()
	if _, ok := <-sub.C; ok {
		// drain what was buffered before Close
		for range sub.C {
		}
	}

	// Dropping the view ends its subscriptions.
	last, err := e.Subscribe("v", 4)
	if err != nil {
		t.Fatal(err)
	}
	exec("DROP MATERIALIZED VIEW v")
	for range last.C {
	}
	if !errors.Is(last.Err(), ErrViewGone) {
		t.Fatalf("after drop: %v", last.Err())
	}
	if _, err := e.Subscribe("s", 1); err == nil {
		t.Fatal("subscribed to a source")
	}
}
