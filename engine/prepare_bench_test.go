package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// BenchmarkPreparedPointQuery is the engine's part of a prepared point
// query over the wire (`SELECT * FROM kv WHERE id = $1` on a 10,000-row
// TABLE), without the sockets and the clients that make the pgwire
// benchmarks noisy:
//
//	go test -run XXX -bench PreparedPointQuery -benchmem ./engine
//
// execute is a statement prepared once, executed with a new key each
// time (pgx's default statement cache); prepare_execute is Prepare then
// Execute each time (pgx's exec mode sends Parse for every query);
// kinds_point_run is what a Parse and Execute cost the engine before
// Prepare existed, ParamKinds and PreparePointQuery (a parse each) then
// RunPointQuery, for comparison.
func BenchmarkPreparedPointQuery(b *testing.B) {
	const keys = 10000
	e, err := Open(Options{StateDir: b.TempDir(), Settings: map[string]string{"strict": "off"}})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Exec(ctx, "CREATE TABLE kv (id BIGINT PRIMARY KEY, v BIGINT, pad VARCHAR)"); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < keys; i += 1000 {
		var q strings.Builder
		q.WriteString("INSERT INTO kv VALUES ")
		for j := i; j < i+1000; j++ {
			if j > i {
				q.WriteString(", ")
			}
			fmt.Fprintf(&q, "(%d, %d, 'row %d')", j, j*7, j)
		}
		if _, err := e.Exec(ctx, q.String()); err != nil {
			b.Fatal(err)
		}
	}
	const sql = "SELECT * FROM kv WHERE id = $1"
	check := func(res *Result, err error, k int64) {
		if err != nil || len(res.Rows) != 1 || res.Rows[0][1].I != 7*k {
			b.Fatalf("k=%d: %v %v", k, res, err)
		}
	}
	b.Run("execute", func(b *testing.B) {
		p, err := e.Prepare(ctx, sql)
		if err != nil || !p.IsPointQuery() {
			b.Fatalf("prepare: %v", err)
		}
		for i := 0; i < b.N; i++ {
			k := int64(i % keys)
			res, err := e.Execute(ctx, p, []types.Value{types.IntValue(k)})
			check(res, err, k)
		}
	})
	b.Run("prepare_execute", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			k := int64(i % keys)
			p, err := e.Prepare(ctx, sql)
			if err != nil {
				b.Fatal(err)
			}
			res, err := e.Execute(ctx, p, []types.Value{types.IntValue(k)})
			check(res, err, k)
		}
	})
	b.Run("kinds_point_run", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			k := int64(i % keys)
			_ = e.ParamKinds(ctx, sql)
			p := e.PreparePointQuery(ctx, sql)
			res, err := e.RunPointQuery(ctx, p, []types.Value{types.IntValue(k)})
			check(res, err, k)
		}
	})
}
