package main

import "testing"

func TestQueryIsReadOnly(t *testing.T) {
	for _, tc := range []struct {
		sql string
		ok  bool
	}{
		{`SELECT count(*) FROM bids_dead_letter`, true},
		{`  select * from v;`, true},
		{"SHOW TABLES", true},
		{"DESCRIBE bids", true},
		{"EXPLAIN SELECT 1", true},
		{"DROP SOURCE bids", false},
		{"INSERT INTO t VALUES (1)", false},
		{"CREATE SINK s FROM v WITH (connector = 'stdout')", false},
		{"", false},
	} {
		if err := readOnly(tc.sql); (err == nil) != tc.ok {
			t.Errorf("readOnly(%q) = %v, want ok=%v", tc.sql, err, tc.ok)
		}
	}
}
