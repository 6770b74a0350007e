package pgwire

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestSubscribeStream: SUBSCRIBE TO streams the snapshot, then the
// changes as they happen, until the client cancels.
func TestSubscribeStream(t *testing.T) {
	addr, _ := startServer(t)
	w := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	for i, m := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		src, view := "s"+itoa(i), "v"+itoa(i)
		mustExec(t, w,
			"CREATE SOURCE "+src+" (k BIGINT, v VARCHAR) WITH (connector = 'memory')",
			"CREATE MATERIALIZED VIEW "+view+" AS SELECT k, count(*) AS n FROM "+src+" GROUP BY k",
			"INSERT INTO "+src+" VALUES (1, 'a')", "FLUSH")
		r := connect(t, addr, m)
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := r.Query(ctx, "SUBSCRIBE TO "+view)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		next := func() {
			t.Helper()
			if !rows.Next() {
				t.Fatalf("stream ended: %v", rows.Err())
			}
			var k, n int64
			var op string
			if err := rows.Scan(&k, &n, &op); err != nil {
				t.Fatal(err)
			}
			got = append(got, itoa(int(k))+" "+itoa(int(n))+" "+op)
		}
		next()
		mustExec(t, w, "INSERT INTO "+src+" VALUES (1, 'b'), (2, 'c')", "FLUSH")
		next()
		next()
		sort.Strings(got[1:]) // batches of different keys come in any order
		if want := "1 1 upsert|1 2 upsert|2 1 upsert"; strings.Join(got, "|") != want {
			t.Errorf("mode %v: stream %q, want %q", m, got, want)
		}
		cancel()
		rows.Close()
	}
	mustExec(t, w, "SHOW TimeZone")
}

// TestSubscribeCursor: DECLARE ... CURSOR FOR SUBSCRIBE and FETCH, the
// way a psql user watches a view.
func TestSubscribeCursor(t *testing.T) {
	addr, _ := startServer(t)
	c := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, c,
		"CREATE SOURCE s (k BIGINT, v VARCHAR) WITH (connector = 'memory')",
		"CREATE MATERIALIZED VIEW v AS SELECT k, v FROM s",
		"INSERT INTO s VALUES (1, 'a')", "FLUSH",
		"DECLARE c CURSOR FOR SUBSCRIBE TO v")
	fetch := func(q string) []string {
		t.Helper()
		rows, err := c.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for rows.Next() {
			var k int64
			var v, op string
			if err := rows.Scan(&k, &v, &op); err != nil {
				t.Fatal(err)
			}
			out = append(out, itoa(int(k))+" "+v+" "+op)
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		return out
	}
	if got := fetch("FETCH ALL FROM c"); strings.Join(got, "|") != "1 a insert" {
		t.Fatalf("snapshot %q", got)
	}
	start := time.Now()
	if got := fetch("FETCH 10 FROM c"); len(got) != 0 || time.Since(start) < fetchWait/2 {
		t.Fatalf("idle fetch %q after %v", got, time.Since(start))
	}
	mustExec(t, c, "INSERT INTO s VALUES (2, 'b'), (3, 'c')", "FLUSH")
	if got := fetch("FETCH 1 FROM c"); strings.Join(got, "|") != "2 b insert" {
		t.Fatalf("first change %q", got)
	}
	if got := fetch("FETCH NEXT FROM c"); strings.Join(got, "|") != "3 c insert" {
		t.Fatalf("second change %q", got)
	}
	mustExec(t, c, "CLOSE c")
	if _, err := c.Exec(context.Background(), "FETCH 1 FROM c"); err == nil {
		t.Fatal("fetch from a closed cursor")
	}
	// A cursor over a plain query.
	mustExec(t, c, "DECLARE q CURSOR FOR SELECT k, v, 'x' AS op FROM v")
	if got := fetch("FETCH 2 FROM q"); len(got) != 2 {
		t.Fatalf("query cursor %q", got)
	}
}
