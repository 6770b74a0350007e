package planner_test

import (
	"slices"
	"testing"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// endCatalog holds Nexmark-like sources: auction with and without its
// PRIMARY KEY (id), and bid with and without one (bid_id).
func endCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	col := func(name string, k types.Kind) types.Column { return types.Column{Name: name, Type: k} }
	auction := types.Schema{col("id", types.Int), col("item_name", types.String), col("date_time", types.Timestamp),
		col("expires", types.Timestamp), col("seller", types.Int)}
	bid := types.Schema{col("bid_id", types.Int), col("auction", types.Int), col("bidder", types.Int),
		col("price", types.Int), col("date_time", types.Timestamp)}
	for _, o := range []*catalog.Object{
		{Kind: catalog.Source, Name: "auction", TimeCol: 2, Delay: 4_000_000, Schema: auction, Key: []int{0}},
		{Kind: catalog.Source, Name: "auction_nokey", TimeCol: 2, Delay: 4_000_000, Schema: auction},
		{Kind: catalog.Source, Name: "bid", TimeCol: 4, Delay: 4_000_000, Schema: bid},
		{Kind: catalog.Source, Name: "bid_keyed", TimeCol: 4, Delay: 4_000_000, Schema: bid, Key: []int{0}},
	} {
		if err := cat.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return cat
}

// topNOf returns the TopN in n, or nil.
func topNOf(n planner.Node) *planner.TopN {
	if t, ok := n.(*planner.TopN); ok {
		return t
	}
	for _, c := range n.Children() {
		if t := topNOf(c); t != nil {
			return t
		}
	}
	return nil
}

// TestEndTopNPartitionsAtJoinCleanup: the rule ends a keyed Top-N's
// partitions where every partition pairs one row of a keyed source with
// a join that drops that row by a time conjunct, and nowhere else.
func TestEndTopNPartitionsAtJoinCleanup(t *testing.T) {
	q9 := func(auction, bid, partition, join, where, cols string) string {
		return `CREATE MATERIALIZED VIEW m AS SELECT ` + cols + ` FROM (
			SELECT A.*, B.bid_id, B.bidder, B.price, B.date_time AS bid_time,
				ROW_NUMBER() OVER (PARTITION BY ` + partition + ` ORDER BY B.price DESC, B.date_time) AS rn
			FROM ` + auction + ` A ` + join + ` ` + bid + ` B ON A.id = B.auction ` + where + `) t
			WHERE rn <= 1 STATE TTL INTERVAL '1' DAY`
	}
	const between = `AND B.date_time BETWEEN A.date_time AND A.expires`
	tests := []struct {
		name string
		sql  string
		end  string // the end's column and key ("" when the rule must not fire)
	}{
		{"nexmark q9", q9("auction", "bid", "A.id", "JOIN", between, "id, item_name, expires, price"), "expires auction.id"},
		{"the view does not read the end column", q9("auction", "bid", "A.id", "JOIN", between, "id, price"), "expires auction.id"},
		{"a partition finer than the key", q9("auction", "bid", "A.id, B.bidder", "JOIN", between, "id, bidder, price"), "expires auction.id"},
		{"strict upper bound", q9("auction", "bid", "A.id", "JOIN", `AND B.date_time > A.date_time AND B.date_time < A.expires`, "id, price"), "expires auction.id"},
		{"the other side keyed, ended by its own time", q9("auction_nokey", "bid_keyed", "B.bid_id", "JOIN", between, "bid_id, price"), "bid_time bid_keyed.bid_id"},
		{"no declared key", q9("auction_nokey", "bid", "A.id", "JOIN", between, "id, price"), ""},
		{"partition without the key", q9("auction", "bid", "B.bidder", "JOIN", between, "bidder, price"), ""},
		{"no time conjunct ends the keyed side", q9("auction", "bid", "A.id", "JOIN", `AND B.date_time >= A.date_time`, "id, price"), ""},
		{"outer join", q9("auction", "bid", "A.id", "LEFT JOIN", between, "id, price"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat := endCatalog(t)
			vp := planView(t, cat, tc.sql)
			top := topNOf(vp.Optimized)
			if top == nil {
				t.Fatalf("no TopN:\n%s", planner.Format(vp.Optimized))
			}
			got := ""
			if top.End != nil {
				got = top.Input.Schema()[top.End.Col].Name + " " + top.End.Key
			}
			if got != tc.end {
				t.Fatalf("end = %q, want %q\n%s", got, tc.end, planner.Format(vp.Optimized))
			}
			if fired := slices.Contains(vp.Rules, "EndTopNPartitionsAtJoinCleanup"); fired != (tc.end != "") {
				t.Errorf("rule in trace %v: %v, want %v", vp.Rules, fired, tc.end != "")
			}
			checkPlan(t, cat, vp.Optimized)
		})
	}
}
