package engine

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"
)

// sessionCrashCase is one randomized SESSION pipeline: its settings, its
// contract and the steps fed to it.
type sessionCrashCase struct {
	settings map[string]string
	view     string
	side     bool // the view writes late rows to side table l
	steps    []crashStep
}

// crashStep is one step of a sessionCrashCase: rows to insert (a batch
// of VALUES), or a FLUSH, a checkpoint, a crash, a torn crash (one after
// the at-least-once sink made its changes durable and before the
// checkpoint was stored), a clean restart, or a comparison (a FLUSH, then
// the view is read).
type crashStep struct {
	op   string // insert, flush, checkpoint, crash, torn, restart, compare
	rows string
}

// newSessionCrashCase draws a case from seed: a SESSION view with a
// random watermark delay, allowed lateness, late-data policy, EMIT mode,
// aggregates, parallelism and state_cache_size, and steps that insert
// rows for a few groups (some out of order, some late, some exactly at a
// session's end), flush, and checkpoint, crash (torn or not) or restart
// at random points, also between an INSERT and its FLUSH.
func newSessionCrashCase(seed int64) sessionCrashCase {
	r := rand.New(rand.NewSource(seed))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	c := sessionCrashCase{settings: map[string]string{
		"parallelism":      pick("1", "4"),
		"state_cache_size": pick("0", "1", "2", "3"),
		"memory_limit":     pick("320MB", "1MB"),
		"strict":           "off",
	}}
	gap := 3 + r.Intn(5)
	delay := pick("0", "1", "3")
	policy := pick("DROP", "UPDATE", "SIDE OUTPUT l", "UPDATE SIDE OUTPUT l")
	c.side = strings.Contains(policy, "SIDE")
	lateness := ""
	if r.Intn(2) == 0 {
		lateness = fmt.Sprintf("ALLOWED LATENESS INTERVAL '%d' SECOND ", 1+r.Intn(6))
	}
	emit := pick("ON WINDOW CLOSE", "ON UPDATE")
	aggs := pick("count(*) AS n, sum(v) AS total",
		"count(*) AS n, count(DISTINCT v) AS d, max(v) AS top",
		"count(*) FILTER (WHERE v > 2) AS big, min(v) AS low, avg(v) AS mean")
	c.view = fmt.Sprintf(`CREATE SOURCE s (k BIGINT, v BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '%s' SECOND);
CREATE MATERIALIZED VIEW m AS SELECT k, window_start, window_end, %s
FROM SESSION(s, ts, INTERVAL '%d' SECOND) GROUP BY k, window_start, window_end
%sLATE DATA %s EMIT %s`, delay, aggs, gap, lateness, policy, emit)
	now := 0
	for range 10 + r.Intn(30) {
		var vals []string
		for range 1 + r.Intn(5) {
			switch r.Intn(4) {
			case 0:
				now += gap // exactly at the end of a session of a row at now
			default:
				now += r.Intn(gap + 2)
			}
			ts := now
			if r.Intn(4) == 0 {
				ts -= r.Intn(3 * gap) // out of order, maybe late
			}
			vals = append(vals, fmt.Sprintf("(%d, %d, '%s')", r.Intn(3), r.Intn(5), secondAt(ts)))
		}
		c.steps = append(c.steps, crashStep{op: "insert", rows: strings.Join(vals, ", ")})
		if r.Intn(4) == 0 {
			c.steps = append(c.steps, crashStep{op: pick("checkpoint", "crash", "torn")})
		}
		c.steps = append(c.steps, crashStep{op: pick("flush", "flush", "compare")})
		if r.Intn(3) == 0 {
			c.steps = append(c.steps, crashStep{op: pick("checkpoint", "checkpoint", "crash", "torn", "restart")})
		}
	}
	c.steps = append(c.steps, crashStep{op: "insert", rows: fmt.Sprintf("(-1, 0, '%s')", secondAt(now+1000))}, crashStep{op: "compare"})
	return c
}

// secondAt is the timestamp literal n seconds after 2024-01-01.
func secondAt(n int) string {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Second).Format("2006-01-02 15:04:05")
}

