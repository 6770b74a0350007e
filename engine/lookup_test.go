package engine

import (
	"context"
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestPointQuery(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"strict": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, q := range []string{
		"CREATE SOURCE s (k BIGINT, v VARCHAR) WITH (connector='memory')",
		"CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS c, max(v) AS mv FROM s GROUP BY k",
		"INSERT INTO s VALUES (1,'a'), (2,'b'), (2,'c')",
		"FLUSH",
	} {
		if _, err := e.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	tests := []struct {
		sql  string
		args []types.Value
		want string // rows, or "" when the text is not a point query
	}{
		{"SELECT * FROM v WHERE k = $1", []types.Value{types.IntValue(2)}, "[[2 2 c]]"},
		{"SELECT mv, c AS n FROM v x WHERE $1 = x.k", []types.Value{types.StringValue("1")}, "[[a 1]]"},
		{"SELECT * FROM v WHERE k = $1", []types.Value{types.IntValue(3)}, "[]"},
		{"SELECT * FROM v WHERE k = $1", []types.Value{types.NullValue}, "[]"},
		{"SELECT * FROM v WHERE k = $1 AND c = $2", nil, ""},
		{"SELECT * FROM v WHERE c = $1", nil, ""},
		{"SELECT * FROM s WHERE k = $1", nil, ""},
		{"SELECT k + 1 FROM v WHERE k = $1", nil, ""},
		{"SELECT * FROM v WHERE k = 2", nil, "[[2 2 c]]"},
		{"SELECT * FROM v WHERE k = 1.5", nil, ""},
		{"SELECT c FROM v WHERE (k = CAST('1' AS BIGINT))", nil, "[[1]]"},
	}
	for _, tt := range tests {
		p := e.PreparePointQuery(context.Background(), tt.sql)
		if (p == nil) != (tt.want == "") {
			t.Fatalf("%s: prepared %v, want point query %v", tt.sql, p != nil, tt.want != "")
		}
		if p == nil {
			continue
		}
		res, err := e.RunPointQuery(context.Background(), p, tt.args)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		if got := fmtRows(res.Rows); got != tt.want {
			t.Errorf("%s %v: got %s, want %s", tt.sql, tt.args, got, tt.want)
		}
	}
	// New rows reach the key index built by the first lookup.
	if _, err := e.Exec(ctx, "INSERT INTO s VALUES (1, 'z'); FLUSH"); err != nil {
		t.Fatal(err)
	}
	p := e.PreparePointQuery(context.Background(), "SELECT * FROM v WHERE k = $1")
	res, err := e.RunPointQuery(context.Background(), p, []types.Value{types.IntValue(1)})
	if err != nil || fmtRows(res.Rows) != "[[1 2 z]]" {
		t.Fatalf("after update: %v %v", res, err)
	}
	if _, err := e.Exec(ctx, "DROP MATERIALIZED VIEW v"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RunPointQuery(context.Background(), p, []types.Value{types.IntValue(1)}); err != ErrStalePointQuery {
		t.Fatalf("after drop: %v, want ErrStalePointQuery", err)
	}
}

func fmtRows(rows []types.Row) string {
	s := "["
	for i, r := range rows {
		if i > 0 {
			s += " "
		}
		s += "["
		for j, v := range r {
			if j > 0 {
				s += " "
			}
			s += v.String()
		}
		s += "]"
	}
	return s + "]"
}

func TestDescribeAndParamKinds(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir(), Settings: map[string]string{"strict": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Exec(ctx, "CREATE SOURCE s (k BIGINT, v VARCHAR, ts TIMESTAMP) WITH (connector='memory'); CREATE MATERIALIZED VIEW w AS SELECT k, v FROM s"); err != nil {
		t.Fatal(err)
	}
	sch, err := e.Describe(ctx, "SELECT k, v FROM w WHERE k = NULL")
	if err != nil || len(sch) != 2 || sch[0].Type != types.Int || sch[1].Type != types.String {
		t.Fatalf("describe: %v %v", sch, err)
	}
	if sch, err := e.Describe(ctx, "INSERT INTO s VALUES (1, 'a', NULL)"); err != nil || sch != nil {
		t.Fatalf("describe insert: %v %v", sch, err)
	}
	kinds := e.ParamKinds(context.Background(), "SELECT * FROM s WHERE k = $1 AND $2 < ts AND v IN ($3, $4) AND k + $5 > 0")
	want := map[int]types.Kind{1: types.Int, 2: types.Timestamp, 3: types.String, 4: types.String}
	if len(kinds) != len(want) {
		t.Fatalf("param kinds %v, want %v", kinds, want)
	}
	for n, k := range want {
		if kinds[n] != k {
			t.Errorf("$%d: %v, want %v", n, kinds[n], k)
		}
	}
	if kinds := e.ParamKinds(context.Background(), "SELECT x.k FROM w AS x WHERE x.v = $1 AND $2 = x.k"); kinds[1] != types.String || kinds[2] != types.Int {
		t.Errorf("aliased param kinds %v", kinds)
	}
	kinds = e.ParamKinds(context.Background(), "INSERT INTO s (v, k) VALUES ($1, $2)")
	if kinds[1] != types.String || kinds[2] != types.Int {
		t.Errorf("insert param kinds %v", kinds)
	}
}
