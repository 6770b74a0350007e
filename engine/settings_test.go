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
		{"SET memory_limit = '1GB'", ""},
		{"SET memory_limit = 0", ""},
		{"SET memory_limit = 'lots'", sqlerr.InvalidParameter},
		{"SET memory_limit = '-1MB'", sqlerr.InvalidParameter},
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

// TestRestartStartsViewsWithTheScriptsSettings: `streamsql run` reopens
// its state with the pipeline file as Options.Script, and recovery starts
// each view with the parallelism and state_cache_size the file's SETs give
// at its CREATE, although those SETs run only after Open (issue 13: the
// recovered views ran with the defaults). Observed: the two-phase split
// that parallelism > 1 plans, and the spill area a budget of 2 fills.
func TestRestartStartsViewsWithTheScriptsSettings(t *testing.T) {
	const view = `SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
GROUP BY k, window_start LATE DATA DROP`
	script := `SET parallelism = 1;
SET state_cache_size = 2;
CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts);
CREATE MATERIALIZED VIEW small AS ` + view + `;
SET parallelism = 3;
SET state_cache_size = 0;
CREATE MATERIALIZED VIEW big AS ` + view
	dir := t.TempDir()
	ctx := context.Background()
	opts := Options{StateDir: dir, Settings: map[string]string{"parallelism": "4"}, SkipSameDDL: true, Script: script}
	for run := 1; run <= 2; run++ {
		e, err := Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		if run == 2 { // recovered, before the script's SETs run
			if split := planRules(e, "small"); strings.Contains(split, "SplitAggregate") {
				t.Errorf("recovered view small was planned for parallelism > 1 (rules %s)", split)
			}
			if split := planRules(e, "big"); !strings.Contains(split, "SplitAggregate") {
				t.Errorf("recovered view big was planned for parallelism 1 (rules %s)", split)
			}
			if _, err := e.Exec(ctx, `INSERT INTO s VALUES (1, '2024-01-01 00:00:01'), (2, '2024-01-01 00:00:02'),
				(3, '2024-01-01 00:00:03'), (4, '2024-01-01 00:00:04'), (5, '2024-01-01 00:00:05'); FLUSH`); err != nil {
				t.Fatal(err)
			}
			if n := countKeys(t, e, "spill/v/small/"); n == 0 {
				t.Errorf("recovered view small spilled nothing of 5 windows: it does not run with state_cache_size 2")
			}
			if n := countKeys(t, e, "spill/v/big/"); n != 0 {
				t.Errorf("recovered view big spilled %d values: it does not run without a limit", n)
			}
		}
		if _, err := e.Exec(ctx, script); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// planRules lists the rewrite rules the running view name was planned with.
func planRules(e *Engine, name string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	rt := e.views[name]
	if rt == nil {
		return "(no such view)"
	}
	return strings.Join(rt.plan.Rules, ",")
}

// countKeys counts the store's keys under prefix.
func countKeys(t *testing.T, e *Engine, prefix string) int {
	t.Helper()
	n := 0
	if err := e.store.Scan([]byte(prefix), func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
