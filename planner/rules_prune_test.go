package planner_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// pruneCatalog is a small catalog: two sources with watermarks, one
// without, and a view to query ad hoc.
func pruneCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	add := func(o *catalog.Object) {
		if err := cat.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	col := func(name string, k types.Kind) types.Column { return types.Column{Name: name, Type: k} }
	add(&catalog.Object{Kind: catalog.Source, Name: "bid", TimeCol: 5, Delay: 4_000_000, Schema: types.Schema{
		col("auction", types.Int), col("bidder", types.Int), col("price", types.Int), col("channel", types.String),
		col("url", types.String), col("date_time", types.Timestamp), col("extra", types.String),
	}})
	add(&catalog.Object{Kind: catalog.Source, Name: "auction", TimeCol: 2, Schema: types.Schema{
		col("id", types.Int), col("item_name", types.String), col("date_time", types.Timestamp),
		col("seller", types.Int), col("category", types.Int),
	}})
	add(&catalog.Object{Kind: catalog.Source, Name: "clicks", TimeCol: -1, Schema: types.Schema{
		col("user_id", types.Int), col("url", types.String), col("ts", types.Timestamp),
	}})
	add(&catalog.Object{Kind: catalog.View, Name: "v", TimeCol: -1, Schema: types.Schema{
		col("a", types.Int), col("b", types.String), col("c", types.Int), col("d", types.Timestamp),
	}})
	return cat
}

