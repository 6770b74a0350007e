package pgwire

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

// TestPreparedParams runs parameterised statements in every pgx query
// mode: INSERT with text that holds quotes, `$1` and comment markers
// (the values are bound as typed constants, never spliced into the
// text), NULL parameters, point reads on a TABLE key and on a view key,
// LIMIT and OFFSET parameters, UPDATE and DELETE with parameters, and a
// parameter the statement was not given (42P02 in the simple protocol,
// where pgx sends the text as it is).
func TestPreparedParams(t *testing.T) {
	addr, _ := startServer(t)
	ctx := context.Background()
	for i, m := range execModes {
		t.Run(m.name, func(t *testing.T) {
			c := connect(t, addr, m.mode)
			kv, src, view := fmt.Sprintf("kv%d", i), fmt.Sprintf("ps%d", i), fmt.Sprintf("pv%d", i)
			mustExec(t, c,
				"CREATE TABLE "+kv+" (id BIGINT PRIMARY KEY, name VARCHAR)",
				"CREATE SOURCE "+src+" (k BIGINT, v BIGINT) WITH (connector = 'memory')",
				"CREATE MATERIALIZED VIEW "+view+" AS SELECT k, count(*) AS n, max(v) AS top FROM "+src+" GROUP BY k")
			texts := []string{
				"it's", "$1", "'); DELETE FROM " + kv + "; --", "$2 || '$1'", "a -- b /* c */", "$$dollar$$", `back\slash`,
			}
			for j, s := range texts {
				if _, err := c.Exec(ctx, "INSERT INTO "+kv+" VALUES ($1, $2)", int64(j+1), s); err != nil {
					t.Fatalf("insert %q: %v", s, err)
				}
			}
			if _, err := c.Exec(ctx, "INSERT INTO "+kv+" VALUES ($1, $2)", int64(100), nil); err != nil {
				t.Fatalf("insert NULL: %v", err)
			}
			for j, s := range texts {
				var got string
				if err := c.QueryRow(ctx, "SELECT name FROM "+kv+" WHERE id = $1", int64(j+1)).Scan(&got); err != nil || got != s {
					t.Fatalf("point read %d: %q, %v; want %q", j+1, got, err, s)
				}
			}
			var null *string
			if err := c.QueryRow(ctx, "SELECT name FROM "+kv+" WHERE id = $1", int64(100)).Scan(&null); err != nil || null != nil {
				t.Fatalf("NULL name: %v %v", null, err)
			}
			// = NULL matches nothing, on the point path and off it.
			for _, q := range []string{"SELECT name FROM " + kv + " WHERE id = $1", "SELECT name FROM " + kv + " WHERE id = $1 OR name = 'none'"} {
				rows, err := c.Query(ctx, q, nil)
				if err != nil {
					t.Fatal(err)
				}
				names, err := pgx.CollectRows(rows, pgx.RowTo[*string])
				if err != nil || len(names) != 0 {
					t.Fatalf("%s with NULL: %v %v", q, names, err)
				}
			}
			// A text parameter compared with text, off the point path.
			var id int64
			if err := c.QueryRow(ctx, "SELECT id FROM "+kv+" WHERE name = $1", "'); DELETE FROM "+kv+"; --").Scan(&id); err != nil || id != 3 {
				t.Fatalf("by name: %d %v", id, err)
			}

			// LIMIT and OFFSET parameters.
			rows, err := c.Query(ctx, "SELECT id FROM "+kv+" ORDER BY id LIMIT $1 OFFSET $2", int64(3), int64(2))
			if err != nil {
				t.Fatal(err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil || fmt.Sprint(ids) != "[3 4 5]" {
				t.Fatalf("LIMIT $1 OFFSET $2: %v %v", ids, err)
			}
			rows, err = c.Query(ctx, "SELECT id FROM "+kv+" ORDER BY id DESC LIMIT $1", nil)
			if err != nil {
				t.Fatal(err)
			}
			ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil || len(ids) != len(texts)+1 || ids[0] != 100 {
				t.Fatalf("LIMIT NULL: %v %v", ids, err)
			}

			// UPDATE and DELETE with parameters.
			if _, err := c.Exec(ctx, "UPDATE "+kv+" SET name = $2 WHERE id = $1", int64(1), "it''s $1"); err != nil {
				t.Fatalf("update: %v", err)
			}
			var name string
			if err := c.QueryRow(ctx, "SELECT name FROM "+kv+" WHERE id = $1", int64(1)).Scan(&name); err != nil || name != "it''s $1" {
				t.Fatalf("after update: %q %v", name, err)
			}
			if _, err := c.Exec(ctx, "DELETE FROM "+kv+" WHERE id >= $1", int64(100)); err != nil {
				t.Fatalf("delete: %v", err)
			}
			var n int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+kv).Scan(&n); err != nil || n != int64(len(texts)) {
				t.Fatalf("count after delete: %d %v", n, err)
			}

			// Point reads on a view's key, repeated: the statement is
			// prepared once and executed with different values.
			for k := int64(1); k <= 3; k++ {
				if _, err := c.Exec(ctx, "INSERT INTO "+src+" VALUES ($1, $2), ($1, $3)", k, k*10, k*20); err != nil {
					t.Fatalf("insert source: %v", err)
				}
			}
			mustExec(t, c, "FLUSH")
			for k := int64(1); k <= 3; k++ {
				var cnt, top int64
				if err := c.QueryRow(ctx, "SELECT n, top FROM "+view+" WHERE k = $1", k).Scan(&cnt, &top); err != nil || cnt != 2 || top != k*20 {
					t.Fatalf("view k=%d: %d %d %v", k, cnt, top, err)
				}
			}
			if err := c.QueryRow(ctx, "SELECT k FROM "+view+" WHERE top > $1 ORDER BY k LIMIT $2", int64(25), int64(1)).Scan(&id); err != nil || id != 2 {
				t.Fatalf("view LIMIT: %d %v", id, err)
			}

			// A parameter without a value.
			_, err = c.Exec(ctx, "SELECT name FROM "+kv+" WHERE id = $1")
			code, _ := pgCode(err)
			if m.mode == pgx.QueryExecModeSimpleProtocol && code != "42P02" {
				t.Fatalf("missing parameter: %v, want SQLSTATE 42P02", err)
			}
			if err == nil {
				t.Fatal("missing parameter: no error")
			}
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+kv).Scan(&n); err != nil {
				t.Fatalf("after the error: %v", err)
			}
		})
	}
}

