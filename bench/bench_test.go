package bench

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestRunSmall(t *testing.T) {
	for _, q := range Queries {
		rep, err := RunWith(context.Background(), Config{TempDir: t.TempDir()}, q, 5000, 1)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if rep.NotSupported != "" {
			t.Logf("%s: not supported: %s", q, rep.NotSupported)
			continue
		}
		m := rep.Median
		if m.Events != 5000 || m.Wall <= 0 || m.CPU <= 0 || m.Checkpoints < 1 || m.PerCore() <= 0 {
			t.Errorf("%s: implausible measurement %+v", q, m)
		}
	}
}

// TestPublishedFormsRun runs the Nexmark queries written in their
// published forms (to_char, CASE, regexp_match, a SQL function, FILTER
// clauses): each must plan and deliver rows.
func TestPublishedFormsRun(t *testing.T) {
	for _, q := range Published {
		rep, err := RunWith(context.Background(), Config{TempDir: t.TempDir()}, q, 5000, 1)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if rep.NotSupported != "" {
			t.Fatalf("%s: not supported: %s", q, rep.NotSupported)
		}
		if rep.Median.SinkRows <= 0 {
			t.Errorf("%s: the sink received no rows", q)
		}
	}
}

func TestNotSupported(t *testing.T) {
	rep, err := RunSQL(context.Background(), Config{TempDir: t.TempDir()}, "bad", "CREATE MATERIALIZED VIEW v AS SELECT * FROM nosuch;", 1, 1)
	if err != nil || rep.NotSupported == "" {
		t.Fatalf("want NotSupported, got %+v, %v", rep, err)
	}
	var b strings.Builder
	if err := WriteTable(&b, []Report{rep}); err != nil || !strings.Contains(b.String(), "not supported") {
		t.Fatalf("table: %q, %v", b.String(), err)
	}
}

func TestSQLPlaceholder(t *testing.T) {
	for _, q := range append(slices.Clone(Queries), Published...) {
		s, err := SQL(q, 1234)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s, EventsPlaceholder) || !strings.Contains(s, "events = 1234") || !strings.Contains(s, "'blackhole'") {
			t.Errorf("%s: placeholder or sink missing", q)
		}
	}
	if _, err := SQL("q99", 1); err == nil {
		t.Error("want an error for an unknown query")
	}
}
