package difftest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/types"
)

// queryProductions are the top-level productions; every seed draws
// rounds × len(queryProductions) cases, each production once per round,
// so every run covers every shape.
var queryProductions = []func(g *gen, ds *dataset) query{
	genFilterProject,
	genFuncSweep,
	genWindowProject,
	genGroupAgg,
	windowAggOf(0), windowAggOf(1), windowAggOf(2),
	genIntervalJoin, genIntervalJoin,
	genRegularJoin,
	genWindowJoin,
	genGroupedWindowJoin,
	genSQLFunction,
	genSetFrom,
	genSetop,
	genComposedJoin, genComposedJoin,
	genWindowOverSubquery,
	genViewOverView, genViewOverView,
	genNestedAgg,
	genWindowTopN, genWindowTopN,
	genKeyedTopN, genKeyedTopN,
	genOuterJoin,
	genIntervalOuterJoin, genIntervalOuterJoin,
	genSemiJoin, genSemiJoin,
	genOverAgg, genOverAgg,
	genTableView,
	genAggJoin, genAggJoin,
}

// windowAggOf draws a windowed aggregate over windowProductions[i].
func windowAggOf(i int) func(g *gen, ds *dataset) query {
	return func(g *gen, ds *dataset) query {
		q := genWindowAgg(g, ds).(windowAgg)
		q.win = windowProductions[i](g)
		return q
	}
}

const rounds = 3

// genQueries draws the cases of a seed (from their own random stream, so
// the data stay the same when productions are added).
func genQueries(ds *dataset) []query {
	g := &gen{r: rand.New(rand.NewPCG(ds.seed, 0x9e3779b9))}
	// Consecutive seeds sweep consecutive stretches of scalarFuncs, so the
	// default run calls every function whatever the other productions
	// draw (the pick keeps the random stream as it was).
	g.pick(len(scalarFuncs))
	g.sweep = int(ds.seed) * rounds * sweepItems % len(scalarFuncs)
	var qs []query
	for range rounds {
		for _, p := range queryProductions {
			qs = append(qs, p(g, ds))
		}
	}
	return qs
}

// seeds are the seeds a run covers: -seed alone, else -seeds of them
// from -first-seed (defaultSeeds without flags).
func seeds() []uint64 {
	if *flagSeed != 0 {
		return []uint64{*flagSeed}
	}
	n := *flagSeeds
	if n == 0 {
		n = defaultSeedCount
		if *flagLong {
			n = longSeedCount
		}
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = *flagFirst + uint64(i)
	}
	return out
}

// defaultSeedCount seeds run in make test (about 20 s under -race on a
// busy 2-core machine, docs/design/testing.md); longSeedCount with -long.
const (
	defaultSeedCount = 10
	longSeedCount    = 300
)

// defaultSeeds are the seeds of a run without flags.
func defaultSeeds() []uint64 {
	out := make([]uint64, defaultSeedCount)
	for i := range out {
		out[i] = 1 + uint64(i)
	}
	return out
}

// TestDifferential compares every case's streaming answer (the view's
// contents once the closing rows have advanced every watermark past the
// data) with Postgres' answer to the batch form of the same query over
// the same rows. The answers must be the same multiset of rows.
func TestDifferential(t *testing.T) {
	var total, failed int
	tally := map[string][2]int{}
	for _, seed := range seeds() {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			n, f := runSeed(t, seed, tally)
			total += n
			failed += f
		})
	}
	var names []string
	for n := range tally {
		names = append(names, n)
	}
	slices.Sort(names)
	var lines []string
	for _, n := range names {
		lines = append(lines, fmt.Sprintf("  %-22s %4d cases, %4d failed", n, tally[n][0], tally[n][1]))
	}
	t.Logf("difftest: %d cases over %d seeds, %d failed\n%s", total, len(seeds()), failed, strings.Join(lines, "\n"))
}

// caseResult is one case's two answers.
type caseResult struct {
	stream, batch []answerRow
	streamErr     error
	batchErr      error
}

// answerRow is one row of an answer: its values as compared (norm) and
// as printed (raw), each joined by " | ".
type answerRow struct{ norm, raw []string }

func (r answerRow) String() string { return strings.Join(r.norm, " | ") }

