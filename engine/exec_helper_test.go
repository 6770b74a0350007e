package engine

import (
	"context"
	"testing"
)

// mustExec returns a function that runs one statement on e and fails the
// test with the statement (its first 200 bytes) and the error when it
// fails.
func mustExec(t *testing.T, e *Engine) func(q string) *Result {
	return func(q string) *Result {
		t.Helper()
		r, err := e.Exec(context.Background(), q)
		if err != nil {
			t.Fatalf("%.200s: %v", q, err)
		}
		return r
	}
}
