package difftest

import "fmt"

// window is a window table-valued function. Postgres has none: its side
// assigns each row its windows with date_bin (TUMBLE), generate_series
// over the slides (HOP) or gaps-and-islands window functions per group
// (SESSION).
type window interface {
	// tvf is the streaming FROM item, e.g. TUMBLE(a, ts, INTERVAL '5' SECOND).
	tvf(src string) string
	// rows is a Postgres query returning src's rows that pass where (""
	// for none) with window_start and window_end: one row per window a
	// row lands in. keys are the grouping expressions (SESSION windows
	// are per group); they come out as columns g0, g1, ...
	rows(src, where string, keys []string) string
	// aggregatedOnly reports that the window must be grouped (SESSION).
	aggregatedOnly() bool
}

// epoch is the origin streamsql aligns TUMBLE and HOP windows to.
const epoch = "TIMESTAMP '1970-01-01 00:00:00'"

func secs(n int) string { return fmt.Sprintf("INTERVAL '%d seconds'", n) }

func keyCols(keys []string) string {
	s := ""
	for i, k := range keys {
		s += fmt.Sprintf(", %s AS g%d", k, i)
	}
	return s
}

func whereClause(where string) string {
	if where == "" {
		return ""
	}
	return " WHERE " + where
}

// tumble is TUMBLE(src, ts, size).
type tumble struct{ size int }

func (w tumble) tvf(src string) string {
	return fmt.Sprintf("TUMBLE(%s, ts, INTERVAL '%d' SECOND)", src, w.size)
}

func (w tumble) rows(src, where string, keys []string) string {
	start := fmt.Sprintf("date_bin(%s, %s.ts, %s)", secs(w.size), src, epoch)
	return fmt.Sprintf("SELECT %s.*%s, %s AS window_start, %s + %s AS window_end FROM %s%s",
		src, keyCols(keys), start, start, secs(w.size), src, whereClause(where))
}

func (tumble) aggregatedOnly() bool { return false }

// hop is HOP(src, ts, slide, size); size is a multiple of slide (the
// planner's rule). A row at ts lands in the windows starting at the
// multiples of slide in (ts - size, ts].
type hop struct{ slide, size int }

func (w hop) tvf(src string) string {
	return fmt.Sprintf("HOP(%s, ts, INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)", src, w.slide, w.size)
}

func (w hop) rows(src, where string, keys []string) string {
	first := fmt.Sprintf("date_bin(%s, %s.ts - %s, %s) + %s", secs(w.slide), src, secs(w.size), epoch, secs(w.slide))
	last := fmt.Sprintf("date_bin(%s, %s.ts, %s)", secs(w.slide), src, epoch)
	return fmt.Sprintf("SELECT %s.*%s, hw.ws AS window_start, hw.ws + %s AS window_end FROM %s CROSS JOIN LATERAL generate_series(%s, %s, %s) AS hw(ws)%s",
		src, keyCols(keys), secs(w.size), src, first, last, secs(w.slide), whereClause(where))
}

func (hop) aggregatedOnly() bool { return false }

// session is SESSION(src, ts, gap): per group, rows whose times are at
// most gap apart (next_ts <= last_ts + gap) share a window
// [first ts, last ts + gap).
type session struct{ gap int }

func (w session) tvf(src string) string {
	return fmt.Sprintf("SESSION(%s, ts, INTERVAL '%d' SECOND)", src, w.gap)
}

func (w session) rows(src, where string, keys []string) string {
	part := ""
	if len(keys) > 0 {
		part = "PARTITION BY "
		for i := range keys {
			if i > 0 {
				part += ", "
			}
			part += fmt.Sprintf("g%d", i)
		}
	}
	sid := "sid"
	if part != "" {
		sid = part + ", sid"
	} else {
		sid = "PARTITION BY sid"
	}
	return fmt.Sprintf(`SELECT n.*, min(n.ts) OVER (%s) AS window_start, max(n.ts) OVER (%s) + %s AS window_end FROM (
  SELECT m.*, sum(m.brk) OVER (%s ORDER BY m.ts ROWS UNBOUNDED PRECEDING) AS sid FROM (
    SELECT r.*, CASE WHEN r.ts > lag(r.ts) OVER (%s ORDER BY r.ts) + %s THEN 1 ELSE 0 END AS brk FROM (
      SELECT %s.*%s FROM %s%s) r) m) n`,
		sid, sid, secs(w.gap), part, part, secs(w.gap), src, keyCols(keys), src, whereClause(where))
}

func (session) aggregatedOnly() bool { return true }

// windowProductions draw a window of each kind; sizes divide the minute
// so windows line up with the whole-second event times.
var windowProductions = []func(g *gen) window{
	func(g *gen) window { return tumble{size: []int{2, 5, 10, 30}[g.pick(4)]} },
	func(g *gen) window {
		slide := []int{1, 2, 5}[g.pick(3)]
		return hop{slide: slide, size: slide * (2 + g.pick(3))}
	},
	func(g *gen) window { return session{gap: []int{1, 2, 5, 10}[g.pick(4)]} },
}
