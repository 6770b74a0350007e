package exec

import (
	"math/rand"
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// retractCalls are the aggregates an Aggregate folds over a retracting
// input, over BIGINT (0), VARCHAR (1) and DECIMAL (2) arguments.
var retractCalls = []planner.AggCall{
	{Fn: "count", T: types.Int, Arg: -1},
	{Fn: "count", T: types.Int, Arg: 0},
	{Fn: "sum", T: types.Int, Arg: 0},
	{Fn: "sum", T: types.Decimal, Arg: 2},
	{Fn: "avg", T: types.Float, Arg: 0},
	{Fn: "avg", T: types.Float, Arg: 2},
	{Fn: "min", T: types.Int, Arg: 0},
	{Fn: "max", T: types.Int, Arg: 0},
	{Fn: "min", T: types.String, Arg: 1},
	{Fn: "max", T: types.Decimal, Arg: 2},
	{Fn: "count", T: types.Int, Arg: 0, Distinct: true},
	{Fn: "sum", T: types.Int, Arg: 0, Distinct: true},
	{Fn: "avg", T: types.Float, Arg: 2, Distinct: true},
	{Fn: "max", T: types.String, Arg: 1, Distinct: true},
}

// retractRow is a row with small values, NULLs among them, so values
// repeat and extremes are retracted while copies remain.
func retractRow(rng *rand.Rand) types.Row {
	r := types.Row{types.IntValue(int64(rng.Intn(9) - 3)), types.StringValue(string(rune('a' + rng.Intn(6)))), decimalAt(rng.Intn(7))}
	if rng.Intn(8) == 0 {
		r[rng.Intn(3)] = types.NullValue
	}
	return r
}

// TestRetractAccsMatchRefold inserts and retracts random rows, checking
// after each step that every result equals a fold of the rows left by
// the append-only accumulators, and that a checkpoint's encoding restores
// the same results (the run goes on from the restored state).
func TestRetractAccsMatchRefold(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	a := newRetractAccs(retractCalls)
	var live []types.Row
	for step := 0; step < 3000; step++ {
		if len(live) > 0 && rng.Intn(5) < 2 {
			i := rng.Intn(len(live))
			a.remove(retractCalls, live[i])
			live = append(live[:i], live[i+1:]...)
		} else {
			r := retractRow(rng)
			a.insert(retractCalls, r)
			live = append(live, r)
		}
		want := newAccs(retractCalls)
		for _, r := range live {
			want.add(retractCalls, r)
		}
		checkRetractResults(t, step, a, want)
		if rng.Intn(50) == 0 {
			back := newRetractAccs(retractCalls)
			if err := back.decode(a.encode()); err != nil {
				t.Fatalf("step %d: decode: %v", step, err)
			}
			checkRetractResults(t, step, back, want)
			a = back
		}
		if got := a[len(retractCalls)].result().I; got != int64(len(live)) {
			t.Fatalf("step %d: hidden row count %d, want %d", step, got, len(live))
		}
	}
}

func checkRetractResults(t *testing.T, step int, got, want accs) {
	t.Helper()
	for i, c := range retractCalls {
		g, w := got[i].result(), want[i].result()
		if !sameResult(g, w) {
			t.Fatalf("step %d: %s: got %s, want %s", step, c.String(), g.String(), w.String())
		}
	}
}

// TestMultisetDecodeRefusesOddState checks a value, count pair state cut
// short is an error, not a wrong fold.
func TestMultisetDecodeRefusesOddState(t *testing.T) {
	a := newRetractAccumulator(planner.AggCall{Fn: "max", T: types.Int, Arg: 0})
	if err := a.decode(types.Row{types.IntValue(1)}); err == nil {
		t.Fatal("decode of a pair cut short: want an error")
	}
}

// sameResult compares results as values: a DECIMAL's spelling (0.2 or
// 0.20) may differ, as which of equal values is kept or the scale a sum
// reached depends on the values retracted.
func sameResult(g, w types.Value) bool {
	if g.K == types.Decimal && w.K == types.Decimal {
		return types.Compare(g, w) == 0
	}
	return g.K == w.K && g.String() == w.String()
}

// TestHarnessAggregateRetracting: GROUP BY k with every aggregate over a
// retracting input: a retracted maximum gives way to the next one, a
// group whose last row is retracted disappears, however the changes are
// batched, split over instances, checkpointed or crashed.
func TestHarnessAggregateRetracting(t *testing.T) {
	// Any aggregate's changes retract: its stand-in makes the input so.
	node := &planner.Aggregate{Input: &planner.Aggregate{}, GroupCols: []int{0}, Aggs: allAggs}
	runHarness(t, harnessCase{
		name:  "aggregate/retracting",
		keys:  [][]int{{0}},
		build: aggregateBuild(node), spill: true,
		events: []event{
			in("a", 0, 5), in("a", 0, 7), in("b", 0, 1), in("a", 0, 7),
			wmAt(0, 1),
			retract(in("a", 0, 7)), in("b", 0, 3), retract(in("b", 0, 1)),
			wmAt(0, 2),
			retract(in("a", 0, 7)), retract(in("b", 0, 3)), in("c", 0, 2),
			wmAt(0, 3),
			retract(in("a", 0, 5)), in("a", 0, 9), in("a", 0, 4),
		},
		want: []string{"a 2 13 4 9 f6.5 2", "c 1 2 2 2 f2 1"},
	})
}
