package engine

import (
	"context"
	"testing"
	"time"
)

// openClocked opens an engine at parallelism 1 whose clock reads *now, so
// a test drives the wall clock by hand; run executes SQL and fails the
// test on an error.
func openClocked(t *testing.T, now *time.Time) (e *Engine, run func(sql string) *Result) {
	t.Helper()
	e, err := Open(Options{StateDir: t.TempDir(), Clock: func() time.Time { return *now }, Settings: map[string]string{"parallelism": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e, func(sql string) *Result {
		t.Helper()
		r, err := e.Exec(context.Background(), sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return r
	}
}
