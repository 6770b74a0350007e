package engine

import (
	"context"
	"strings"
	"testing"
)

// TestScriptKeepsEveryNotice: a script's result carries the notices of
// all its statements, not only the last one's (streamsql run prints them).
func TestScriptKeepsEveryNotice(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	res, err := e.Exec(context.Background(), `
		SET strict = off;
		CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts);
		CREATE MATERIALIZED VIEW m AS SELECT window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND) GROUP BY window_start;
		CREATE MATERIALIZED VIEW m2 AS SELECT k FROM s;`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notice) != 1 || !strings.Contains(res.Notice[0], "late data will be dropped") {
		t.Fatalf("notices %q, want view m's late-data warning", res.Notice)
	}
}
