package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
)

func TestSetValidatesItsValue(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, tc := range []struct{ sql, code string }{
		{"SET strict = off", ""},
		{"SET strict = 'TRUE'", ""},
		{"SET strict = bogus", sqlerr.InvalidParameter},
		{"SET parallelism = 4", ""},
		{"SET parallelism = 'x'", sqlerr.InvalidParameter},
		{"SET parallelism = 0", sqlerr.InvalidParameter},
		{"SET checkpoint_interval = '5s'", ""},
		{"SET checkpoint_interval = '5 seconds'", ""},
		{"SET checkpoint_interval = 'banana'", sqlerr.InvalidParameter},
		{"SET state_cache_size = 0", ""},
		{"SET state_cache_size = -1", sqlerr.InvalidParameter},
		{"SET flush_limit_rows = 1000", ""},
		{"SET nosuch = 1", sqlerr.UndefinedObject},
		{"SET metrics = 1", sqlerr.UndefinedObject},
		{"SHOW nosuch", sqlerr.UndefinedObject},
	} {
		_, err := e.Exec(ctx, tc.sql)
		if got := sqlerr.Code(err); (tc.code == "" && err != nil) || (tc.code != "" && got != tc.code) {
			t.Errorf("%s: %v (code %s), want code %q", tc.sql, err, got, tc.code)
		}
	}
	res, err := e.Exec(ctx, "SHOW checkpoint_interval")
	if err != nil || res.Rows[0][0].S != "5 seconds" {
		t.Fatalf("SHOW checkpoint_interval after the bad SET: %v, %v", res, err)
	}
	if _, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"parallelism": "many"}}); err == nil || !strings.Contains(err.Error(), "parallelism") {
		t.Fatalf("Open with parallelism 'many': %v", err)
	}
}

// TestSessionSettings: SET under a session changes that session's value
// only; state_cache_size stays engine-wide.
func TestSessionSettings(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	a := WithSession(context.Background(), map[string]string{})
	b := WithSession(context.Background(), map[string]string{})
	show := func(ctx context.Context, name string) string {
		t.Helper()
		res, err := e.Exec(ctx, "SHOW "+name)
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0].S
	}
	for _, q := range []string{"SET strict = off", "SET parallelism = 3", "SET state_cache_size = 7"} {
		if _, err := e.Exec(a, q); err != nil {
			t.Fatal(err)
		}
	}
	if show(a, "strict") != "off" || show(a, "parallelism") != "3" {
		t.Fatalf("session a: strict %s, parallelism %s", show(a, "strict"), show(a, "parallelism"))
	}
	if show(b, "strict") != "on" || show(context.Background(), "strict") != "on" {
		t.Fatalf("session a's SET strict leaked: b %s, engine %s", show(b, "strict"), show(context.Background(), "strict"))
	}
	if show(b, "state_cache_size") != "7" {
		t.Fatalf("state_cache_size is engine-wide: b sees %s", show(b, "state_cache_size"))
	}
	if _, err := e.Exec(a, "CREATE SOURCE s (k BIGINT)"); err != nil {
		t.Fatal(err)
	}
	// An unbounded aggregate: a's strict = off accepts it, b's strict refuses.
	if _, err := e.Exec(b, "CREATE MATERIALIZED VIEW vb AS SELECT k, count(*) AS n FROM s GROUP BY k"); err == nil {
		t.Fatal("session b (strict on) accepted an unbounded view")
	}
	if _, err := e.Exec(a, "CREATE MATERIALIZED VIEW va AS SELECT k, count(*) AS n FROM s GROUP BY k"); err != nil {
		t.Fatalf("session a (strict off): %v", err)
	}
}
