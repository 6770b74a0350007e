package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunSetReturningSinks runs set-returning functions in sinks over a
// file source: one over the append-only rows (each JSON array element a
// row, with its ordinality), one over an aggregate's retracting output:
// its changelog, applied in order, holds the unnested rows of the final
// arrays, each array's rows replaced as it grows; the end of the input
// expires no group (STATE TTL keeps the final answer of a bounded input),
// so they are what is left.
func TestRunSetReturningSinks(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	input := `{"k":1,"v":5,"js":{"items":["a","b"]},"ts":"2024-01-01 00:00:01"}
{"k":2,"v":7,"js":{"items":[]},"ts":"2024-01-01 00:00:02"}
{"k":1,"v":6,"js":{"items":["c"]},"ts":"2024-01-01 00:00:03"}
`
	if err := os.WriteFile(in, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	elems, unnested := filepath.Join(dir, "elems.jsonl"), filepath.Join(dir, "unnested.jsonl")
	src := fmt.Sprintf(`CREATE SOURCE ev (k BIGINT, v BIGINT, js JSONB, ts TIMESTAMP, WATERMARK FOR ts AS ts)
  WITH (connector = 'file', path = '%s');
CREATE SINK elems AS SELECT k, e, n FROM ev, jsonb_array_elements_text(ev.js->'items') WITH ORDINALITY AS u(e, n)
  WITH (connector = 'file', path = '%s');
CREATE SINK unnested AS SELECT g.k, u.x FROM (SELECT k, array_agg(v) AS xs FROM ev GROUP BY k) AS g, unnest(g.xs) AS u(x)
  STATE TTL INTERVAL '1' HOUR WITH (connector = 'file', path = '%s');`, in, elems, unnested)
	file := filepath.Join(dir, "p.sql")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "run", "--state-dir", filepath.Join(dir, "state"), file); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if got, _ := applyChangelog(t, elems); !slices.Equal(got, []string{`1 "a" 1`, `1 "b" 2`, `1 "c" 1`}) {
		t.Errorf("elems: %q", got)
	}
	final, peak := applyChangelog(t, unnested)
	if want := []string{"1 5", "1 6", "2 7"}; !slices.Equal(final, want) || !slices.Equal(peak, want) {
		t.Errorf("unnested: final %q, largest %q (want the final arrays' rows, %q)", final, peak, want)
	}
}

// applyChangelog applies a file sink's lines in order to a multiset of
// rows (an upsert adds its row, a delete removes one copy) and returns the
// rows left and the largest multiset on the way, each row as its values'
// JSON joined by spaces, sorted.
func applyChangelog(t *testing.T, path string) (final, peak []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		var op string
		_ = json.Unmarshal(m["__op"], &op)
		var vals []string
		for _, c := range []string{"k", "e", "x", "n"} {
			if v, ok := m[c]; ok {
				vals = append(vals, string(v))
			}
		}
		row := strings.Join(vals, " ")
		if op == "delete" {
			i := slices.Index(rows, row)
			if i < 0 {
				t.Fatalf("%s: delete of a row not there: %s", path, line)
			}
			rows = slices.Delete(rows, i, i+1)
			continue
		}
		rows = append(rows, row)
		if len(rows) > len(peak) {
			peak = slices.Sorted(slices.Values(rows))
		}
	}
	slices.Sort(rows)
	return rows, peak
}
