package bench

import (
	"fmt"
	"strings"
)

// ExampleEvents is the event count of the runnable examples under
// examples/nexmark: enough for every query to produce rows, few enough
// that stdout stays readable.
const ExampleEvents = 20000

// Example returns the runnable form of a benchmark query that
// examples/nexmark/<query>.sql holds: the same statements with
// ExampleEvents events and the blackhole sink swapped for stdout, so
// `streamsql run` prints the view's changelog. The files are generated
// from the benchmark's own (go test ./bench -run TestExamples -update) so
// the two never drift apart.
func Example(query string) (string, error) {
	script, err := SQL(query, ExampleEvents)
	if err != nil {
		return "", err
	}
	const blackhole = "connector = 'blackhole'"
	if !strings.Contains(script, blackhole) {
		return "", fmt.Errorf("%s: no blackhole sink to print to stdout", query)
	}
	script = strings.ReplaceAll(script, blackhole, "connector = 'stdout'")
	header := fmt.Sprintf("-- Generated from bench/%s.sql by `go test ./bench -run TestExamples -update`;\n"+
		"-- edit that file, not this one. Run it with\n"+
		"--   go run ./cmd/streamsql run --state-dir \"$(mktemp -d)\" examples/nexmark/%s.sql\n", query, query)
	return header + script, nil
}
