package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// changeSource is a bounded one-partition source of upserts and deletes,
// standing in for an upsert topic or a change-event stream.
type changeSource struct {
	rows []types.Row
	ops  []connectors.Op
	off  int64
}

func (s *changeSource) Partitions() int { return 1 }
func (s *changeSource) Open(_ context.Context, offs []int64) error {
	if offs != nil {
		s.off = offs[0]
	}
	return nil
}
func (s *changeSource) Close() error { return nil }
func (s *changeSource) Read(_ context.Context, max int) (connectors.Batch, error) {
	if int(s.off) >= len(s.rows) {
		return connectors.Batch{}, connectors.ErrEndOfInput
	}
	end := min(len(s.rows), int(s.off)+max)
	b := connectors.Batch{Rows: s.rows[s.off:end], Ops: s.ops[s.off:end], Next: int64(end)}
	s.off = int64(end)
	return b, nil
}

func TestConnectorTableAppliesUpsertsAndDeletes(t *testing.T) {
	r := func(id int64, name string) types.Row { return types.Row{types.IntValue(id), types.StringValue(name)} }
	up, del := connectors.Upsert, connectors.Delete
	src := func() connectors.Source {
		return &changeSource{
			rows: []types.Row{r(1, "a"), r(2, "b"), r(1, "a2"), {types.IntValue(2), types.NullValue}, r(3, "c")},
			ops:  []connectors.Op{up, up, up, del, up},
		}
	}
	reg := connectors.NewRegistry()
	reg.AddSource(connectors.SourceFactory{Name: "changes", New: func(context.Context, connectors.SourceSpec) (connectors.Source, error) { return src(), nil }})
	dir := t.TempDir()
	open := func() *Engine {
		e, err := Open(Options{StateDir: dir, Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	ctx := context.Background()
	if _, err := e.Exec(ctx, `CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR) WITH (connector = 'changes')`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Exec(ctx, `CREATE TABLE nokey (id BIGINT, name VARCHAR) WITH (connector = 'changes')`); err == nil || !strings.Contains(err.Error(), "PRIMARY KEY") {
		t.Fatalf("a table without a key: %v", err)
	}
	if _, err := e.Exec(ctx, `FLUSH`); err != nil {
		t.Fatal(err)
	}
	want := "[1 a2] [3 c]"
	check := func(e *Engine, what string) {
		t.Helper()
		res, err := e.Exec(ctx, `SELECT id, name FROM customers`)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, row := range res.Rows {
			got = append(got, "["+row.String()+"]")
		}
		if strings.Join(got, " ") != want {
			t.Fatalf("%s: table = %v, want %s", what, got, want)
		}
	}
	check(e, "after the changes")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = open()
	defer e.Close()
	check(e, "after a restart")
}

func TestMemoryTableUpsertsOnInsert(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE dim (id BIGINT PRIMARY KEY, tier VARCHAR)`,
		`INSERT INTO dim VALUES (1, 'gold'), (2, 'silver')`,
		`INSERT INTO dim VALUES (1, 'platinum')`,
	} {
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	res, err := e.Exec(ctx, `SELECT id, tier FROM dim`)
	if err != nil || len(res.Rows) != 2 || res.Rows[0].String() != "1 platinum" {
		t.Fatalf("dim = %v (%v)", res, err)
	}
	if _, err := e.Exec(ctx, `INSERT INTO dim VALUES (NULL, 'x')`); err == nil || !strings.Contains(err.Error(), "not-null") {
		t.Fatalf("null key: %v", err)
	}
}
