package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
)

// BenchmarkTableKeyRange runs a 10-row key range and an ORDER BY key
// DESC LIMIT 10 over a 100,000-row TABLE, through the key index
// ("index") and through the general path that copies the table ("copy").
func BenchmarkTableKeyRange(b *testing.B) {
	e, err := Open(Options{StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Exec(ctx, `CREATE TABLE kv (id BIGINT PRIMARY KEY, v BIGINT, pad VARCHAR)`); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		var vals []string
		for j := i * 1000; j < (i+1)*1000; j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 'row %d')", j, 7*j, j))
		}
		if _, err := e.Exec(ctx, "INSERT INTO kv VALUES "+strings.Join(vals, ", ")); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []struct{ name, sql string }{
		{"range", "SELECT * FROM kv WHERE id BETWEEN 50000 AND 50009"},
		{"orderlimit", "SELECT * FROM kv ORDER BY id DESC LIMIT 10"},
	} {
		stmts, err := parser.Parse(q.sql)
		if err != nil {
			b.Fatal(err)
		}
		n, err := planner.BuildQuery(stmts[0].(*parser.QueryStmt), e.queryResolver(), true, "")
		if err != nil {
			b.Fatal(err)
		}
		n, _ = planner.Optimize(n)
		b.Run(q.name+"/index", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if res, err := e.Exec(ctx, q.sql); err != nil || len(res.Rows) != 10 {
					b.Fatal(err)
				}
			}
		})
		b.Run(q.name+"/copy", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if rows, err := exec.RunQuery(n, e.snapshot); err != nil || len(rows) != 10 {
					b.Fatal(err)
				}
			}
		})
	}
}
