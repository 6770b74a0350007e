package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// The two inputs every case reads. Both have the same columns so that any
// expression production works on either side of a join:
//
//	k  BIGINT          nullable join/group key from a tiny domain (duplicates)
//	v  BIGINT          nullable value, negative to positive
//	d  DECIMAL(10,2)   nullable money
//	s  VARCHAR         nullable text (empty, spaces, wildcards, multibyte)
//	f  DOUBLE          nullable, with exact binary fractions (x.5 ties)
//	ts TIMESTAMP       the event time, never NULL
//	te TIMESTAMP       nullable second time (an expiry: ts plus a few seconds)
var sourceNames = []string{"a", "b"}

// columns lists the source columns with their kinds, in table order.
var columns = []col{
	{name: "k", k: kInt}, {name: "v", k: kInt}, {name: "d", k: kDec}, {name: "s", k: kStr},
	{name: "f", k: kFloat}, {name: "ts", k: kTs}, {name: "te", k: kTs},
}

const (
	colTs = 5 // index of ts in columns
	colTe = 6
)

// t0 is the first event time: a minute before midnight on New Year's Eve,
// so that dates, date_trunc and extract cross day, month and year.
var t0 = time.Date(2023, 12, 31, 23, 59, 0, 0, time.UTC).UnixMicro()

// closeAfter is how far after t0 the closing rows lie: minutes beyond
// every window and join bound (the data span four minutes), well inside
// the STATE TTL the corpus uses (ttl), so the closing rows fire every
// window and expire nothing; and close enough that an interval computed
// from them (times a small v) stays under a day (see lit).
const (
	closeAfter = int64(10 * time.Minute / time.Microsecond)
	second     = int64(time.Second / time.Microsecond)
)

// row is one input row: the SQL literal of every column (the same text
// in both dialects) and the event time in microseconds.
type row struct {
	lits []string
	ts   int64
}

// dataset is the input of one seed: both sources' rows in the order they
// arrive, with their watermark delays.
type dataset struct {
	seed  uint64
	delay map[string]int64 // watermark delay per source, microseconds
	rows  map[string][]row // per source, in arrival order (closing row last)
	// arrival is the interleaving of the sources: the source of each
	// INSERT statement and how many rows it takes, then whether a FLUSH
	// follows it.
	arrival []insertStep
	// parallelism is the engine's SET parallelism for this dataset.
	parallelism int
	// tables counts the TABLEs the seed's cases created (table_test.go).
	tables int
}

// insertStep is one INSERT statement: n rows of src from its next row on.
type insertStep struct {
	src   string
	n     int
	flush bool
}

var (
	decLits   = []string{"0.10", "0.20", "0.01", "1.00", "-3.50", "99.99", "12345.67", "0.05", "2.50", "-0.01"}
	floatLits = []string{"0.5", "2.5", "-1.25", "3", "0", "100.75", "-0.5", "1.5", "-2.5", "0.125"}
	strLits   = []string{"''", "'a'", "'A'", "'abc'", "' ab '", "'a_c'", "'x%y'", "'hello world'", "'xax'", "'€ 1'", "'B b'", "'a b c'"}
)

// genDataset draws the inputs for seed: a few hundred rows over about four
// minutes of event time, with NULLs, duplicate keys and duplicate rows,
// event times on whole seconds (window boundaries) and copied across the
// sources at the join bounds the corpus uses, delivered out of order but
// never later than the watermark delay.
func genDataset(seed uint64) *dataset {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	ds := &dataset{seed: seed, delay: map[string]int64{}, rows: map[string][]row{}, parallelism: []int{1, 4}[r.IntN(2)]}
	var aTimes []int64
	for _, src := range sourceNames {
		ds.delay[src] = []int64{0, 1, 3, 5}[r.IntN(4)] * second
		n := 60 + r.IntN(90)
		rows := make([]row, 0, n+1)
		for i := range n {
			if i > 0 && r.IntN(10) == 0 {
				rows = append(rows, rows[r.IntN(len(rows))]) // an exact duplicate
				continue
			}
			rows = append(rows, genRow(r, eventTime(r, aTimes)))
		}
		if src == "a" {
			for _, rw := range rows {
				aTimes = append(aTimes, rw.ts)
			}
		}
		ds.rows[src] = arrivalOrder(r, rows, ds.delay[src])
	}
	ds.arrival = interleave(r, ds)
	for _, src := range sourceNames {
		ds.rows[src] = append(ds.rows[src], closingRow(src))
		ds.arrival = append(ds.arrival, insertStep{src: src, n: 1})
	}
	ds.arrival[len(ds.arrival)-1].flush = true
	return ds
}

// eventTime draws an event time: mostly whole seconds (so rows sit exactly
// on window boundaries), some with a fraction, and, for b, often one of
// a's times plus or minus a join bound of the corpus (0, 1, 2, 5 or 10
// seconds), sometimes one microsecond off it.
func eventTime(r *rand.Rand, aTimes []int64) int64 {
	if len(aTimes) > 0 && r.IntN(2) == 0 {
		off := []int64{-10, -5, -2, -1, 0, 1, 2, 5, 10}[r.IntN(9)] * second
		switch r.IntN(6) {
		case 0:
			off++
		case 1:
			off--
		}
		return aTimes[r.IntN(len(aTimes))] + off
	}
	ts := t0 + int64(r.IntN(240))*second
	switch r.IntN(8) {
	case 0:
		ts += second / 2
	case 1:
		ts += int64(r.IntN(1000)) * 1000 // milliseconds
	case 2:
		ts += 125_000
	}
	return ts
}

