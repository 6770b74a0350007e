package parser

import "testing"

func TestCreateSinkAsQuery(t *testing.T) {
	tests := []struct {
		sql, from, opt string
		query          bool
		lateData       bool
	}{
		{"CREATE SINK s FROM v WITH (connector = 'stdout')", "v", "stdout", false, false},
		{"CREATE SINK s AS SELECT a, b FROM t WITH (connector = 'blackhole')", "", "blackhole", true, false},
		{"CREATE SINK s AS SELECT a FROM (SELECT a FROM t) x WHERE a > 1 WITH (connector = 'stdout')", "", "stdout", true, false},
		{"CREATE SINK s AS SELECT window_start, count(*) FROM TUMBLE(t, ts, INTERVAL '1' SECOND) GROUP BY window_start LATE DATA DROP WITH (connector = 'stdout')", "", "stdout", true, true},
	}
	for _, tc := range tests {
		stmts, err := Parse(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		s := stmts[0].(*CreateSinkStmt)
		if s.From != tc.from || (s.Query != nil) != tc.query || (s.Streaming.LateData != nil) != tc.lateData {
			t.Errorf("%s: from=%q query=%v late=%v", tc.sql, s.From, s.Query != nil, s.Streaming.LateData != nil)
		}
		if len(s.Options) != 1 || s.Options[0].Value != tc.opt {
			t.Errorf("%s: options %+v", tc.sql, s.Options)
		}
		again, err := Parse(s.Restore())
		if err != nil || again[0].Restore() != s.Restore() {
			t.Errorf("%s: restore %q does not round-trip: %v", tc.sql, s.Restore(), err)
		}
	}
	if _, err := Parse("CREATE SINK s AS WITH (connector = 'x')"); err == nil {
		t.Error("a sink without a query parsed")
	}
}
