package exec

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// cleanupSchema is (k, ts, x, e): e plays Nexmark's expires.
var cleanupSchema = types.Schema{{Name: "k", Type: types.String}, {Name: "ts", Type: types.Timestamp},
	{Name: "x", Type: types.Int}, {Name: "e", Type: types.Timestamp}}

// cleanupNode is a JOIN b ON a.k = b.k AND lower AND upper (either nil
// to leave it out), both inputs with the watermark column ts (wm; -1: no
// watermark column, so no cleanup) and STATE TTL ttl (0: none).
func cleanupNode(lower, upper planner.Scalar, wm int, ttl int64) *planner.Join {
	var conj []planner.Scalar
	for _, c := range []planner.Scalar{lower, upper} {
		if c != nil {
			conj = append(conj, c)
		}
	}
	n := &planner.Join{
		Left: &planner.Scan{Out: cleanupSchema, TimeCol: wm}, Right: &planner.Scan{Out: cleanupSchema, TimeCol: wm},
		Kind: planner.Unbounded, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: -1, RightTime: -1, TTL: ttl,
	}
	if len(conj) > 0 {
		n.Residual = conj[0]
		if len(conj) > 1 {
			n.Residual = &planner.Call{Fn: "and", Args: conj, T: types.Bool}
		}
	}
	if ttl > 0 {
		n.LeftTime, n.RightTime = 1, 1
	}
	return n
}

// col refers to column i of the joined row (left 0-3, right 4-7).
func bcol(i int) planner.Scalar {
	return &planner.ColRef{Index: i, Name: [2]string{"a", "b"}[i/4] + "." + cleanupSchema[i%4].Name, T: cleanupSchema[i%4].Type}
}

func bcmp(op string, a, b planner.Scalar) planner.Scalar {
	return &planner.Call{Fn: op, Args: []planner.Scalar{a, b}, T: types.Bool}
}

func bplus(a planner.Scalar, us int64) planner.Scalar {
	return &planner.Call{Fn: "+", Args: []planner.Scalar{a, &planner.Const{V: types.IntervalValue(us)}}, T: types.Timestamp}
}

// newCleanupJoin builds n's join with its residual compiled.
func newCleanupJoin(t *testing.T, c JoinConfig) *Join {
	t.Helper()
	if c.Node.Residual != nil {
		f, err := CompileFilter(c.Node.Residual, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Residual = f
	}
	if c.Late == nil {
		c.Late = &lateness.Counters{}
	}
	return NewJoin(c)
}

// TestJoinCleanupDropsRowsAtLastMatch: under b.ts BETWEEN a.ts AND a.e
// (and its strict and offset forms) a left row (ts 100, e 120) leaves
// state once the right watermark passes the last b.ts it can match, a
// right row (ts 110) once the left watermark passes the last a.ts; the
// planner reads both bounds and EXPLAIN names them.
func TestJoinCleanupDropsRowsAtLastMatch(t *testing.T) {
	for _, tc := range []struct {
		name                                     string
		lower, upper                             planner.Scalar
		ttl                                      int64
		explain                                  string
		leftKeep, leftGone, rightKeep, rightGone int64
	}{
		{"between", bcmp(">=", bcol(5), bcol(1)), bcmp("<=", bcol(5), bcol(3)), 0,
			"right rows when left wm > b.ts, left rows when right wm > a.e", 120, 121, 110, 111},
		{"strict swapped", bcmp("<", bcol(1), bcol(5)), bcmp(">", bcol(3), bcol(5)), 0,
			"right rows when left wm >= b.ts, left rows when right wm >= a.e", 119, 120, 109, 110},
		{"offsets", bcmp(">=", bplus(bcol(5), 3), bcol(1)), bcmp("<=", bcol(5), bplus(bcol(3), 2)), 0,
			"right rows when left wm > b.ts + 00:00:00.000003, left rows when right wm > a.e + 00:00:00.000002", 122, 123, 113, 114},
		{"ttl first", bcmp(">=", bcol(5), bcol(1)), bcmp("<=", bcol(5), bcol(3)), 5,
			"right rows when left wm > b.ts, left rows when right wm > a.e", 105, 106, 110, 111},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := cleanupNode(tc.lower, tc.upper, 1, tc.ttl)
			if s := node.String(); !strings.Contains(s, "cleanup=["+tc.explain+"]") {
				t.Fatalf("EXPLAIN %q lacks cleanup=[%s]", s, tc.explain)
			}
			for side := 0; side < 2; side++ {
				keep, gone := tc.leftKeep, tc.leftGone
				row := types.Row{types.StringValue("a"), types.TimestampValue(100), types.IntValue(1), types.TimestampValue(120)}
				if side == 1 {
					keep, gone = tc.rightKeep, tc.rightGone
					row[1] = types.TimestampValue(110)
				}
				j := newCleanupJoin(t, JoinConfig{ID: "j/", Node: node})
				if err := j.Process(side, &Batch{Rows: []types.Row{row}}); err != nil {
					t.Fatal(err)
				}
				if err := j.Watermark(1-side, keep); err != nil {
					t.Fatal(err)
				}
				if n, k := j.storedRows(side), j.StateKeys(); n != 1 || k != 1 {
					t.Fatalf("side %d: other watermark %d: %d rows, %d keys stored, want 1 (it can still match)", side, keep, n, k)
				}
				if err := j.Watermark(1-side, gone); err != nil {
					t.Fatal(err)
				}
				if n, k := j.storedRows(side), j.StateKeys(); n != 0 || k != 0 {
					t.Fatalf("side %d: other watermark %d: %d rows, %d keys stored, want 0 (nothing to come can match)", side, gone, n, k)
				}
			}
		})
	}
}

