package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// TestTableDMLTagsAndSinks: DELETE and UPDATE answer Postgres' tags, a
// sink FROM the table gets the deletes and upserts by key (an UPDATE of
// the key as a delete of the old key and an upsert of the new), and a
// sink FROM a view over the table gets the view's retractions.
func TestTableDMLTagsAndSinks(t *testing.T) {
	sinks := map[string]*recordSink{}
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
		sinks[spec.Name] = &recordSink{}
		return sinks[spec.Name], nil
	}})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tags := map[string]string{}
	for _, q := range []string{
		`CREATE TABLE dim (id BIGINT PRIMARY KEY, label VARCHAR)`,
		`CREATE SINK dim_out FROM dim WITH (connector = 'record')`,
		`CREATE MATERIALIZED VIEW per_label AS SELECT label, count(*) AS n FROM dim GROUP BY label`,
		`CREATE SINK per_label_out FROM per_label WITH (connector = 'record')`,
		`INSERT INTO dim VALUES (1, 'a'), (2, 'b'), (3, 'b')`,
		`DELETE FROM dim WHERE id = 2`,
		`UPDATE dim SET label = 'a' WHERE label = 'b'`,
		`UPDATE dim SET id = 10 WHERE id = 1`,
	} {
		res, err := e.Exec(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		tags[q] = res.Tag
	}
	if got := tags[`DELETE FROM dim WHERE id = 2`]; got != "DELETE 1" {
		t.Errorf("DELETE tag %q, want DELETE 1", got)
	}
	if got := tags[`UPDATE dim SET label = 'a' WHERE label = 'b'`]; got != "UPDATE 1" {
		t.Errorf("UPDATE tag %q, want UPDATE 1", got)
	}
	got := fmt.Sprint(sinks["dim_out"].changes)
	want := fmt.Sprint([]string{"upsert 1 a", "upsert 2 b", "upsert 3 b", "delete 2 b", "upsert 3 a", "delete 1 a", "upsert 10 a"})
	if got != want {
		t.Errorf("the table's sink got %s, want %s", got, want)
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	res, err := e.Exec(context.Background(), `SELECT * FROM per_label`)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(res.Rows); got != "[a 2]" {
		t.Errorf("per_label holds %s, want [a 2]", got)
	}
	res, err = e.Exec(context.Background(), `SHOW PIPELINES`)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Rows[0][:3].String(); got != "per_label dim per_label_out" {
		t.Errorf("SHOW PIPELINES: %s, want the view reading table dim", got)
	}
	edge := TopoEdge{From: "table:dim", To: "view:per_label", Label: "changelog"}
	if !slices.Contains(e.Topology().Edges, edge) {
		t.Errorf("the topology lacks %v: %v", edge, e.Topology().Edges)
	}
	if len(sinks["per_label_out"].changes) == 0 || !containsOp(sinks["per_label_out"].changes, "delete b") {
		t.Errorf("the view's sink got no retraction of group b: %v", sinks["per_label_out"].changes)
	}
}

func containsOp(changes []string, prefix string) bool {
	for _, c := range changes {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

// TestTableDMLDurableAcrossCrash: a DELETE or UPDATE acknowledged after
// the last checkpoint survives a crash (the table's rows are written
// before the statement returns) and the views over the table take it once
// on recovery, from the table's change log.
func TestTableDMLDurableAcrossCrash(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE dim (id BIGINT PRIMARY KEY, v BIGINT)`,
		`INSERT INTO dim VALUES (1, 10), (2, 20), (3, 30)`,
		`CREATE MATERIALIZED VIEW total AS SELECT count(*) AS n, sum(v) AS s FROM dim`,
	} {
		if _, err := e.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM dim WHERE id = 1`, `UPDATE dim SET v = v + 1`, `INSERT INTO dim VALUES (4, 4)`} {
		if _, err := e.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := e.Crash(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		e, err = Open(Options{StateDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		for q, want := range map[string]string{
			`SELECT * FROM dim`:   "[2 21 3 31 4 4]",
			`SELECT * FROM total`: "[3 56]",
		} {
			res, err := e.Exec(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(res.Rows); got != want {
				t.Errorf("%s after a crash: %s, want %s", q, got, want)
			}
		}
		if err := e.Crash(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestViewOverConnectorTable: a view over a TABLE fed by a changelog
// source takes the source's upserts (retracting the replaced row) and
// deletes (retracting the row, whatever the tombstone carries); one
// created afterwards starts from the table's rows; DML on it is refused.
func TestViewOverConnectorTable(t *testing.T) {
	r := func(id int64, name string) types.Row { return types.Row{types.IntValue(id), types.StringValue(name)} }
	up, del := connectors.Upsert, connectors.Delete
	reg := connectors.NewRegistry()
	reg.AddSource(connectors.SourceFactory{Name: "changes", New: func(context.Context, connectors.SourceSpec) (connectors.Source, error) {
		return &changeSource{
			rows: []types.Row{r(1, "a"), r(2, "b"), r(1, "b"), {types.IntValue(2), types.NullValue}, r(3, "c"), r(4, "c")},
			ops:  []connectors.Op{up, up, up, del, up, up},
		}, nil
	}})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR) WITH (connector = 'changes')`,
		`CREATE MATERIALIZED VIEW per_name AS SELECT name, count(*) AS n FROM customers GROUP BY name`,
		`FLUSH`,
		`CREATE MATERIALIZED VIEW later AS SELECT id FROM customers WHERE name = 'c'`,
	} {
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for q, want := range map[string]string{
		`SELECT * FROM per_name ORDER BY name`: "[b 1] [c 2]",
		`SELECT * FROM later ORDER BY id`:      "[3] [4]",
	} {
		res, err := e.Exec(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, row := range res.Rows {
			got = append(got, "["+row.String()+"]")
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: %v, want %s", q, got, want)
		}
	}
	if _, err := e.Exec(ctx, `DELETE FROM customers WHERE id = 1`); err == nil || !strings.Contains(err.Error(), "its rows come from its changes connector") {
		t.Errorf("DELETE on a connector table: %v", err)
	}
}