func newRow(raw []string, null []bool, ks []kind) answerRow {
	r := answerRow{norm: make([]string, len(raw)), raw: raw}
	for j := range raw {
		k := kStr
		if j < len(ks) {
			k = ks[j]
		}
		r.norm[j] = normalize(raw[j], null[j], k)
	}
	return r
}

func runSeed(t *testing.T, seed uint64, tally map[string][2]int) (total, failed int) {
	ds := genDataset(seed)
	qs := genQueries(ds)
	which := make([]int, 0, len(qs))
	for i := range qs {
		if *flagCase < 0 || *flagCase == i {
			which = append(which, i)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	batch, err := runPostgres(ctx, ds, qs, which)
	if err != nil {
		t.Fatalf("seed %d: postgres: %v", seed, err)
	}
	stream, err := runStreaming(ctx, t, ds, qs, which)
	if err != nil {
		// Something failed for the whole engine (an INSERT or a FLUSH):
		// run each case alone so the failure is pinned on its case.
		stream = map[int]*caseResult{}
		for _, i := range which {
			one, err := runStreaming(ctx, t, ds, qs, []int{i})
			if err != nil {
				one = map[int]*caseResult{i: {streamErr: err}}
			}
			stream[i] = one[i]
		}
	}
	inputShown := false
	for _, i := range which {
		q := qs[i]
		res := stream[i]
		res.batch, res.batchErr = batch[i].batch, batch[i].batchErr
		c := tally[q.name()]
		c[0]++
		total++
		t.Run(fmt.Sprintf("case=%02d_%s", i, q.name()), func(t *testing.T) {
			report := compare(q, res)
			if report == "" {
				return
			}
			c[1]++
			failed++
			if !inputShown {
				inputShown = true
				t.Logf("input of seed %d (parallelism %d), the engine's script in arrival order; Postgres holds the same rows:\n%s",
					seed, ds.parallelism, strings.Join(ds.script(), ";\n")+";")
			}
			t.Errorf("seed %d case %d (%s), parallelism %d; replay: go test ./difftest -run TestDifferential -seed %d -case %d -v\n"+
				"%sstreaming: CREATE MATERIALIZED VIEW q%d AS %s;\npostgres:  %s;\n%s",
				seed, i, q.name(), ds.parallelism, seed, i, setupText(q), i, q.stream(), q.batch(), report)
		})
		tally[q.name()] = c
	}
	return total, failed
}

// script is the streaming input: the sources, then the INSERTs and
// FLUSHes in arrival order.
func (ds *dataset) script() []string {
	out := []string{ds.sourceDDL("a"), ds.sourceDDL("b")}
	return append(out, ds.inserts()...)
}

// runStreaming runs the cases in which on one engine: sources, one view
// per case, the input, a final FLUSH, then each view's contents. A view
// the engine refuses is that case's error; an error of the input or of
// FLUSH is returned for all.
func runStreaming(ctx context.Context, t *testing.T, ds *dataset, qs []query, which []int) (map[int]*caseResult, error) {
	e, err := engine.Open(engine.Options{StateDir: t.TempDir(), Settings: map[string]string{"parallelism": strconv.Itoa(ds.parallelism)}})
	if err != nil {
		return nil, fmt.Errorf("open engine: %w", err)
	}
	defer e.Close()
	out := map[int]*caseResult{}
	for _, src := range sourceNames {
		if _, err := e.Exec(ctx, ds.sourceDDL(src)); err != nil {
			return nil, fmt.Errorf("%s: %w", ds.sourceDDL(src), err)
		}
	}
	for _, i := range which {
		out[i] = &caseResult{}
		if out[i].streamErr = runSetup(qs[i], streaming, func(st string) error { _, err := e.Exec(ctx, st); return err }); out[i].streamErr != nil {
			continue
		}
		if _, err := e.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW q%d AS %s", i, qs[i].stream())); err != nil {
			out[i].streamErr = fmt.Errorf("CREATE MATERIALIZED VIEW: %w", err)
		}
	}
	for _, i := range which {
		w, ok := qs[i].(writer)
		if !ok || out[i].streamErr != nil {
			continue
		}
		for _, st := range w.after() {
			if _, err := e.Exec(ctx, st); err != nil {
				out[i].streamErr = fmt.Errorf("%.200s: %w", st, err)
				break
			}
		}
	}
	for _, st := range ds.inserts() {
		if _, err := e.Exec(ctx, st); err != nil {
			return nil, fmt.Errorf("%.200s: %w", st, err)
		}
	}
	for _, i := range which {
		if out[i].streamErr != nil {
			continue
		}
		res, err := e.Exec(ctx, fmt.Sprintf("SELECT * FROM q%d", i))
		if err != nil {
			out[i].streamErr = fmt.Errorf("SELECT: %w", err)
			continue
		}
		out[i].stream = engineRows(res.Rows, qs[i].kinds())
	}
	return out, nil
}

// runPostgres loads the seed's rows into a schema of its own and runs the
// cases' batch forms.
func runPostgres(ctx context.Context, ds *dataset, qs []query, which []int) (map[int]*caseResult, error) {
	conn, err := pgx.Connect(ctx, srv.DSNFor(db))
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	schema := fmt.Sprintf("seed_%d", ds.seed)
	setup := []string{
		"DROP SCHEMA IF EXISTS " + schema + " CASCADE", "CREATE SCHEMA " + schema,
		"SET search_path = " + schema, "SET TimeZone = 'UTC'", "SET statement_timeout = '60s'",
	}
	for _, src := range sourceNames {
		setup = append(setup, tableDDL(src), "INSERT INTO "+src+" VALUES "+valuesList(ds.rows[src]))
	}
	for _, st := range setup {
		if _, err := conn.Exec(ctx, st); err != nil {
			return nil, fmt.Errorf("%.200s: %w", st, err)
		}
	}
	out := map[int]*caseResult{}
	for _, i := range which {
		r := &caseResult{}
		if r.batchErr = runSetup(qs[i], postgres, func(st string) error { _, err := conn.Exec(ctx, st); return err }); r.batchErr == nil {
			r.batch, r.batchErr = pgRows(ctx, conn, qs[i])
		}
		out[i] = r
	}
	if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
		return nil, fmt.Errorf("drop schema: %w", err)
	}
	return out, nil
}

