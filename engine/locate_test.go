package engine

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
)

// TestSemanticErrorsNameLineAndColumn: errors the planner finds point at
// the token they name, in multi-statement scripts too.
func TestSemanticErrorsNameLineAndColumn(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Exec(ctx, `CREATE SOURCE s (k BIGINT, name VARCHAR, ts TIMESTAMP, WATERMARK FOR ts AS ts);
CREATE MATERIALIZED VIEW m AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND) GROUP BY k, window_start LATE DATA DROP;`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sql       string
		line, col int
		msg       string
	}{
		{"SELECT zz FROM m", 1, 8, `column "zz" does not exist (line 1, column 8)`},
		{"SELECT k FROM nope", 1, 15, `relation "nope" does not exist (line 1, column 15)`},
		// the second statement of a script, the column after a string that holds its name
		{"SELECT k FROM m;\nSELECT 'zz', \"zz\" FROM m", 2, 14, `column "zz" does not exist (line 2, column 14)`},
		{"CREATE MATERIALIZED VIEW bad AS\n  SELECT k, window_start, sum(name) AS x\n  FROM TUMBLE(s, ts, INTERVAL '10' SECOND)\n  GROUP BY k, window_start LATE DATA DROP", 2, 27, "function sum(varchar) does not exist (line 2, column 27)"},
	} {
		_, err := e.Exec(ctx, tc.sql)
		se, ok := err.(*sqlerr.Error)
		if !ok {
			t.Fatalf("%q: %v (%T)", tc.sql, err, err)
		}
		if se.Pos.Line != tc.line || se.Pos.Col != tc.col || se.Msg != tc.msg {
			t.Errorf("%q: %q at %d:%d, want %q at %d:%d", tc.sql, se.Msg, se.Pos.Line, se.Pos.Col, tc.msg, tc.line, tc.col)
		}
	}
}