// scanCols lists each Scan's source columns, left to right, as
// "name:[cols] tc=n".
func scanCols(n planner.Node) []string {
	var out []string
	var walk func(planner.Node)
	walk = func(n planner.Node) {
		if s, ok := n.(*planner.Scan); ok {
			out = append(out, fmt.Sprintf("%s:%v tc=%d", s.Name, s.Cols, s.TimeCol))
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return out
}

func TestPruneColumnsViews(t *testing.T) {
	tests := []struct {
		name  string
		sql   string
		scans []string
	}{
		{"project", `CREATE MATERIALIZED VIEW m AS SELECT auction, price * 2 AS p FROM bid`,
			[]string{"bid:[0 2 5] tc=2"}},
		{"filter reads more than the projection", `CREATE MATERIALIZED VIEW m AS SELECT price FROM bid WHERE channel = 'x'`,
			[]string{"bid:[2 3 5] tc=2"}},
		{"no watermark", `CREATE MATERIALIZED VIEW m AS SELECT url FROM clicks`,
			[]string{"clicks:[1] tc=-1"}},
		{"count star keeps one column", `CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM clicks STATE TTL INTERVAL '1' HOUR`,
			[]string{"clicks:[0] tc=-1"}},
		{"ttl aggregate keeps the watermark", `CREATE MATERIALIZED VIEW m AS SELECT bidder, sum(price) AS s FROM bid GROUP BY bidder STATE TTL INTERVAL '1' HOUR`,
			[]string{"bid:[1 2 5] tc=2"}},
		{"interval join", `CREATE MATERIALIZED VIEW m AS SELECT a.item_name, b.price FROM auction a JOIN bid b
			ON a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.date_time + INTERVAL '1' MINUTE
			WHERE b.bidder > a.seller`,
			[]string{"auction:[0 1 2 3] tc=2", "bid:[0 1 2 5] tc=3"}},
		{"window below a join", `CREATE MATERIALIZED VIEW m AS
			SELECT b.auction FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) b
			JOIN (SELECT max(price) AS mp, window_start FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_start) b1
			ON b.price = b1.mp AND b.window_start = b1.window_start LATE DATA DROP`,
			// PlanView prunes again once the contract is known (no side
			// table here), so the aggregate side reads price and date_time.
			[]string{"bid:[0 2 5] tc=2", "bid:[2 5] tc=1"}},
		// A keyed Top-N stores only its partition, ORDER BY and rank
		// columns, the watermark and what the view reads.
		{"keyed top-n", `CREATE MATERIALIZED VIEW m AS SELECT auction, price FROM (
			SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bid) t
			WHERE rn <= 1 STATE TTL INTERVAL '1' HOUR`,
			[]string{"bid:[0 2 5] tc=2"}},
		{"keyed top-n ordered by a column the view drops", `CREATE MATERIALIZED VIEW m AS SELECT auction FROM (
			SELECT *, RANK() OVER (PARTITION BY auction ORDER BY bidder) AS rn FROM bid) t
			WHERE rn <= 2 STATE TTL INTERVAL '1' HOUR`,
			[]string{"bid:[0 1 5] tc=2"}},
		// Nexmark q9's shape: the auction's columns the view does not
		// read (seller, category) leave the join's state too.
		{"keyed top-n over a join", `CREATE MATERIALIZED VIEW m AS SELECT id, item_name, price FROM (
			SELECT A.*, B.price, B.date_time AS bid_time,
				ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time) AS rn
			FROM auction A, bid B
			WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.date_time + INTERVAL '1' MINUTE) t
			WHERE rn <= 1 STATE TTL INTERVAL '1' HOUR`,
			[]string{"auction:[0 1 2] tc=2", "bid:[0 2 5] tc=2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat := pruneCatalog(t)
			vp := planView(t, cat, tc.sql)
			if got := scanCols(vp.Optimized); !slices.Equal(got, tc.scans) {
				t.Errorf("scans = %q, want %q\n%s", got, tc.scans, planner.Format(vp.Optimized))
			}
			if !slices.Contains(vp.Rules, "PruneColumns") {
				t.Errorf("PruneColumns not in trace %v", vp.Rules)
			}
			sameSchema(t, vp.Logical.Schema(), vp.Optimized.Schema())
			checkPlan(t, cat, vp.Optimized)
			opt, _ := planner.Optimize(vp.Logical)
			if _, again := planner.PruneColumns(opt); again {
				t.Errorf("PruneColumns is not idempotent:\n%s", planner.Format(opt))
			}
		})
	}
}

// TestPruneColumnsAfterContract runs the pass again on a view plan whose
// contract is attached: below a window it prunes, unless late rows go to
// a side table (which holds the source's columns).
func TestPruneColumnsAfterContract(t *testing.T) {
	tests := []struct {
		name  string
		late  string
		scans []string
	}{
		{"drop", "LATE DATA DROP", []string{"bid:[0 2 5] tc=2"}},
		{"side output", "LATE DATA SIDE OUTPUT late", []string{"bid:[0 1 2 3 4 5 6] tc=5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat := pruneCatalog(t)
			vp := planView(t, cat, `CREATE MATERIALIZED VIEW m AS
				SELECT auction, window_start, max(price) AS top, count(*) AS n
				FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND)
				GROUP BY auction, window_start `+tc.late)
			out, _ := planner.PruneColumns(vp.Optimized)
			if got := scanCols(out); !slices.Equal(got, tc.scans) {
				t.Errorf("scans = %q, want %q\n%s", got, tc.scans, planner.Format(out))
			}
			sameSchema(t, vp.Optimized.Schema(), out.Schema())
			checkPlan(t, cat, out)
			if w := windowAgg(out); w == nil || w.Input.Schema()[w.Window.TimeCol].Name != "date_time" {
				t.Errorf("window time column lost:\n%s", planner.Format(out))
			}
		})
	}
}

// TestPruneColumnsQueries covers ad-hoc queries (Sort, Limit, Aggregate
// over a view snapshot).
func TestPruneColumnsQueries(t *testing.T) {
	tests := []struct {
		sql   string
		scans []string
	}{
		{`SELECT c FROM v ORDER BY c DESC LIMIT 2`, []string{"v:[2] tc=-1"}},
		{`SELECT b, c FROM v WHERE a > 1 ORDER BY 2`, []string{"v:[0 1 2] tc=-1"}},
		{`SELECT b, sum(c) AS s FROM v GROUP BY b`, []string{"v:[1 2] tc=-1"}},
		{`SELECT * FROM v`, []string{"v:[0 1 2 3] tc=-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			cat := pruneCatalog(t)
			st, err := parser.Parse(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			n, err := planner.BuildQuery(st[0].(*parser.QueryStmt), cat, true, "")
			if err != nil {
				t.Fatal(err)
			}
			opt, _ := planner.Optimize(n)
			if got := scanCols(opt); !slices.Equal(got, tc.scans) {
				t.Errorf("scans = %q, want %q\n%s", got, tc.scans, planner.Format(opt))
			}
			sameSchema(t, n.Schema(), opt.Schema())
			checkPlan(t, cat, opt)
		})
	}
}

// TestPruneColumnsRemapsEverything builds a plan by hand whose every
// column reference moves: join keys, times, residual, aggregate groups
// and arguments, window time column, sort keys.
func TestPruneColumnsRemapsEverything(t *testing.T) {
	cat := pruneCatalog(t)
	bid, _ := cat.Get("bid")
	auc, _ := cat.Get("auction")
	scan := func(o *catalog.Object) *planner.Scan {
		s := &planner.Scan{Kind: planner.ScanSource, Name: o.Name, Out: o.Schema, TimeCol: o.TimeCol}
		for i := range o.Schema {
			s.Cols = append(s.Cols, i)
		}
		return s
	}
	ref := func(i int, s types.Schema) *planner.ColRef {
		return &planner.ColRef{Index: i, Name: s[i].Name, T: s[i].Type}
	}
	// auction (5 cols) ⋈ WindowAssign(bid) (9 cols): 14 columns.
	wa := &planner.WindowAssign{Input: scan(bid), Window: planner.WindowSpec{Kind: "tumble", TimeCol: 5, Size: 10_000_000, Slide: 10_000_000}}
	left := scan(auc)
	js := append(append(types.Schema{}, left.Out...), wa.Schema()...)
	join := &planner.Join{
		Left: left, Right: wa, Kind: planner.IntervalJoin,
		LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 2, RightTime: 5, Lower: 0, Upper: 60_000_000,
		Residual: &planner.Call{Fn: ">", Args: []planner.Scalar{ref(6, js), ref(3, js)}, T: types.Bool},
	}
	// group by category (4) and window_start (12); sum(price) (7).
	agg := &planner.Aggregate{Input: join, GroupCols: []int{4, 12}, Names: []string{"category", "window_start", "total", "n"},
		Aggs: []planner.AggCall{{Fn: "sum", Arg: 7, Name: "sum", T: types.Int}, {Fn: "count", Arg: 8, Name: "count", T: types.Int}}}
	as := agg.Schema()
	proj := &planner.Project{Input: agg, Exprs: []planner.Scalar{ref(1, as), ref(2, as)}, Names: []string{"ws", "total"}}
	root := &planner.Sort{Input: proj, Keys: []planner.SortKey{{Col: 1, Desc: true}}}

	out, ok := planner.PruneColumns(root)
	if !ok {
		t.Fatal("PruneColumns did not fire")
	}
	got := planner.Format(out)
	checkPlan(t, cat, out)
	sameSchema(t, root.Schema(), out.Schema())
	j := findJoin(out)
	if j == nil {
		t.Fatalf("no join:\n%s", got)
	}
	ls, rs := j.Left.Schema(), j.Right.Schema()
	if ls[j.LeftKeys[0]].Name != "id" || rs[j.RightKeys[0]].Name != "auction" ||
		ls[j.LeftTime].Name != "date_time" || rs[j.RightTime].Name != "date_time" {
		t.Errorf("join columns not remapped:\n%s", got)
	}
	used := map[int]bool{}
	planner.ColumnsUsed(j.Residual, used)
	all := append(append(types.Schema{}, ls...), rs...)
	for c := range used {
		if n := all[c].Name; n != "bidder" && n != "seller" {
			t.Errorf("residual reads %s:\n%s", n, got)
		}
	}
	a := findAgg(out)
	in := a.Input.Schema()
	if in[a.GroupCols[0]].Name != "category" || in[a.GroupCols[1]].Name != "window_start" || in[a.Aggs[0].Arg].Name != "price" {
		t.Errorf("aggregate not remapped:\n%s", got)
	}
	if len(a.Aggs) != 1 {
		t.Errorf("unused count() kept:\n%s", got)
	}
	if !strings.Contains(got, "Scan source auction cols=[id, date_time, seller, category]") ||
		!strings.Contains(got, "Scan source bid cols=[auction, bidder, price, date_time]") {
		t.Errorf("scans not pruned:\n%s", got)
	}
}

func planView(t *testing.T, cat planner.Resolver, sql string) *planner.ViewPlan {
	t.Helper()
	st, err := parser.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	vp, err := planner.PlanView(st[0].(*parser.CreateViewStmt), cat, planner.Settings{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return vp
}

func sameSchema(t *testing.T, want, got types.Schema) {
	t.Helper()
	if !slices.Equal(want, got) {
		t.Errorf("schema changed: %v, want %v", got, want)
	}
}

func windowAgg(n planner.Node) *planner.WindowAggregate {
	if w, ok := n.(*planner.WindowAggregate); ok {
		return w
	}
	for _, c := range n.Children() {
		if w := windowAgg(c); w != nil {
			return w
		}
	}
	return nil
}

func findJoin(n planner.Node) *planner.Join {
	if j, ok := n.(*planner.Join); ok {
		return j
	}
	for _, c := range n.Children() {
		if j := findJoin(c); j != nil {
			return j
		}
	}
	return nil
}

func findAgg(n planner.Node) *planner.Aggregate {
	if a, ok := n.(*planner.Aggregate); ok {
		return a
	}
	for _, c := range n.Children() {
		if a := findAgg(c); a != nil {
			return a
		}
	}
	return nil
}

// checkPlan checks that every column reference of the plan is within its
// input and that every Scan's output matches the source columns it reads.
func checkPlan(t *testing.T, cat planner.Resolver, n planner.Node) {
	t.Helper()
	for _, c := range n.Children() {
		checkPlan(t, cat, c)
	}
	var in types.Schema
	if ch := n.Children(); len(ch) == 1 {
		in = ch[0].Schema()
	}
	bad := func(format string, args ...any) {
		t.Errorf("%s: %s\n%s", n, fmt.Sprintf(format, args...), planner.Format(n))
	}
	refs := func(s planner.Scalar, schema types.Schema) {
		checkRefs(s, schema, bad)
	}
	inRange := func(what string, cols []int, schema types.Schema) {
		for _, c := range cols {
			if c < 0 || c >= len(schema) {
				bad("%s #%d out of range %d", what, c, len(schema))
			}
		}
	}
	switch x := n.(type) {
	case *planner.Scan:
		o, _ := cat.Get(x.Name)
		if len(x.Cols) != len(x.Out) {
			bad("%d cols, %d outputs", len(x.Cols), len(x.Out))
		}
		for i, c := range x.Cols {
			if i < len(x.Out) && o.Schema[c] != x.Out[i] {
				bad("output %d is %v, source column %d is %v", i, x.Out[i], c, o.Schema[c])
			}
		}
		if x.Kind == planner.ScanSource && o.TimeCol >= 0 && (x.TimeCol < 0 || x.Cols[x.TimeCol] != o.TimeCol) {
			bad("watermark column lost")
		}
	case *planner.Filter:
		refs(x.Pred, in)
	case *planner.Project:
		for _, e := range x.Exprs {
			refs(e, in)
		}
	case *planner.WindowAssign:
		inRange("time", []int{x.Window.TimeCol}, in)
	case *planner.WindowAggregate:
		inRange("time", []int{x.Window.TimeCol}, in)
		inRange("group", x.GroupCols, in)
		inRange("arg", aggArgs(x.Aggs), in)
	case *planner.Aggregate:
		inRange("group", x.GroupCols, in)
		inRange("arg", aggArgs(x.Aggs), in)
	case *planner.Join:
		ls, rs := x.Left.Schema(), x.Right.Schema()
		inRange("left key", x.LeftKeys, ls)
		inRange("right key", x.RightKeys, rs)
		if x.LeftTime >= 0 || x.RightTime >= 0 {
			inRange("left time", []int{x.LeftTime}, ls)
			inRange("right time", []int{x.RightTime}, rs)
		}
		if x.Residual != nil {
			refs(x.Residual, append(append(types.Schema{}, ls...), rs...))
		}
	case *planner.Sort:
		for _, k := range x.Keys {
			inRange("sort key", []int{k.Col}, in)
		}
	}
}

func aggArgs(aggs []planner.AggCall) []int {
	var out []int
	for _, a := range aggs {
		if a.Arg >= 0 {
			out = append(out, a.Arg)
		}
	}
	return out
}

// checkRefs checks each ColRef of s against schema: in range, and of the
// column's type when the reference records one.
func checkRefs(s planner.Scalar, schema types.Schema, bad func(string, ...any)) {
	used := map[int]bool{}
	planner.ColumnsUsed(s, used)
	for c := range used {
		if c < 0 || c >= len(schema) {
			bad("column #%d out of range %d in %s", c, len(schema), s)
		}
	}
	var walk func(planner.Scalar)
	walk = func(s planner.Scalar) {
		switch e := s.(type) {
		case *planner.ColRef:
			if e.Index < len(schema) && e.T != types.Null && e.T != schema[e.Index].Type {
				bad("%s is %v, column #%d is %v", e, e.T, e.Index, schema[e.Index].Type)
			}
		case *planner.Call:
			for _, a := range e.Args {
				walk(a)
			}
		case *planner.Cast:
			walk(e.Arg)
		case *planner.Case:
			if e.Operand != nil {
				walk(e.Operand)
			}
			for _, w := range e.Whens {
				walk(w.Cond)
				walk(w.Result)
			}
			if e.Else != nil {
				walk(e.Else)
			}
		}
	}
	walk(s)
}