// writer is a case that writes its own inputs once its view exists (a
// TABLE's changes, which the view must follow).
type writer interface {
	after() []string
}

// runSetup runs the setup statements of q (a definer) in dialect d.
func runSetup(q query, d dialect, exec func(string) error) error {
	df, ok := q.(definer)
	if !ok {
		return nil
	}
	for _, st := range df.setup(d) {
		if err := exec(st); err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
	}
	return nil
}

// setupText is q's setup in both dialects, for reports ("" for most).
func setupText(q query) string {
	df, ok := q.(definer)
	if !ok {
		return ""
	}
	text := "streaming setup: " + strings.Join(df.setup(streaming), ";\n") + ";\npostgres setup:  " + strings.Join(df.setup(postgres), ";\n") + ";\n"
	if w, ok := q.(writer); ok {
		text += "streaming, after the view is created: " + strings.Join(w.after(), ";\n") + ";\n"
	}
	return text
}

// pgRows runs q's batch form with the simple protocol, so every value
// comes back as Postgres' text.
func pgRows(ctx context.Context, conn *pgx.Conn, q query) ([]answerRow, error) {
	rows, err := conn.Query(ctx, q.batch(), pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ks := q.kinds()
	var out []answerRow
	for rows.Next() {
		vals := rows.RawValues()
		if len(vals) != len(ks) {
			return nil, fmt.Errorf("%d columns, the grammar says %d", len(vals), len(ks))
		}
		raw, null := make([]string, len(vals)), make([]bool, len(vals))
		for j, v := range vals {
			raw[j], null[j] = string(v), v == nil
		}
		out = append(out, newRow(raw, null, ks))
	}
	return out, rows.Err()
}

// engineRows renders the view's rows as Postgres prints them (the text
// the wire server sends).
func engineRows(rows []types.Row, ks []kind) []answerRow {
	out := make([]answerRow, len(rows))
	for i, r := range rows {
		raw, null := make([]string, len(r)), make([]bool, len(r))
		for j, v := range r {
			raw[j], null[j] = v.String(), v.IsNull()
		}
		out[i] = newRow(raw, null, ks)
	}
	return out
}

// normalize is the text a value is compared by: NULL as NULL, an empty
// string as (empty), a double to 12 significant digits with -0 as 0
// (summation order and libm differ in the last bits; the sign of a zero
// is not an answer), everything else exactly as printed.
func normalize(s string, null bool, k kind) string {
	switch {
	case null:
		return "NULL"
	case s == "":
		return "(empty)"
	case k == kFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return s
		}
		if f == 0 {
			f = 0
		}
		return strconv.FormatFloat(f, 'g', 12, 64)
	}
	return s
}

