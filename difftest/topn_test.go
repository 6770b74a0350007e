package difftest

import (
	"fmt"
	"strings"
)

// windowTopN: a window Top-N (ROW_NUMBER, RANK or DENSE_RANK partitioned
// by window_start, window_end and maybe k, filtered by rn <= N, rn < N or
// rn = 1) over a TUMBLE or HOP of a source's rows, or over a window
// aggregate of them. The ORDER BY lists every column that reaches the
// output besides the window and the rank, so ROW_NUMBER's order is total
// on both sides (streamsql breaks remaining ties by the other columns,
// Postgres leaves them unspecified). Postgres ranks the rows of the
// windows the final watermark closed.
type windowTopN struct {
	win    window
	src    string
	wm     string
	fn     string
	filter string // "<= N", "< N" or "= 1"
	keyed  bool   // PARTITION BY also k
	agg    bool   // over a window aggregate by k
	order  []string
	rankIn bool // the rank column is in the outer select list
}

func genWindowTopN(g *gen, ds *dataset) query {
	q := windowTopN{win: windowProductions[g.pick(2)](g), src: sourceNames[g.pick(2)]}
	q.wm = ds.watermarkSQL(q.src)
	q.fn = []string{"row_number", "rank", "dense_rank"}[g.pick(3)]
	q.filter = []string{fmt.Sprintf("<= %d", 1+g.pick(3)), fmt.Sprintf("< %d", 2+g.pick(3)), "= 1"}[g.pick(3)]
	q.keyed, q.agg, q.rankIn = g.pick(3) == 0, g.pick(3) == 0, g.pick(3) > 0
	cols := []string{"k", "v", "d", "ts"}
	if q.agg {
		cols = []string{"c", "s", "k"}
	}
	g.r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	for _, c := range cols {
		if g.pick(2) == 0 {
			c += " DESC"
		}
		q.order = append(q.order, c)
	}
	return q
}

func (q windowTopN) name() string {
	over := "tvf"
	if q.agg {
		over = "agg"
	}
	return "window_topn_" + q.fn + "_" + over
}

// cols are the ranked relation's columns besides the window.
func (q windowTopN) cols() string {
	if q.agg {
		return "k, c, s"
	}
	return "k, v, d, ts"
}

// ranked is the derived table: the rows (FROM from) with their rank.
func (q windowTopN) ranked(from string) string {
	part := "window_start, window_end"
	if q.keyed {
		part += ", k"
	}
	return "SELECT " + q.cols() + ", window_start, window_end, " + q.fn + "() OVER (PARTITION BY " + part +
		" ORDER BY " + strings.Join(q.order, ", ") + ") AS rn FROM " + from
}

// outer is the select list over the ranked rows.
func (q windowTopN) outer() string {
	s := "SELECT " + q.cols() + ", window_start, window_end"
	if q.rankIn {
		s += ", rn"
	}
	return s
}

func (q windowTopN) stream() string {
	from := q.win.tvf(q.src)
	if q.agg {
		from = "(SELECT k, window_start, window_end, count(*) AS c, sum(v) AS s FROM " + from + " GROUP BY k, window_start, window_end) g"
	}
	return q.outer() + " FROM (" + q.ranked(from) + ") t WHERE rn " + q.filter + " LATE DATA DROP"
}

func (q windowTopN) batch() string {
	from := "(" + q.win.rows(q.src, "", nil) + ") w WHERE window_end <= " + q.wm
	if q.agg {
		from = "(SELECT k, window_start, window_end, count(*) AS c, sum(v) AS s FROM " + from + " GROUP BY k, window_start, window_end) g"
	}
	return q.outer() + " FROM (" + q.ranked(from) + ") t WHERE rn " + q.filter
}

func (q windowTopN) kinds() []kind {
	ks := []kind{kInt, kInt, kDec, kTs}
	if q.agg {
		ks = []kind{kInt, kInt, kInt}
	}
	ks = append(ks, kTs, kTs)
	if q.rankIn {
		ks = append(ks, kInt)
	}
	return ks
}

// keyedTopN: a keyed Top-N (ROW_NUMBER, RANK or DENSE_RANK partitioned by
// k, or not partitioned, filtered by rn <= N, rn < N or rn = 1) over a
// source's rows (append-only) or over a GROUP BY aggregate of them (whose
// rows the aggregate retracts and replaces). The ORDER BY lists every
// column, so ROW_NUMBER's order is total on both sides. The streaming
// view is an updating one; Postgres ranks all rows at the end. Under
// strict a keyed Top-N is refused (its partitions are unbounded), so the
// case runs with strict off.
type keyedTopN struct {
	src    string
	fn     string
	filter string
	keyed  bool // PARTITION BY k
	agg    bool // over SELECT k, v, count(*), sum(d) … GROUP BY k, v
	order  []string
	rankIn bool
}

func genKeyedTopN(g *gen, _ *dataset) query {
	q := keyedTopN{src: sourceNames[g.pick(2)]}
	q.fn = []string{"row_number", "rank", "dense_rank"}[g.pick(3)]
	q.filter = []string{fmt.Sprintf("<= %d", 1+g.pick(3)), fmt.Sprintf("< %d", 2+g.pick(3)), "= 1"}[g.pick(3)]
	q.keyed, q.agg, q.rankIn = g.pick(4) > 0, g.pick(2) == 0, g.pick(3) > 0
	cols := []string{"k", "v", "d", "ts"}
	if q.agg {
		cols = []string{"k", "v", "c", "sd"}
	}
	g.r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	for _, c := range cols {
		if g.pick(2) == 0 {
			c += " DESC"
		}
		q.order = append(q.order, c)
	}
	return q
}

func (q keyedTopN) name() string {
	over := "src"
	if q.agg {
		over = "agg"
	}
	return "keyed_topn_" + q.fn + "_" + over
}

// setup turns strict off on the streaming side (nothing on Postgres').
func (keyedTopN) setup(d dialect) []string {
	if d == streaming {
		return []string{"SET strict = off"}
	}
	return nil
}

// cols are the ranked relation's columns.
func (q keyedTopN) cols() string {
	if q.agg {
		return "k, v, c, sd"
	}
	return "k, v, d, ts"
}

func (q keyedTopN) sql() string {
	from := q.src
	if q.agg {
		from = "(SELECT k, v, count(*) AS c, sum(d) AS sd FROM " + q.src + " GROUP BY k, v) g"
	}
	part := ""
	if q.keyed {
		part = "PARTITION BY k "
	}
	ranked := "SELECT " + q.cols() + ", " + q.fn + "() OVER (" + part + "ORDER BY " + strings.Join(q.order, ", ") + ") AS rn FROM " + from
	s := "SELECT " + q.cols()
	if q.rankIn {
		s += ", rn"
	}
	return s + " FROM (" + ranked + ") t WHERE rn " + q.filter
}

func (q keyedTopN) stream() string { return q.sql() }

func (q keyedTopN) batch() string { return q.sql() }

func (q keyedTopN) kinds() []kind {
	ks := []kind{kInt, kInt, kDec, kTs}
	if q.agg {
		ks = []kind{kInt, kInt, kInt, kDec}
	}
	if q.rankIn {
		ks = append(ks, kInt)
	}
	return ks
}
