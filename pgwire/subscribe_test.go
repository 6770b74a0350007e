package pgwire

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
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

// TestSubscribeRowLimit drives a SUBSCRIBE portal with row-limited
// Executes over pgx's pgproto3, as cursor drivers do: each Execute sends
// up to its limit of the rows that are there (waiting for the first one)
// and PortalSuspended, the next goes on where it stopped; a CancelRequest
// ends a waiting Execute with 57014; Close ends the subscription.
func TestSubscribeRowLimit(t *testing.T) {
	addr, _ := startServer(t)
	w := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, w,
		"CREATE SOURCE s (k BIGINT, v VARCHAR) WITH (connector = 'memory')",
		"CREATE MATERIALIZED VIEW v AS SELECT k, v FROM s",
		"INSERT INTO s VALUES (1, 'a'), (2, 'b')", "FLUSH")
	r := dialRaw(t, addr)
	r.send(&pgproto3.Parse{Name: "sub", Query: "SUBSCRIBE TO v"}, &pgproto3.Bind{DestinationPortal: "c", PreparedStatement: "sub"},
		&pgproto3.Describe{ObjectType: 'P', Name: "c"}, &pgproto3.Execute{Portal: "c", MaxRows: 1}, &pgproto3.Flush{})
	first := r.upTo("PortalSuspended")
	if !strings.HasPrefix(first, "ParseComplete\nBindComplete\ndesc k:20,v:25,op:25\nrow ") || strings.Count(first, "row ") != 1 {
		t.Fatalf("first Execute of 1 row:\n%s", first)
	}
	r.send(&pgproto3.Execute{Portal: "c", MaxRows: 10}, &pgproto3.Flush{})
	second := r.upTo("PortalSuspended")
	snapshot := []string{strings.TrimPrefix(first, "ParseComplete\nBindComplete\ndesc k:20,v:25,op:25\n"), second}
	sort.Strings(snapshot)
	if got := strings.Join(snapshot, "|"); got != "row 1,a,insert|row 2,b,insert" {
		t.Fatalf("the snapshot in two Executes: %q", got)
	}
	// The next Execute waits for a change.
	r.send(&pgproto3.Execute{Portal: "c", MaxRows: 1}, &pgproto3.Flush{})
	mustExec(t, w, "INSERT INTO s VALUES (3, 'c')", "FLUSH")
	if got := r.upTo("PortalSuspended"); got != "row 3,c,insert" {
		t.Fatalf("a change after the snapshot: %q", got)
	}
	r.send(&pgproto3.Close{ObjectType: 'P', Name: "c"}, &pgproto3.Execute{Portal: "c", MaxRows: 1}, &pgproto3.Sync{})
	if got := r.until(); got != "CloseComplete\nerror 34000" {
		t.Fatalf("Execute after Close of the portal:\n%s", got)
	}
	// The unnamed portal lives until Sync, its subscription with it.
	r.send(&pgproto3.Bind{PreparedStatement: "sub"}, &pgproto3.Execute{MaxRows: 2}, &pgproto3.Flush{})
	two := strings.Split(r.upTo("PortalSuspended"), "\n")
	r.send(&pgproto3.Execute{MaxRows: 2}, &pgproto3.Flush{})
	rows := append(two[1:], strings.Split(r.upTo("PortalSuspended"), "\n")...)
	sort.Strings(rows)
	if two[0] != "BindComplete" || len(two) != 3 || strings.Join(rows, "|") != "row 1,a,insert|row 2,b,insert|row 3,c,insert" {
		t.Fatalf("unnamed portal, the snapshot in Executes of 2 rows: %q then %q", two, rows)
	}
	r.send(&pgproto3.Sync{}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{})
	if got := r.until() + "|" + r.until(); got != "|error 34000" {
		t.Fatalf("Execute of the unnamed portal after Sync: %q", got)
	}
	r.send(&pgproto3.Query{String: "SHOW TimeZone"})
	if got := r.until(); got != "desc TimeZone:25\nrow UTC\ncomplete SHOW" {
		t.Fatalf("the session after the subscriptions: %q", got)
	}
}
