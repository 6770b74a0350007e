package metrics

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/families.golden")

// TestMetricFamiliesGolden pins every metric family's name and labels in
// testdata/families.golden (go test ./metrics -run Golden -update
// rewrites it): a rename is a breaking change for dashboards and alerts,
// so it must show in review. Names follow Prometheus conventions: the
// streamsql_ prefix, _total on counters, base units.
func TestMetricFamiliesGolden(t *testing.T) {
	re := regexp.MustCompile(`fqName: "([a-z_]+)".*variableLabels: \{([a-z_,]*)\}`)
	var lines []string
	for _, d := range allDescs {
		m := re.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("cannot read %s", d)
		}
		if !strings.HasPrefix(m[1], "streamsql_") {
			t.Errorf("%s lacks the streamsql_ prefix", m[1])
		}
		lines = append(lines, m[1]+"{"+m[2]+"}")
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "families.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("metric families changed; if intended, run go test ./metrics -run Golden -update\ngot:\n%swant:\n%s", got, want)
	}
}

// TestGrafanaDashboardNamesMetrics: every streamsql metric the Grafana
// dashboard in docs/grafana queries is one the collector exports (a
// histogram's _bucket series counted as its family), so a rename cannot
// leave the board empty.
func TestGrafanaDashboardNamesMetrics(t *testing.T) {
	b, err := os.ReadFile("../docs/grafana/streamsql.json")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	name := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for _, d := range allDescs {
		known[name.FindStringSubmatch(d.String())[1]] = true
	}
	used := regexp.MustCompile(`streamsql_[a-z_]+`).FindAllString(string(b), -1)
	if len(used) < 20 {
		t.Fatalf("the dashboard queries only %d streamsql series", len(used))
	}
	for _, m := range used {
		if !known[m] && !known[strings.TrimSuffix(m, "_bucket")] {
			t.Errorf("the Grafana dashboard queries %s, which the collector does not export", m)
		}
	}
}