// genRow draws the non-time columns of a row at event time ts.
func genRow(r *rand.Rand, ts int64) row {
	null := func() bool { return r.IntN(7) == 0 }
	lits := make([]string, len(columns))
	pick := func(i int, f func() string) {
		if null() {
			lits[i] = "NULL"
		} else {
			lits[i] = f()
		}
	}
	pick(0, func() string { return fmt.Sprint(r.IntN(4)) })
	pick(1, func() string { return fmt.Sprint(r.IntN(26) - 5) })
	pick(2, func() string { return decLits[r.IntN(len(decLits))] })
	pick(3, func() string { return strLits[r.IntN(len(strLits))] })
	pick(4, func() string { return floatLits[r.IntN(len(floatLits))] })
	lits[colTs] = tsLit(ts)
	pick(colTe, func() string {
		return tsLit(ts + []int64{0, 1, 2, 5, 10, -1}[r.IntN(6)]*second)
	})
	return row{lits: lits, ts: ts}
}

// closingRow is the last row of every source, closeAfter after t0, so
// every watermark passes every data window. Its keys are its own (k, v
// and s differ between the sources and from the data, the rest is NULL),
// so the two closing rows never pair in a join, not even through <=>: a
// join that emits before its windows close would otherwise show the
// closing rows' unclosed window.
func closingRow(src string) row {
	lits := make([]string, len(columns))
	for i := range lits {
		lits[i] = "NULL"
	}
	n := map[string]int{"a": 1, "b": 2}[src]
	lits[0], lits[1], lits[3] = fmt.Sprint(-n), fmt.Sprint(20+n), "'close "+src+"'"
	ts := t0 + closeAfter
	lits[colTs] = tsLit(ts)
	return row{lits: lits, ts: ts}
}

// tsLit is a timestamp literal in the text both dialects read.
func tsLit(us int64) string {
	return "'" + time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.999999") + "'"
}

// arrivalOrder shuffles rows within the watermark delay: each row arrives
// at its event time plus a jitter in [0, delay], so a row's event time is
// never below the largest event time before it minus the delay, i.e. no
// row is late. Jitters of exactly 0 and exactly delay are drawn often, so
// rows land exactly on the watermark.
func arrivalOrder(r *rand.Rand, rows []row, delay int64) []row {
	type arr struct {
		at int64
		rw row
	}
	as := make([]arr, len(rows))
	for i, rw := range rows {
		var j int64
		switch r.IntN(4) {
		case 0:
		case 1:
			j = delay
		default:
			if delay > 0 {
				j = r.Int64N(delay + 1)
			}
		}
		as[i] = arr{at: rw.ts + j, rw: rw}
	}
	slices.SortStableFunc(as, func(x, y arr) int { return cmpInt64(x.at, y.at) })
	out := make([]row, len(as))
	for i, a := range as {
		out[i] = a.rw
	}
	return out
}

// interleave merges the sources' arrival orders by event time (so the
// sources' watermarks advance together) into INSERT statements of a few
// rows, with a FLUSH after some of them to vary what each FLUSH sees.
func interleave(r *rand.Rand, ds *dataset) []insertStep {
	next := map[string]int{}
	var steps []insertStep
	for {
		src := ""
		for _, s := range sourceNames {
			if next[s] >= len(ds.rows[s]) {
				continue
			}
			if src == "" || ds.rows[s][next[s]].ts < ds.rows[src][next[src]].ts {
				src = s
			}
		}
		if src == "" {
			return steps
		}
		n := min(1+r.IntN(8), len(ds.rows[src])-next[src])
		next[src] += n
		steps = append(steps, insertStep{src: src, n: n, flush: r.IntN(12) == 0})
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sourceDDL is the streaming CREATE SOURCE of src.
func (ds *dataset) sourceDDL(src string) string {
	return fmt.Sprintf("CREATE SOURCE %s (k BIGINT, v BIGINT, d DECIMAL(10,2), s VARCHAR, f DOUBLE, ts TIMESTAMP, te TIMESTAMP, "+
		"WATERMARK FOR ts AS ts - INTERVAL '%d' SECOND)", src, ds.delay[src]/second)
}

// tableDDL is the Postgres CREATE TABLE of src.
func tableDDL(src string) string {
	return "CREATE TABLE " + src + " (k bigint, v bigint, d numeric(10,2), s text, f float8, ts timestamp NOT NULL, te timestamp)"
}

// inserts renders the arrival as the streaming script: one INSERT per
// step, FLUSH where the step asks for one.
func (ds *dataset) inserts() []string {
	next := map[string]int{}
	var out []string
	for _, st := range ds.arrival {
		out = append(out, "INSERT INTO "+st.src+" VALUES "+valuesList(ds.rows[st.src][next[st.src]:next[st.src]+st.n]))
		next[st.src] += st.n
		if st.flush {
			out = append(out, "FLUSH")
		}
	}
	return out
}

// valuesList renders rows as a VALUES list.
func valuesList(rows []row) string {
	parts := make([]string, len(rows))
	for i, rw := range rows {
		parts[i] = "(" + strings.Join(rw.lits, ", ") + ")"
	}
	return strings.Join(parts, ", ")
}

// watermarkSQL is, in Postgres, the watermark src ends with: its largest
// event time (the closing row's) minus its delay.
func (ds *dataset) watermarkSQL(src string) string {
	return fmt.Sprintf("(SELECT max(ts) - INTERVAL '%d seconds' FROM %s)", ds.delay[src]/second, src)
}