// TestPreparedProtocol checks at the protocol level what a client's
// Parse gets: parameter types inferred from a LIMIT, a key and an INSERT
// column, the result description without running anything, a Bind with
// the wrong number of values refused with 08P01, and a statement that
// names $2 but was given one value refused with 42P02 at Execute, as in
// Postgres.
func TestPreparedProtocol(t *testing.T) {
	addr, _ := startServer(t)
	r := dialRaw(t, addr)
	r.send(&pgproto3.Query{String: "CREATE TABLE kv (id BIGINT PRIMARY KEY, name VARCHAR); INSERT INTO kv VALUES (1, 'a'), (2, 'b'), (3, 'c')"})
	if got := r.until(); got != "complete CREATE TABLE\ncomplete INSERT 0 3" {
		t.Fatalf("setup:\n%s", got)
	}
	steps := []struct {
		name string
		msgs []pgproto3.FrontendMessage
		want string
	}{
		{"LIMIT and key parameters are bigints", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "l", Query: "SELECT id, name FROM kv WHERE id >= $1 ORDER BY id LIMIT $2"},
			&pgproto3.Describe{ObjectType: 'S', Name: "l"}, &pgproto3.Sync{}},
			"ParseComplete\nparams [20 20]\ndesc id:20,name:25"},
		{"executed twice with other values", []pgproto3.FrontendMessage{
			&pgproto3.Bind{PreparedStatement: "l", Parameters: [][]byte{[]byte("2"), []byte("1")}}, &pgproto3.Execute{},
			&pgproto3.Bind{PreparedStatement: "l", Parameters: [][]byte{[]byte("1"), nil}}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"BindComplete\nrow 2,b\ncomplete SELECT 1\nBindComplete\nrow 1,a\nrow 2,b\nrow 3,c\ncomplete SELECT 3"},
		{"INSERT parameters take their columns' types", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "i", Query: "INSERT INTO kv (name, id) VALUES ($1, $2)"},
			&pgproto3.Describe{ObjectType: 'S', Name: "i"},
			&pgproto3.Bind{PreparedStatement: "i", Parameters: [][]byte{[]byte("x'$1"), []byte("4")}}, &pgproto3.Execute{},
			&pgproto3.Parse{Query: "SELECT name FROM kv WHERE id = $1"},
			&pgproto3.Bind{Parameters: [][]byte{[]byte("4")}}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"ParseComplete\nparams [25 20]\nNoData\nBindComplete\ncomplete INSERT 0 1\nParseComplete\nBindComplete\nrow x'$1\ncomplete SELECT 1"},
		{"too many values", []pgproto3.FrontendMessage{
			&pgproto3.Bind{PreparedStatement: "l", Parameters: [][]byte{[]byte("1"), []byte("1"), []byte("1")}}, &pgproto3.Sync{}},
			"error 08P01"},
		{"too few values", []pgproto3.FrontendMessage{
			&pgproto3.Bind{PreparedStatement: "l", Parameters: [][]byte{[]byte("1")}}, &pgproto3.Sync{}},
			"error 08P01"},
		{"a parameter the client declared fewer of", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "d", Query: "SELECT name FROM kv WHERE id = $1", ParameterOIDs: []uint32{20}},
			&pgproto3.Bind{PreparedStatement: "d", Parameters: [][]byte{[]byte("3")}}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"ParseComplete\nBindComplete\nrow c\ncomplete SELECT 1"},
		{"a declared type wins over the inferred one", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "t", Query: "SELECT id FROM kv WHERE name = $1", ParameterOIDs: []uint32{25}},
			&pgproto3.Describe{ObjectType: 'S', Name: "t"},
			&pgproto3.Bind{PreparedStatement: "t", Parameters: [][]byte{[]byte("b")}}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"ParseComplete\nparams [25]\ndesc id:20\nBindComplete\nrow 2\ncomplete SELECT 1"},
		{"no parameter $1 in a simple query", []pgproto3.FrontendMessage{
			&pgproto3.Query{String: "SELECT name FROM kv WHERE id = $1"}},
			"error 42P02"},
		{"a literal ? is not a parameter", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "SELECT name FROM kv WHERE id = ?"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"error 42601"}, // at Parse, as Postgres; Bind and Execute are skipped until Sync
	}
	for _, s := range steps {
		r.send(s.msgs...)
		if got := r.until(); got != s.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", s.name, got, s.want)
		}
	}
}