// TestJoinCleanupKeepsRowsOfAnOlderBuild: a join without STATE TTL
// whose checkpoint an older build wrote (no time stored with its rows:
// 0) is restored by a build that cleans by the time conjuncts. Those
// rows' ends are unknown, so they stay (as they did) instead of reading
// as ended at time 0 and leaving at the first watermark, which lost the
// match of an on-time row.
func TestJoinCleanupKeepsRowsOfAnOlderBuild(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	between := func(wm int) *planner.Join {
		return cleanupNode(bcmp(">=", bcol(5), bcol(1)), bcmp("<=", bcol(5), bcol(3)), wm, 0)
	}
	// The older build's plan had no cleanup; here: no watermark column.
	old := newCleanupJoin(t, JoinConfig{ID: "j/", Node: between(-1), Store: st})
	auction := types.Row{types.StringValue("a"), types.TimestampValue(100), types.IntValue(1), types.TimestampValue(120)}
	if err := old.Process(0, &Batch{Rows: []types.Row{auction}}); err != nil {
		t.Fatal(err)
	}
	checkpointAll(t, st, 1, old)

	out := NewMaterialize("o/", nil, nil)
	j := newCleanupJoin(t, JoinConfig{ID: "j/", Node: between(1), Store: st, Out: Output{Op: out}})
	if err := j.Restore(st); err != nil {
		t.Fatal(err)
	}
	if err := j.Watermark(1, 50); err != nil {
		t.Fatal(err)
	}
	bid := types.Row{types.StringValue("a"), types.TimestampValue(110), types.IntValue(2), types.TimestampValue(0)}
	if err := j.Process(1, &Batch{Rows: []types.Row{bid}}); err != nil {
		t.Fatal(err)
	}
	got, err := out.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("the restored auction joined %d rows with an on-time bid between its times, want 1: %v", len(got), got)
	}
}

// TestJoinCleanupRefusedShapes: no cleanup without watermark columns, on
// an outer join, or from a bound that says nothing about rows to come
// (b.ts >= a.e and b.e <= a.ts compare no watermark column of the
// other side with the row's column).
func TestJoinCleanupRefusedShapes(t *testing.T) {
	noWM := cleanupNode(bcmp(">=", bcol(5), bcol(1)), nil, -1, 0)
	outer := cleanupNode(bcmp(">=", bcol(5), bcol(1)), nil, 1, 0)
	outer.Type = planner.LeftOuterJoin
	useless := cleanupNode(bcmp(">=", bcol(5), bcol(3)), bcmp("<=", bcol(7), bcol(1)), 1, 0)
	for name, n := range map[string]*planner.Join{"no watermark": noWM, "outer": outer, "other columns": useless} {
		if cs := planner.JoinCleanup(n); len(cs) != 0 {
			t.Errorf("%s: JoinCleanup = %+v, want none", name, cs)
		}
	}
	if cs := planner.JoinCleanup(cleanupNode(bcmp(">=", bcol(5), bcol(3)), nil, 3, 0)); len(cs) != 1 || cs[0].Side != 1 || cs[0].Col != 1 {
		t.Errorf("b.ts >= a.e with a.e the watermark column: JoinCleanup = %+v, want right rows by b.ts", cs)
	}
}

