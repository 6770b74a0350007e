package parser

import (
	"os"
	"strings"
	"testing"
)

func TestNexmarkScript(t *testing.T) {
	b, err := os.ReadFile("testdata/nexmark.sql")
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 18 {
		t.Errorf("got %d statements, want 18", len(stmts))
	}
	views := map[string]int{}
	for _, s := range stmts {
		checkRoundTrip(t, s)
		if v, ok := s.(*CreateViewStmt); ok {
			views[v.Name] = len(v.Query.Windows)
		}
	}
	want := map[string]int{"q5": 1, "q7": 2, "q8": 2, "q11": 1, "q3": 0, "q1": 0, "bid_after_auction": 0}
	for k, n := range want {
		if views[k] != n {
			t.Errorf("view %s has %d windows, want %d", k, views[k], n)
		}
	}
}

// TestNexmarkColumnNames checks that the Nexmark column names, several of
// them TiDB keywords, are identifiers everywhere a query uses them.
func TestNexmarkColumnNames(t *testing.T) {
	names := []string{"date_time", "extra", "channel", "url", "name", "city", "state", "category",
		"reserve", "expires", "seller", "description", "window_start", "window_end", "count",
		"price", "bidder", "auction", "id", "item_name", "email_address", "credit_card", "initial_bid"}
	for _, n := range names {
		sql := "SELECT " + n + ", t." + n + " AS " + n + " FROM t WHERE " + n + " IS NOT NULL GROUP BY " + n + " ORDER BY " + n
		parseOne(t, sql)
		parseOne(t, "CREATE TABLE "+n+" ("+n+" BIGINT PRIMARY KEY)")
		parseOne(t, "INSERT INTO t ("+n+") VALUES (1)")
	}
	// The q7 view alias columns after a window are plain names.
	q := parseOne(t, "SELECT b.window_start FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) b").(*QueryStmt)
	if q.Window("__W0") != q.Windows[0] || q.Window("b") != nil || q.Windows[0].Alias != "b" || !strings.Contains(q.Restore(), `AS "b"`) {
		t.Errorf("alias: %+v %s", q.Windows[0], q.Restore())
	}
}

// TestReservedNames checks that names TiDB reserves but Postgres users
// write bare are read as identifiers, and keep their uses as keywords.
func TestReservedNames(t *testing.T) {
	for _, sql := range []string{
		`SELECT key, value, rank, range FROM kafka_in WHERE key IS NOT NULL GROUP BY key, value, rank, range`,
		`SELECT t.key AS key FROM t AS key`,
		`INSERT INTO t (key, value) VALUES ('k', 'v')`,
		`SELECT rank() OVER (ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), lag(a) OVER (ORDER BY a) FROM t`,
		`SELECT a FROM t USE INDEX (i) WHERE b = 1`,
		`SELECT a FROM t LOCK IN SHARE MODE`,
	} {
		parseOne(t, sql)
	}
}
