package engine

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// sessionView is a SESSION window over many groups whose sessions stay
// open across the rounds of sessionRound (a gap of 10 s, rows 3 s
// apart).
const sessionView = `CREATE MATERIALIZED VIEW m AS
SELECT k, window_start, window_end, count(*) AS n, sum(v) AS total, max(v) AS top
FROM SESSION(s, ts, INTERVAL '10' SECOND)
GROUP BY k, window_start, window_end
LATE DATA DROP
EMIT ON WINDOW CLOSE`

// sessionGroups is how many groups the session workload keeps open: far
// more than the state budget of TestSessionStateBounded.
const sessionGroups = 200

// sessionRound inserts one row per group at second 3*r (every fourth
// group skips odd rounds, so some sessions close and others open).
func sessionRound(r int) string {
	var vals []string
	for k := range sessionGroups {
		if k%4 == 0 && r%2 == 1 && r < 6 {
			continue
		}
		if k%7 == 0 && r >= 8 && r < 12 { // a gap: the session closes, another opens
			continue
		}
		vals = append(vals, fmt.Sprintf("(%d, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '%d' SECOND, %d)", k, 3*r, k*r))
	}
	return `INSERT INTO s VALUES ` + strings.Join(vals, ", ")
}

// TestSessionStateBounded: a SESSION pipeline with a state budget of 8
// sessions per instance, over 200 groups whose sessions stay open, holds
// at most its budget in memory after each batch (the operator's state
// keys), restores reading nothing (no keys in memory after a clean
// restart), and after a crash between checkpoints replays to exactly the
// rows of an uninterrupted run without a budget, at parallelism 1 and 4.
func TestSessionStateBounded(t *testing.T) {
	const rounds = 16
	want := sessionRun(t, t.TempDir(), "1", "0", rounds, -1)
	if strings.Count(want, "\n") < sessionGroups {
		t.Fatalf("the uninterrupted run closed only %d sessions:\n%s", strings.Count(want, "\n"), want)
	}
	for _, p := range []string{"1", "4"} {
		t.Run("parallelism="+p, func(t *testing.T) {
			if got := sessionRun(t, t.TempDir(), p, "8", rounds, 9); got != want {
				t.Fatalf("after a crash at round 9 the view holds\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// sessionRun feeds the session workload's rounds to a fresh engine with
// the given parallelism and state_cache_size, checkpoints every third
// round, restarts cleanly after round crashAt-4 (with a budget) and
// crashes after round crashAt (neither when crashAt is negative),
// restarts and replays, and closes every session with a last row far ahead; it
// returns the view's rows, sorted. With a budget, the window operator's
// state keys must stay within it after every batch.
func sessionRun(t *testing.T, dir, parallelism, budget string, rounds, crashAt int) string {
	t.Helper()
	open := func() (*Engine, func(string) *Result) {
		e, err := Open(Options{StateDir: dir, Settings: map[string]string{"parallelism": parallelism, "state_cache_size": budget, "strict": "off"}})
		if err != nil {
			t.Fatal(err)
		}
		return e, mustExec(t, e)
	}
	e, run := open()
	run(`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, v BIGINT, WATERMARK FOR ts AS ts)`)
	run(sessionView)
	n, _ := strconv.Atoi(parallelism)
	limit, _ := strconv.Atoi(budget)
	held := func(when string) int {
		t.Helper()
		r := run(`SELECT coalesce(sum(state_keys), 0) FROM streamsql_catalog.operators WHERE view = 'm' AND operator LIKE '%WindowAggregate%'`)
		keys, err := strconv.Atoi(strings.TrimSpace(rowLines(r)))
		if err != nil {
			t.Fatalf("%s: state keys %q: %v", when, rowLines(r), err)
		}
		return keys
	}
	for r := range rounds {
		run(sessionRound(r))
		run(`FLUSH`)
		if limit > 0 {
			if keys := held(fmt.Sprintf("round %d", r)); keys > n*limit {
				t.Fatalf("round %d: %d sessions in memory, budget %d per instance × %d", r, keys, limit, n)
			}
		}
		if r%3 == 2 {
			if err := e.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case r == crashAt:
			if err := e.Crash(); err != nil {
				t.Fatal(err)
			}
			e, run = open() // replays the rows since the checkpoint
			if keys := held("after the crash"); limit > 0 && keys > n*limit {
				t.Fatalf("after the crash: %d sessions in memory, budget %d per instance × %d", keys, limit, n)
			}
			run(`FLUSH`)
		case r == crashAt-4 && limit > 0: // a clean restart: nothing to replay
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			e, run = open()
			if keys := held("after a restart"); keys != 0 {
				t.Fatalf("restore loaded %d sessions, want none until a group is touched", keys)
			}
		}
	}
	run(`INSERT INTO s VALUES (-1, TIMESTAMP '2024-01-02 00:00:00', 0)`)
	run(`FLUSH`)
	defer e.Close()
	return rowLines(run(`SELECT k, window_start, window_end, n, total, top FROM m WHERE k >= 0 ORDER BY k, window_start`))
}