// run feeds the case's steps to a fresh engine in dir, with view m
// delivered to an exactly-once and an at-least-once sink. faults false
// is the uninterrupted run: no checkpoints, crashes, restarts or FLUSHes
// between comparisons, and the rows between two comparisons in one
// INSERT (one batch), so that the runs batch rows differently. It
// returns the view's and side table's rows, sorted, at each comparison,
// and after the last one (and a checkpoint) what each sink's changelog
// leaves applied by key.
func (c sessionCrashCase) run(t *testing.T, dir string, faults bool) []string {
	t.Helper()
	exact, least := &crashDest{}, &crashDest{}
	reg := crashRegistry(exact, least)
	open := func() (*Engine, func(string) *Result) {
		e, err := Open(Options{StateDir: dir, Settings: c.settings, Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		return e, mustExec(t, e)
	}
	e, run := open()
	defer func() { _ = e.Close() }()
	for _, st := range strings.Split(c.view, ";\n") {
		run(st)
	}
	run("CREATE SINK ex FROM m WITH (connector = 'crash', delivery = 'exactly_once')")
	run("CREATE SINK al FROM m WITH (connector = 'crash')")
	var seen, held []string
	for i, s := range c.steps {
		switch {
		case s.op == "insert" && !faults:
			held = append(held, s.rows)
		case s.op == "insert":
			run("INSERT INTO s VALUES " + s.rows)
		case s.op == "compare":
			if len(held) > 0 {
				run("INSERT INTO s VALUES " + strings.Join(held, ", "))
				held = nil
			}
			run("FLUSH")
			seen = append(seen, c.contents(run))
			if i == len(c.steps)-1 {
				if err := e.Checkpoint(); err != nil {
					t.Fatal(err)
				}
				seen = append(seen, "exactly-once sink:\n"+exact.contents(), "at-least-once sink:\n"+least.contents())
			}
		case !faults:
		case s.op == "flush":
			run("FLUSH")
		case s.op == "checkpoint":
			if err := e.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		case s.op == "crash" || s.op == "torn":
			if s.op == "torn" {
				// The at-least-once sink made its changes durable
				// (PreCommit) and the process died before the
				// checkpoint was stored: the replay delivers them again.
				if _, err := least.sink.PreCommit(context.Background(), 0); err != nil {
					t.Fatal(err)
				}
			}
			if err := e.Crash(); err != nil {
				t.Fatal(err)
			}
			e, run = open()
		case s.op == "restart":
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			e, run = open()
		}
	}
	return seen
}

// contents is the view's rows and the side table's, each sorted.
func (c sessionCrashCase) contents(run func(string) *Result) string {
	sorted := func(q string) string {
		lines := strings.Split(strings.TrimSuffix(rowLines(run(q)), "\n"), "\n")
		slices.Sort(lines)
		return strings.Join(lines, "\n")
	}
	out := "view:\n" + sorted("SELECT * FROM m")
	if c.side {
		out += "\nside:\n" + sorted("SELECT * FROM l")
	}
	return out
}

// sessionCrashSeeds and sessionCrashFrom choose TestSessionCrashRandomized's
// seeds, for longer searches (go test -run SessionCrash -args
// -session-crash-seeds 500).
var (
	sessionCrashSeeds = flag.Int("session-crash-seeds", 20, "TestSessionCrashRandomized: how many seeds")
	sessionCrashFrom  = flag.Int64("session-crash-from", 0, "TestSessionCrashRandomized: the first seed")
)

// TestSessionCrashRandomized: randomized SESSION pipelines (delays,
// lateness, each late-data policy and EMIT mode, sessions evicted by a
// state_cache_size of 1 to 3, a tiny memory_limit that spills the view,
// parallelism 1 and 4) checkpointed, crashed and restarted at random
// points, their rows in batches of their own, hold at every comparison
// exactly what an uninterrupted run holds after the same input in one
// batch, and their sinks' changelogs, applied by key, leave what the
// uninterrupted run's leave. (The replay of INSERTs batches rows as
// they were batched before the crash, so here the at-least-once sink
// converges too; TestSessionKillNineRecovers in cmd/streamsql shows
// why a replay batched differently needs exactly_once.)
func TestSessionCrashRandomized(t *testing.T) {
	seeds := int64(*sessionCrashSeeds)
	if testing.Short() {
		seeds = min(seeds, 5)
	}
	for seed := *sessionCrashFrom; seed < *sessionCrashFrom+seeds; seed++ {
		c := newSessionCrashCase(seed)
		want := c.run(t, t.TempDir(), false)
		got := c.run(t, t.TempDir(), true)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("seed %d, comparison %d (settings %v)\n%s\nsteps %v\ngot\n%s\nwant\n%s", seed, i, c.settings, c.view, c.steps, got[i], want[i])
			}
		}
	}
}
