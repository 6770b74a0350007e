package difftest

import (
	"fmt"
	"strings"
)

// overAgg: running aggregates OVER (PARTITION BY k, or no partition,
// ORDER BY ts) with a ROWS n PRECEDING, RANGE interval PRECEDING or
// UNBOUNDED PRECEDING frame, in a view with LATE DATA DROP EMIT ON WINDOW
// CLOSE. No row of the dataset is late, so the view ends with every row
// the final watermark passed (ts below it), each with its frame's
// aggregates over all rows: Postgres' window functions over the whole
// table, kept where ts is below the watermark (a frame only looks back,
// so later rows change nothing). A ROWS frame orders peers (equal ts) by
// the rows' other columns in column order, NULLs last, in streamsql;
// Postgres' side spells that order out (strings in byte order).
//
// The updating form (no EMIT clause) draws as often: its view ends with
// every row, each corrected by the rows that arrived after it out of
// order, so it must equal Postgres' window functions over the whole
// table, the closing rows included. Half of those read a retracting
// input instead: the rows grouped by (k, ts) with max(v) and min(d), whose
// maxima and minima move as duplicates of a (k, ts) arrive, so the OVER
// takes deletes; their ts carries no watermark.
type overAgg struct {
	src   string
	wm    string
	keyed bool   // PARTITION BY k
	frame string // the frame clause, "" for ORDER BY alone
	rows  bool   // the frame is ROWS
	// updating is the updating form (LATE DATA DROP, no EMIT clause).
	updating bool
	// grouped reads (SELECT k, ts, max(v) AS v, min(d) AS d FROM src
	// GROUP BY k, ts), a retracting input (updating only).
	grouped bool
}

// overCalls are the aggregates every case computes, with their kinds.
var overCalls = []struct {
	sql string
	k   kind
}{
	{"sum(v)", kInt}, {"count(*)", kInt}, {"count(d)", kInt}, {"min(d)", kDec},
	{"max(v)", kInt}, {"sum(d)", kDec}, {"avg(v)", kFloat},
}

func genOverAgg(g *gen, ds *dataset) query {
	q := overAgg{src: sourceNames[g.pick(2)], keyed: g.pick(4) > 0}
	q.wm = ds.watermarkSQL(q.src)
	switch g.pick(5) {
	case 0, 1:
		q.frame, q.rows = fmt.Sprintf("ROWS BETWEEN %d PRECEDING AND CURRENT ROW", g.pick(4)), true
	case 2:
		q.frame = fmt.Sprintf("RANGE BETWEEN INTERVAL '%d seconds' PRECEDING AND CURRENT ROW", g.pick(6))
	case 3:
		q.frame, q.rows = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", true
	}
	q.updating = g.pick(2) == 0
	q.grouped = q.updating && g.pick(2) == 0
	return q
}

func (q overAgg) name() string {
	switch {
	case q.grouped:
		return q.formName() + "_retracting"
	case q.updating:
		return q.formName() + "_updating"
	}
	return q.formName()
}

// formName names the frame.
func (q overAgg) formName() string {
	switch {
	case q.frame == "":
		return "over_range_unbounded"
	case q.rows && strings.Contains(q.frame, "UNBOUNDED"):
		return "over_rows_unbounded"
	case q.rows:
		return "over_rows"
	}
	return "over_range"
}

// sql is the SELECT with the window's ORDER BY order.
func (q overAgg) sql(d dialect, order string) string {
	part := ""
	if q.keyed {
		part = "PARTITION BY k "
	}
	over := " OVER (" + part + "ORDER BY " + order + " " + q.frame + ")"
	calls := make([]string, len(overCalls))
	for i, c := range overCalls {
		calls[i] = c.sql + over
		if d == postgres && strings.HasPrefix(c.sql, "avg") {
			calls[i] = "CAST(" + calls[i] + " AS float8)"
		}
		calls[i] += fmt.Sprintf(" AS a%d", i)
	}
	from := q.src
	if q.grouped {
		from = "(SELECT k, ts, max(v) AS v, min(d) AS d FROM " + q.src + " GROUP BY k, ts) q"
	}
	return "SELECT k, v, d, ts, " + strings.Join(calls, ", ") + " FROM " + from
}

func (q overAgg) stream() string {
	if q.updating {
		return q.sql(streaming, "ts") + " LATE DATA DROP " + ttl
	}
	return q.sql(streaming, "ts") + " LATE DATA DROP EMIT ON WINDOW CLOSE " + ttl
}

func (q overAgg) batch() string {
	order := "ts"
	switch {
	case q.grouped && q.rows:
		// (k, ts) is unique, and streamsql orders peers by the input's
		// columns: k first.
		order = "ts, k"
	case q.rows:
		order = `ts, k, v, d, s COLLATE "C", f, te`
	}
	if q.updating {
		return q.sql(postgres, order)
	}
	return "SELECT * FROM (" + q.sql(postgres, order) + ") t WHERE ts < " + q.wm
}

func (q overAgg) kinds() []kind {
	ks := []kind{kInt, kInt, kDec, kTs}
	for _, c := range overCalls {
		ks = append(ks, c.k)
	}
	return ks
}
