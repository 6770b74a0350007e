package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// TestPrepareExecute prepares statements once and executes them with
// several sets of values: an INSERT whose text values hold quotes and
// `$1` (bound as values, never spliced into the text), a point read of a
// TABLE that goes on answering after the table is re-created (the
// general path takes over), LIMIT parameters, typed constants in a
// select list, and parameters without values.
func TestPrepareExecute(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"strict": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		if _, err := e.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	prepare := func(sql string) *Prepared {
		t.Helper()
		p, err := e.Prepare(ctx, sql)
		if err != nil {
			t.Fatalf("prepare %s: %v", sql, err)
		}
		return p
	}
	run := func(p *Prepared, args ...types.Value) string {
		t.Helper()
		res, err := e.Execute(ctx, p, args)
		if err != nil {
			t.Fatalf("execute %v: %v", args, err)
		}
		return fmt.Sprint(res.Rows)
	}
	exec("CREATE TABLE kv (id BIGINT PRIMARY KEY, name VARCHAR)")

	ins := prepare("INSERT INTO kv VALUES ($1, $2)")
	if ins.NumParams() != 2 {
		t.Fatalf("NumParams %d", ins.NumParams())
	}
	if k, ok := ins.ParamKind(1); !ok || k != types.Int {
		t.Fatalf("$1 kind %v %v", k, ok)
	}
	for i, s := range []string{"it's", "$1", "'); DROP TABLE kv; --"} {
		run(ins, types.IntValue(int64(i+1)), types.StringValue(s))
	}
	run(ins, types.IntValue(4), types.Value{})

	get := prepare("SELECT name FROM kv WHERE id = $1")
	if !get.IsPointQuery() {
		t.Fatal("not a point query")
	}
	for id, want := range map[int64]string{1: "[it's]", 2: "[$1]", 3: "['); DROP TABLE kv; --]", 4: "[NULL]", 5: "[]"} {
		if got := run(get, types.IntValue(id)); got != want {
			t.Errorf("id %d: %s, want %s", id, got, want)
		}
	}
	if got := run(get, types.Value{}); got != "[]" {
		t.Errorf("id NULL: %s", got)
	}

	lim := prepare("SELECT id FROM kv ORDER BY id DESC LIMIT $1 OFFSET $2")
	if k, ok := lim.ParamKind(1); !ok || k != types.Int {
		t.Fatalf("LIMIT $1 kind %v %v", k, ok)
	}
	if got := run(lim, types.IntValue(2), types.IntValue(1)); got != "[3 2]" {
		t.Errorf("LIMIT 2 OFFSET 1: %s", got)
	}
	if got := run(lim, types.Value{}, types.Value{}); got != "[4 3 2 1]" {
		t.Errorf("LIMIT NULL: %s", got)
	}
	if _, err := e.Execute(ctx, lim, []types.Value{types.IntValue(-1), types.IntValue(0)}); sqlerr.Code(err) != "2201W" {
		t.Errorf("LIMIT -1: %v", err)
	}

	consts := prepare("SELECT $1 + 1 AS n, $2 AS s, $2 || $1 AS cat FROM kv WHERE id = 1")
	sch, err := e.DescribePrepared(ctx, consts, []types.Value{types.IntValue(1), types.StringValue("x")})
	if err != nil || sch[0].Type != types.Int || sch[1].Type != types.String {
		t.Fatalf("describe: %v %v", sch, err)
	}
	if got := run(consts, types.IntValue(41), types.StringValue("'$1'")); got != "[42 '$1' '$1'41]" {
		t.Errorf("constants: %s", got)
	}

	// A statement with a CTE, a subquery, a UNION and an aggregate runs
	// from one parsed tree again and again.
	multi := prepare("WITH small AS (SELECT id FROM kv WHERE id <= $1) SELECT count(*) FROM (SELECT id FROM small UNION ALL SELECT id FROM kv WHERE id IN (SELECT id FROM small) AND id > $2) AS u")
	for i, want := range []string{"[1]", "[4]", "[6]", "[2]"} {
		n, m := []int64{1, 2, 3, 1}[i], []int64{1, 0, 0, 0}[i]
		if got := run(multi, types.IntValue(n), types.IntValue(m)); got != want {
			t.Errorf("multi %d %d: %s, want %s", n, m, got, want)
		}
	}

	// INSERT ... SELECT with parameters in its query.
	copyRows := prepare("INSERT INTO kv (id, name) SELECT id + $1, name || $2 FROM kv WHERE id <= $3")
	if copyRows.NumParams() != 3 {
		t.Fatalf("INSERT ... SELECT NumParams %d", copyRows.NumParams())
	}
	if res, err := e.Execute(ctx, copyRows, []types.Value{types.IntValue(10), types.StringValue("!"), types.IntValue(2)}); err != nil || res.Tag != "INSERT 0 2" {
		t.Fatalf("INSERT ... SELECT: %v %v", res, err)
	}
	if got := run(get, types.IntValue(12)); got != "[$1!]" {
		t.Errorf("id 12: %s", got)
	}
	exec("DELETE FROM kv WHERE id > 10")

	// Too few values: the missing parameter is undefined.
	if _, err := e.Execute(ctx, consts, []types.Value{types.IntValue(1)}); sqlerr.Code(err) != sqlerr.UndefinedParameter {
		t.Errorf("missing $2: %v", err)
	}
	if _, err := e.Exec(ctx, "SELECT name FROM kv WHERE id = $1"); sqlerr.Code(err) != sqlerr.UndefinedParameter {
		t.Errorf("$1 in Exec: %v", err)
	}
	// A view body has no parameters.
	if _, err := e.Exec(ctx, "CREATE MATERIALIZED VIEW bad AS SELECT id FROM kv WHERE id = $1"); sqlerr.Code(err) != sqlerr.UndefinedParameter {
		t.Errorf("$1 in a view: %v", err)
	}

	// The table re-created: the prepared point read plans the query.
	exec("DROP TABLE kv")
	exec("CREATE TABLE kv (id BIGINT PRIMARY KEY, name VARCHAR)")
	exec("INSERT INTO kv VALUES (1, 'again')")
	if got := run(get, types.IntValue(1)); got != "[again]" {
		t.Errorf("after re-create: %s", got)
	}
	if got := run(get, types.IntValue(1)); got != "[again]" {
		t.Errorf("after re-create, again: %s", got)
	}
}