// TestJoinCleanupAgreesWithoutCleanup feeds the same random on-time rows
// (never behind their input's watermark; some with a NULL e) and
// watermarks, with checkpoints and lazy restores at random points, to a
// spilling join (two rows per side in memory) that cleans its state by
// the residual's time bounds and to the same join in memory without them
// (its inputs have no watermark column): their outputs must agree every
// 20 steps and at the end, and the spilling join keep its budget.
// With both bounds every row is gone once both watermarks reach the end.
func TestJoinCleanupAgreesWithoutCleanup(t *testing.T) {
	between := [2]planner.Scalar{bcmp(">=", bcol(5), bcol(1)), bcmp("<=", bcol(5), bcol(3))}
	strict := [2]planner.Scalar{bcmp(">", bplus(bcol(5), 4), bcol(1)), bcmp("<", bcol(5), bplus(bcol(3), -2))}
	for _, tc := range []struct {
		name   string
		bounds [2]planner.Scalar
		ttl    int64
		empty  bool // every row expires by the end
	}{
		{"between", between, 0, true},
		{"between ttl", between, 15, true},
		{"strict offsets", strict, 0, true},
		{"lower only", [2]planner.Scalar{between[0], nil}, 0, false},
		{"upper only ttl", [2]planner.Scalar{nil, between[1]}, 30, true},
	} {
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				node := cleanupNode(tc.bounds[0], tc.bounds[1], 1, tc.ttl)
				plain := cleanupNode(tc.bounds[0], tc.bounds[1], -1, tc.ttl)
				if len(planner.JoinCleanup(node)) == 0 || len(planner.JoinCleanup(plain)) != 0 {
					t.Fatal("the cleaning join must clean, the plain one not")
				}
				cleanupAgrees(t, node, plain, seed, tc.empty)
			})
		}
	}
}

func cleanupAgrees(t *testing.T, node, plain *planner.Join, seed int64, empty bool) {
	rng := rand.New(rand.NewSource(seed))
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cleanOut, plainOut := NewMaterialize("s/", nil, nil), NewMaterialize("m/", nil, nil)
	build := func() *Join {
		return newCleanupJoin(t, JoinConfig{ID: "j/", Node: node, Out: Output{Op: cleanOut}, Store: st, Budget: 2})
	}
	clean := build()
	mem := newCleanupJoin(t, JoinConfig{ID: "j/", Node: plain, Out: Output{Op: plainOut}})
	wm := [2]int64{types.MinTime, types.MinTime}
	clock := int64(0)
	for step := 0; step <= 400; step++ {
		feed := func(do func(j *Join) error) {
			for _, j := range []*Join{clean, mem} {
				if err := do(j); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
			}
		}
		switch r := rng.Intn(10); {
		case step == 400:
			for port := 0; port < 2; port++ {
				feed(func(j *Join) error { return j.Watermark(port, math.MaxInt64-1) })
			}
			if n := clean.storedRows(0) + clean.storedRows(1); empty && n > 0 {
				t.Fatalf("the cleaning join holds %d rows after the inputs' end", n)
			}
		case r < 7:
			port := rng.Intn(2)
			ts := max(clock-rng.Int63n(12), wm[port]) // on time
			e := types.TimestampValue(ts + rng.Int63n(20))
			if rng.Intn(8) == 0 {
				e = types.Value{}
			}
			row := types.Row{types.StringValue(string(rune('a' + rng.Intn(4)))), types.TimestampValue(ts), types.IntValue(int64(step)), e}
			feed(func(j *Join) error { return j.Process(port, &Batch{Rows: []types.Row{row.Clone()}}) })
			clock += rng.Int63n(3)
		case r < 9:
			port := rng.Intn(2)
			if w := clock - rng.Int63n(8); w > wm[port] {
				wm[port] = w
				feed(func(j *Join) error { return j.Watermark(port, w) })
			}
		default:
			checkpointAll(t, st, uint64(step+1), clean)
			if rng.Intn(2) == 0 { // restart from that checkpoint; the engine re-sends the watermarks
				clean = build()
				if err := clean.Restore(st); err != nil {
					t.Fatal(err)
				}
				resendWatermarks(t, clean, wm)
			}
		}
		if n := clean.storedRows(0) + clean.storedRows(1); n > 6 {
			t.Fatalf("step %d: the spilling join holds %d rows in memory, budget 2 per side", step, n)
		}
		if step%20 != 0 {
			continue // the outputs only grow: comparing now and then finds a difference
		}
		sameViews(t, fmt.Sprintf("seed %d step %d", seed, step), "join with cleanup (against one without)", cleanOut, plainOut)
	}
}

