package bench

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite examples/nexmark from the benchmark queries")

// TestExamples checks that examples/nexmark holds exactly the runnable
// form of every benchmark query, and nothing else.
func TestExamples(t *testing.T) {
	dir := filepath.Join("..", "examples", "nexmark")
	all := append(slices.Clone(Queries), Published...)
	want := map[string]bool{}
	for _, q := range all {
		script, err := Example(q)
		if err != nil {
			t.Fatal(err)
		}
		name := q + ".sql"
		want[name] = true
		path := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run go test ./bench -run TestExamples -update)", q, err)
		}
		if string(got) != script {
			t.Errorf("%s differs from bench/%s.sql (run go test ./bench -run TestExamples -update)", path, q)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("%s: not a benchmark query; remove it or add the query to bench", filepath.Join(dir, e.Name()))
		}
	}
}