// compare returns "" when the answers agree, else the report. Rows
// match by their compared text; a double that is the same number on both
// sides must also print the same (Postgres' text form).
func compare(q query, r *caseResult) string {
	switch {
	case r.batchErr != nil:
		return fmt.Sprintf("Postgres failed (the translation is wrong): %v", r.batchErr)
	case r.streamErr != nil:
		return fmt.Sprintf("streaming failed: %v\nPostgres answer (%d rows):\n%s", r.streamErr, len(r.batch), indent(r.batch))
	}
	onlyPG, onlyStream, format := multisetDiff(r.batch, r.stream, q.kinds())
	if len(onlyPG) == 0 && len(onlyStream) == 0 && len(format) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "answers differ: Postgres %d rows, streaming %d rows (columns %v)\n", len(r.batch), len(r.stream), q.kinds())
	if len(onlyPG)+len(onlyStream) > 0 {
		fmt.Fprintf(&b, "- only in Postgres (%d):\n%s", len(onlyPG), indent(onlyPG))
		fmt.Fprintf(&b, "+ only in streaming (%d):\n%s", len(onlyStream), indent(onlyStream))
	}
	for _, f := range format {
		fmt.Fprintf(&b, "same double printed differently: Postgres %q, streaming %q\n", f[0], f[1])
	}
	return b.String()
}

func indent(rows []answerRow) string {
	const max = 40
	var b strings.Builder
	for i, r := range rows {
		if i == max {
			fmt.Fprintf(&b, "    ... %d more\n", len(rows)-max)
			break
		}
		b.WriteString("    " + r.String() + "\n")
	}
	return b.String()
}

// multisetDiff returns the rows of a missing from b and of b missing from
// a, counting duplicates, and for matched rows the double values that
// parse to the same number but print differently (at most a few).
func multisetDiff(a, b []answerRow, ks []kind) (onlyA, onlyB []answerRow, format [][2]string) {
	key := func(r answerRow) string { return strings.Join(r.norm, "\x00") + "\x01" + strings.Join(r.raw, "\x00") }
	sortRows := func(rs []answerRow) []answerRow {
		rs = slices.Clone(rs)
		slices.SortFunc(rs, func(x, y answerRow) int { return strings.Compare(key(x), key(y)) })
		return rs
	}
	a, b = sortRows(a), sortRows(b)
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c int
		switch {
		case j == len(b):
			c = -1
		case i == len(a):
			c = 1
		default:
			c = slices.Compare(a[i].norm, b[j].norm)
		}
		switch {
		case c < 0:
			onlyA = append(onlyA, a[i])
			i++
		case c > 0:
			onlyB = append(onlyB, b[j])
			j++
		default:
			if len(format) < 5 {
				format = append(format, floatFormatDiffs(a[i], b[j], ks)...)
			}
			i++
			j++
		}
	}
	return onlyA, onlyB, format
}

// floatFormatDiffs lists the double columns of two matched rows that hold
// the same number in different text.
func floatFormatDiffs(a, b answerRow, ks []kind) [][2]string {
	var out [][2]string
	for c, k := range ks {
		if k != kFloat || c >= len(a.raw) || c >= len(b.raw) || a.raw[c] == b.raw[c] {
			continue
		}
		x, errA := strconv.ParseFloat(a.raw[c], 64)
		y, errB := strconv.ParseFloat(b.raw[c], 64)
		if errA == nil && errB == nil && x == y && x != 0 { // the sign of a zero is no answer
			out = append(out, [2]string{a.raw[c], b.raw[c]})
		}
	}
	return out
}
