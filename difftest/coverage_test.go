package difftest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/funcs"
)

// operatorSpellings are how the corpus writes the functions of
// the funcs registry that are operators or keywords, not name(...).
var operatorSpellings = map[string]string{
	"+": ` \+ `, "-": ` - `, "*": ` \* `, "/": ` / `, "%": ` % `, "neg": `\(- `,
	"=": ` = `, "<>": ` <> `, "<": ` < `, "<=": ` <= `, ">": ` > `, ">=": ` >= `,
	"is_not_distinct_from": ` <=> `, "is_distinct_from": ` IS DISTINCT FROM `, "and": ` AND `, "or": ` OR `, "not": `\(NOT `,
	"is_null": ` IS NULL`, "is_not_null": ` IS NOT NULL`, "is_true": ` IS TRUE`,
	"is_not_true": ` IS NOT TRUE`, "is_false": ` IS FALSE`, "is_not_false": ` IS NOT FALSE`,
	"in": ` IN \(`, "like": ` LIKE `, "ilike": ` ILIKE `, "||": ` \|\| `, "extract": `EXTRACT\(`,
	"[]": `\)\[`, "similar_to": ` SIMILAR TO `, "array": `ARRAY\[`, "->": ` -> `, "->>": ` ->> `, "#>": ` #> `, "#>>": ` #>> `, "@>": ` @> `, "?": ` \? `,
}

// notInViews are the functions a view cannot call as expressions: the
// clocks now() and PROCTIME() are only a temporal filter's bounds there
// (testdata/sqllogic/temporal_filter*.slt test them).
var notInViews = map[string]bool{"now": true, "proctime": true}

// TestCorpusCoversEveryFunction checks that the default run's cases call
// every scalar function the planner knows (funcs.Names), every
// aggregate and every window kind: a function added to the planner fails
// this test until a production calls it, so it joins the differential
// test.
func TestCorpusCoversEveryFunction(t *testing.T) {
	var text strings.Builder
	for _, seed := range defaultSeeds() {
		for _, q := range genQueries(genDataset(seed)) {
			text.WriteString(q.stream() + "\n")
		}
	}
	corpus := text.String()
	for _, fn := range funcs.Names() {
		if notInViews[fn] {
			continue
		}
		re, ok := operatorSpellings[fn]
		if !ok {
			re = `\b` + regexp.QuoteMeta(fn) + `\(`
		}
		if !regexp.MustCompile(re).MatchString(corpus) {
			t.Errorf("no case of the default run calls %s: add a production for it (funcs_test.go or exprProductions)", fn)
		}
	}
	for _, want := range []string{"count(*)", "count(DISTINCT ", "sum(", "sum(DISTINCT ", "min(", "max(", "avg(", "jsonb_agg(", "jsonb_object_agg(", "array_agg(", ") FILTER (WHERE ",
		"TUMBLE(", "HOP(", "SESSION(", "EMIT ON WINDOW CLOSE", "EMIT ON UPDATE", "STATE TTL", " <=> ",
		"CAST(ts AS DATE)", "DECIMAL(12,2)", " IS NOT DISTINCT FROM ", " ~ ", " ~* ", " !~ ", " !~* ", "ESCAPE '!'", " BETWEEN a.ts AND a.te", " AT TIME ZONE ", " AS TIME)", "TIME '12:00:00'"} {
		if !strings.Contains(corpus, want) {
			t.Errorf("no case of the default run contains %q", want)
		}
	}
}
