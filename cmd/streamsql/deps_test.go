package main

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestBinaryDoesNotLinkTesting: test-only code (internal/pgtest,
// sqllogic/sqllogictest, connectors/conformance, internal/benchrate)
// stays out of the packages the binary imports, so the shipped binary
// does not link package testing (its flags, its runtime hooks, its size).
func TestBinaryDoesNotLinkTesting(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !slices.Contains(deps, "github.com/streamsql/streamsql/engine") {
		t.Fatalf("go list -deps listed %d packages, not the binary's:\n%s", len(deps), out)
	}
	for _, p := range deps {
		if p == "testing" || strings.HasPrefix(p, "testing/") {
			t.Errorf("the binary links %s; find the importer with: go list -f '{{.ImportPath}} {{.Imports}}' -deps ./cmd/streamsql | grep -w %s", p, p)
		}
	}
}
