package planner_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/planner"
)

// TestCTEUsedTwiceIsShared checks that a CTE used twice is inlined at
// each use and that ShareIdenticalSubplans then computes it once.
func TestCTEUsedTwiceIsShared(t *testing.T) {
	vp := planView(t, pruneCatalog(t), `CREATE MATERIALIZED VIEW m AS
WITH w AS (SELECT auction, window_start, max(price) AS m
  FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY auction, window_start, window_end)
SELECT x.auction, x.m, y.m AS m2 FROM w AS x JOIN w AS y
ON x.auction = y.auction AND x.window_start = y.window_start
LATE DATA DROP`)
	if !slices.Contains(vp.Rules, "ShareIdenticalSubplans") {
		t.Fatalf("rules %v: the CTE's two uses were not shared", vp.Rules)
	}
	if n := len(planner.SharedNodes(vp.Optimized)); n != 1 {
		t.Fatalf("%d shared nodes, want 1:\n%s", n, planner.Format(vp.Optimized))
	}
}

// TestWindowOverSubqueryKeepsWatermark checks that TUMBLE over a
// subquery and over a CTE reads the source's watermark column through the
// subquery's projection and filter: the window plans and fires.
func TestWindowOverSubqueryKeepsWatermark(t *testing.T) {
	for name, sql := range map[string]string{
		"subquery": `CREATE MATERIALIZED VIEW m AS SELECT window_start, count(*) AS n
FROM TUMBLE((SELECT auction, date_time AS t FROM bid WHERE price > 5), t, INTERVAL '10' SECOND)
GROUP BY window_start, window_end LATE DATA DROP`,
		"cte": `CREATE MATERIALIZED VIEW m AS WITH c AS (SELECT auction, date_time AS t FROM bid WHERE price > 5)
SELECT window_start, count(*) AS n FROM TUMBLE(c, t, INTERVAL '10' SECOND)
GROUP BY window_start, window_end LATE DATA DROP`,
	} {
		t.Run(name, func(t *testing.T) {
			vp := planView(t, pruneCatalog(t), sql)
			got := planner.Format(vp.Optimized)
			if !strings.Contains(got, "WindowAggregate") || !strings.Contains(got, "price > 5") {
				t.Fatalf("plan has no window aggregate over the filtered source:\n%s", got)
			}
		})
	}
}