// ev is a row (k, ts, x, e) on port; e < 0 is NULL.
func ev(port int, k string, ts, x, e int64) event {
	ev := types.Value{}
	if e >= 0 {
		ev = types.TimestampValue(e)
	}
	return event{port: port, row: types.Row{types.StringValue(k), types.TimestampValue(ts), types.IntValue(x), ev}, wm: autoWM}
}

// TestHarnessJoinCleanup: JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts AND
// a.e over on-time rows, under every delivery the harness varies
// (batches, parallelism, checkpoints, crashes, reordering between
// watermarks): rows leave as the watermarks pass and the output is the
// join's. Auction b leaves at the right watermark 15 (its e is 12), the
// right rows at the left watermark 30; a left row with a NULL e matches
// nothing.
func TestHarnessJoinCleanup(t *testing.T) {
	node := cleanupNode(bcmp(">=", bcol(5), bcol(1)), bcmp("<=", bcol(5), bcol(3)), 1, 0)
	runHarness(t, harnessCase{
		name: "join/cleanup",
		keys: [][]int{{0}, {0}},
		build: func(in instance) Operator {
			return newCleanupJoin(t, JoinConfig{ID: in.ID, Node: node, Out: in.Out, Late: in.Late, Keep: in.Keep})
		},
		events: []event{
			ev(0, "a", 10, 1, 20), ev(0, "b", 10, 2, 12), ev(0, "c", 10, 3, -1),
			wmAt(0, 10),
			ev(1, "a", 15, 4, 0), ev(1, "b", 11, 5, 0), ev(1, "a", 9, 6, 0), ev(1, "c", 12, 7, 0),
			wmAt(1, 15),
			ev(1, "a", 20, 8, 0), ev(1, "b", 16, 9, 0),
			wmAt(0, 30),
			ev(0, "a", 30, 10, 40),
			wmAt(1, 35),
			ev(1, "a", 35, 11, 0),
			wmAt(0, 100), wmAt(1, 100),
		},
		want:    []string{"a @10 1 @20 a @15 4 @0", "a @10 1 @20 a @20 8 @0", "a @30 10 @40 a @35 11 @0", "b @10 2 @12 b @11 5 @0"},
		reorder: true,
	})
}

// TestJoinProbeRowsShared: probes reuse the rows they decoded, per slot
// of the key's hash, only when the stored row's bytes are the same:
// forty keys (more than the slots, so keys share slots) probed in turn,
// some twice in a row, each pair joins its own key's row; a key probed
// again keeps its decoded row.
func TestJoinProbeRowsShared(t *testing.T) {
	log := &changeLog{}
	j := newCleanupJoin(t, JoinConfig{ID: "j/", Node: cleanupNode(nil, nil, -1, 0), Out: Output{Op: log}})
	const keys = 40
	var left []types.Row
	for i := range keys {
		left = append(left, types.Row{types.StringValue(fmt.Sprintf("k%d", i)), types.TimestampValue(100),
			types.IntValue(int64(i)), types.TimestampValue(200)})
	}
	if err := j.Process(0, &Batch{Rows: left}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	var want []string
	for n := range 400 {
		i := rng.Intn(keys)
		if n%3 == 0 {
			i = 7 // a hot key
		}
		right := types.Row{types.StringValue(fmt.Sprintf("k%d", i)), types.TimestampValue(150), types.IntValue(int64(n)), types.TimestampValue(300)}
		if err := j.Process(1, &Batch{Rows: []types.Row{right}}); err != nil {
			t.Fatal(err)
		}
		want = append(want, "+"+append(append(types.Row{}, left[i]...), right...).String())
	}
	if strings.Join(log.got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("joined rows differ from each key's own pairs:\n got %q\nwant %q", log.got[:5], want[:5])
	}
	k := state.AppendKey(nil, types.StringValue("k7"))
	hot := j.sides[0].get(string(k), joinHashBytes(k))
	r1, err := j.probeRow(0, hot, 0)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := j.probeRow(0, hot, 0)
	if err != nil {
		t.Fatal(err)
	}
	if &r1[0] != &r2[0] {
		t.Fatal("a key probed twice in a row decoded its row again")
	}
}
