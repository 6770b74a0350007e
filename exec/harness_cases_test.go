package exec

import (
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// Input rows of the window and aggregate cases: (k VARCHAR, ts TIMESTAMP,
// v BIGINT). Output rows of the window cases: k, window_start, window_end,
// count(*), sum(v), min(v), max(v), avg(v), count(DISTINCT v).

// in is a row on port 0 under the port's last watermark.
func in(k string, ts, v int64) event {
	return event{row: types.Row{types.StringValue(k), types.TimestampValue(ts), types.IntValue(v)}, wm: autoWM}
}

// inR is a row on port 1.
func inR(k string, ts, v int64) event {
	e := in(k, ts, v)
	e.port = 1
	return e
}

// wmAt is a watermark advance on port.
func wmAt(port int, wm int64) event { return event{port: port, wm: wm} }

var allAggs = []planner.AggCall{
	{Fn: "count", Arg: -1, T: types.Int},
	{Fn: "sum", Arg: 2, T: types.Int},
	{Fn: "min", Arg: 2, T: types.Int},
	{Fn: "max", Arg: 2, T: types.Int},
	{Fn: "avg", Arg: 2, T: types.Float},
	{Fn: "count", Arg: 2, Distinct: true, T: types.Int},
}

// windowAgg builds a WindowAggregate grouped by k over allAggs.
func windowAgg(win planner.WindowSpec, c planner.Contract) func(instance) Operator {
	win.TimeCol = 1
	if c.Policy == lateness.SideOutput || c.Policy == lateness.UpdateSideOutput {
		c.SideTable = "late"
	}
	node := &planner.WindowAggregate{Window: win, GroupCols: []int{0}, Aggs: allAggs, Contract: c}
	return func(in instance) Operator {
		return NewWindowAggregate(WindowAggregateConfig{ID: in.ID, Node: node, Out: in.Out, Side: in.Side, Late: in.Late, Keep: keepOf(in)})
	}
}

// policyOutputs is a window case's expected output per late-data policy:
// drop also stands for side output's view, update for update side
// output's.
type policyOutputs struct {
	drop, update         []string
	sideOnly, updateSide []string // side tables
	onUpdateExtra        []string // rows of still-open windows under EMIT ON UPDATE
}

// windowCases expands one window scenario over the four policies and the
// two EMIT modes.
func windowCases(name string, win planner.WindowSpec, late int64, evs []event, want policyOutputs) []harnessCase {
	var out []harnessCase
	policies := []lateness.Policy{lateness.Drop, lateness.Update, lateness.SideOutput, lateness.UpdateSideOutput}
	for _, emit := range []string{"on_window_close", "on_update"} {
		for _, p := range policies {
			c := harnessCase{
				name:    name + "/" + emit + "/" + p.String(),
				keys:    [][]int{{0}},
				build:   windowAgg(win, planner.Contract{Lateness: late, Policy: p, Emit: emit}),
				events:  evs,
				reorder: true,
			}
			switch p {
			case lateness.Drop:
				c.want = want.drop
			case lateness.Update:
				c.want = want.update
			case lateness.SideOutput:
				c.want, c.wantSide = want.drop, want.sideOnly
			case lateness.UpdateSideOutput:
				c.want, c.wantSide = want.update, want.updateSide
			}
			if emit == "on_update" {
				c.want = append(append([]string{}, c.want...), want.onUpdateExtra...)
			}
			out = append(out, c)
		}
	}
	return out
}

// TUMBLE 10, lateness 5: [0,10) fires at 10 and is gone at 15.
var tumbleEvents = []event{
	in("a", 1, 1), in("a", 3, 2), in("b", 4, 5), in("a", 12, 2),
	wmAt(0, 10),
	in("a", 5, 6), // late for [0,10)
	in("b", 14, 1),
	wmAt(0, 16),
	in("a", 8, 9), // [0,10) is gone: expired
	in("a", 15, 3),
	wmAt(0, 20),
	in("a", 19, 4), // late for [10,20)
	wmAt(0, 30),
	in("a", 33, 1), // [30,40) stays open
}

var tumbleWant = policyOutputs{
	drop: []string{
		"a @0 @10 2 3 1 2 f1.5 2", "b @0 @10 1 5 5 5 f5 1",
		"a @10 @20 2 5 2 3 f2.5 2", "b @10 @20 1 1 1 1 f1 1",
	},
	update: []string{
		"a @0 @10 3 9 1 6 f3 3", "b @0 @10 1 5 5 5 f5 1",
		"a @10 @20 3 9 2 4 f3 3", "b @10 @20 1 1 1 1 f1 1",
	},
	sideOnly:      []string{"a @5 6 late @10", "a @8 9 expired @16", "a @19 4 late @20"},
	updateSide:    []string{"a @8 9 expired @16"},
	onUpdateExtra: []string{"a @30 @40 1 1 1 1 f1 1"},
}

// HOP size 10 slide 5, lateness 5: each row is in two windows, judged
// per window.
var hopEvents = []event{
	in("a", 3, 1), in("a", 7, 2),
	wmAt(0, 5),    // fires [-5,5), which started before the first row
	in("a", 4, 3), // late for [-5,5), on time for [0,10)
	wmAt(0, 11),   // fires [0,10); [-5,5) is gone
	in("a", 2, 4), // expired for [-5,5), late for [0,10): one side row
	in("a", 12, 5),
	wmAt(0, 20),
	in("a", 21, 1), // [15,25) and [20,30) stay open
}

var hopWant = policyOutputs{
	drop: []string{
		"a @-5 @5 1 1 1 1 f1 1", "a @0 @10 3 6 1 3 f2 3",
		"a @5 @15 2 7 2 5 f3.5 2", "a @10 @20 1 5 5 5 f5 1",
	},
	update: []string{
		"a @-5 @5 2 4 1 3 f2 2", "a @0 @10 4 10 1 4 f2.5 4",
		"a @5 @15 2 7 2 5 f3.5 2", "a @10 @20 1 5 5 5 f5 1",
	},
	sideOnly:      []string{"a @4 3 late @5", "a @2 4 expired @11"},
	updateSide:    []string{"a @2 4 expired @11"},
	onUpdateExtra: []string{"a @15 @25 1 1 1 1 f1 1", "a @20 @30 1 1 1 1 f1 1"},
}

// SESSION gap 10, lateness 5.
var sessionEvents = []event{
	in("a", 0, 1), in("a", 5, 2), // a [0,15)
	in("b", 2, 3),  // b [2,12)
	wmAt(0, 12),    // fires b [2,12)
	in("a", 20, 4), // a [20,30), apart from [0,15)
	in("b", 11, 5), // reopens b as [2,21)
	wmAt(0, 16),    // fires a [0,15)
	in("a", 8, 6),  // reopens a as [0,18)
	wmAt(0, 25),    // fires a [0,18) and b [2,21); a [0,18) is gone
	in("b", 3, 7),  // late for b [2,21)
	in("a", 1, 8),  // expired: a [1,11) would end long ago
	wmAt(0, 40),
	in("a", 45, 1), // a [45,55) stays open
}

var sessionWant = policyOutputs{
	drop:          []string{"a @0 @18 3 9 1 6 f3 3", "b @2 @21 2 8 3 5 f4 2", "a @20 @30 1 4 4 4 f4 1"},
	update:        []string{"a @0 @18 3 9 1 6 f3 3", "b @2 @21 3 15 3 7 f5 3", "a @20 @30 1 4 4 4 f4 1"},
	sideOnly:      []string{"b @3 7 late @25", "a @1 8 expired @25"},
	updateSide:    []string{"a @1 8 expired @25"},
	onUpdateExtra: []string{"a @45 @55 1 1 1 1 f1 1"},
}

func TestHarnessWindowAggregate(t *testing.T) {
	var cases []harnessCase
	cases = append(cases, windowCases("tumble", planner.WindowSpec{Kind: "tumble", Size: 10, Slide: 10}, 5, tumbleEvents, tumbleWant)...)
	cases = append(cases, windowCases("hop", planner.WindowSpec{Kind: "hop", Size: 10, Slide: 5}, 5, hopEvents, hopWant)...)
	cases = append(cases, windowCases("session", planner.WindowSpec{Kind: "session", Gap: 10}, 5, sessionEvents, sessionWant)...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runHarness(t, c) })
	}
}

// TestHarnessAggregate: GROUP BY k with count(*) and sum(v), STATE TTL 10
// on event time: a group last updated at t is dropped (its row retracted)
// once the watermark reaches t + 10.
func TestHarnessAggregate(t *testing.T) {
	node := &planner.Aggregate{GroupCols: []int{0}, Aggs: allAggs[:2], TTL: 10}
	runHarness(t, harnessCase{
		name:  "aggregate/ttl",
		keys:  [][]int{{0}},
		build: aggregateBuild(node), spill: true,
		events: []event{
			in("a", 1, 1), in("b", 2, 2), in("a", 5, 3),
			wmAt(0, 5),
			in("b", 9, 4),
			wmAt(0, 15),    // a (last 5) expires
			in("a", 16, 5), // a again, from scratch
			wmAt(0, 19),    // b (last 9) expires
			in("c", 3, 1),  // TTL is not lateness: c is counted until the next watermark
			wmAt(0, 20),
		},
		want:    []string{"a 1 5"},
		reorder: true,
	})
	// The end of a bounded input expires nothing: the groups active within
	// the TTL of the last real watermark stay, with their final rows.
	runHarness(t, harnessCase{
		name:  "aggregate/ttl end of input",
		keys:  [][]int{{0}},
		build: aggregateBuild(node), spill: true,
		events: []event{
			in("a", 1, 1), in("b", 9, 2), in("b", 12, 3),
			wmAt(0, 15), // a (last 1) expires
			wmAt(0, types.EndOfTime),
		},
		want:    []string{"b 2 5"},
		reorder: true,
	})
}

// joinBuild builds a Join over rows (k VARCHAR, ts TIMESTAMP, x BIGINT).
func joinBuild(node *planner.Join) func(instance) Operator {
	return func(in instance) Operator {
		return NewJoin(JoinConfig{ID: in.ID, Node: node, Out: in.Out, Late: in.Late, Keep: in.Keep})
	}
}

var joinSchema = types.Schema{{Name: "k", Type: types.String}, {Name: "ts", Type: types.Timestamp}, {Name: "x", Type: types.Int}}

// TestHarnessIntervalJoin: a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - 5
// AND a.ts + 10. A left row is purged once the right watermark passes
// ts + 10, a right row once the left watermark passes ts + 5; a row whose
// partners are purged is late, not joined.
func TestHarnessIntervalJoin(t *testing.T) {
	node := &planner.Join{
		Left: &planner.Scan{Out: joinSchema}, Right: &planner.Scan{Out: joinSchema},
		Kind: planner.IntervalJoin, LeftKeys: []int{0}, RightKeys: []int{0},
		LeftTime: 1, RightTime: 1, Lower: -5, Upper: 10,
	}
	runHarness(t, harnessCase{
		name:  "join/interval",
		keys:  [][]int{{0}, {0}},
		build: joinBuild(node),
		events: []event{
			in("a", 10, 1), inR("a", 5, 1), inR("a", 21, 2), inR("b", 10, 3), in("a", 20, 2),
			wmAt(0, 15), // purges right a@5
			wmAt(1, 15),
			in("b", 12, 3),
			inR("a", 8, 4), // behind the right watermark: joins, not kept
			wmAt(0, 30),    // purges every right row
			inR("a", 25, 5),
			wmAt(1, 40),    // purges every left row
			in("a", 28, 6), // joins right a@25, not kept
			in("a", 35, 7), // kept: 35 + 10 >= 40
			wmAt(0, 31),
			inR("a", 33, 8), // joins a@35; a@28 was never kept
		},
		want: []string{
			"a @10 1 a @5 1", "a @20 2 a @21 2", "b @12 3 b @10 3",
			"a @10 1 a @8 4", "a @20 2 a @25 5", "a @28 6 a @25 5", "a @35 7 a @33 8",
		},
		reorder: true,
	})
}

// TestHarnessWindowJoin joins two windowed inputs (k, window_start,
// window_end, x) on k and window_start; a window's matches are emitted,
// and its rows dropped, once both inputs' watermarks reach its end.
func TestHarnessWindowJoin(t *testing.T) {
	schema := types.Schema{{Name: "k", Type: types.String}, {Name: "window_start", Type: types.Timestamp}, {Name: "window_end", Type: types.Timestamp}, {Name: "x", Type: types.Int}}
	node := &planner.Join{
		Left: &planner.Scan{Out: schema}, Right: &planner.Scan{Out: schema},
		Kind: planner.WindowJoin, LeftKeys: []int{0, 1}, RightKeys: []int{0, 1},
		LeftTime: 1, RightTime: 1, WindowSize: 10,
	}
	w := func(port int, k string, start, x int64) event {
		row := types.Row{types.StringValue(k), types.TimestampValue(start), types.TimestampValue(start + 10), types.IntValue(x)}
		return event{port: port, row: row, wm: autoWM}
	}
	runHarness(t, harnessCase{
		name:  "join/window",
		keys:  [][]int{{0, 1}, {0, 1}},
		build: joinBuild(node),
		events: []event{
			w(0, "a", 0, 1), w(1, "a", 0, 2), w(0, "b", 0, 3), w(1, "b", 10, 4),
			wmAt(0, 10),
			w(1, "b", 0, 5), // the right watermark is below 10: [0,10) is open
			wmAt(1, 10),     // [0,10) closes: a 1-2 and b 3-5
			w(0, "b", 10, 6),
			wmAt(0, 20), wmAt(1, 20), // [10,20) closes: b 6-4
			w(0, "a", 0, 7), // [0,10) closed: late
			wmAt(0, 30), wmAt(1, 30),
		},
		want: []string{
			"a @0 @10 1 a @0 @10 2", "b @0 @10 3 b @0 @10 5", "b @10 @20 6 b @10 @20 4",
		},
		reorder: true,
	})
}

// upsertView runs a keyed Materialize and applies its sink's changelog
// the way a keyed sink does (an insert upserts its key, a delete removes
// it), emitting the keyed table's changes downstream: the harness's view
// then holds what the sink holds, which must be the Materialize's rows.
type upsertView struct {
	*Materialize
	table   map[string]types.Row
	changes []connectors.Change
	out     Output
}

func newUpsertView(in instance) *upsertView {
	u := &upsertView{table: map[string]types.Row{}, out: in.Out}
	u.Materialize = NewMaterialize(in.ID, []int{0}, func(ch []connectors.Change) { u.changes = append(u.changes, ch...) })
	return u
}

func (u *upsertView) Process(port int, b *Batch) error {
	u.changes = u.changes[:0]
	if err := u.Materialize.Process(port, b); err != nil {
		return err
	}
	out := &Batch{}
	for _, c := range u.changes {
		k := c.Row[0].String()
		if old, ok := u.table[k]; ok {
			out.Rows, out.Diffs = append(out.Rows, old), append(out.Diffs, -1)
			delete(u.table, k)
		}
		if c.Op != connectors.Delete {
			u.table[k] = c.Row
			out.Rows, out.Diffs = append(out.Rows, c.Row), append(out.Diffs, 1)
		}
	}
	return u.out.Emit(out)
}

// Restore reloads the view and rebuilds the sink's table from it.
func (u *upsertView) Restore(s *state.Store) error {
	if err := u.Materialize.Restore(s); err != nil {
		return err
	}
	rows, err := u.Materialize.Rows()
	if err != nil {
		return err
	}
	for _, r := range rows {
		u.table[r[0].String()] = r
	}
	return nil
}

func retract(e event) event {
	e.del = true
	return e
}

// TestHarnessMaterialize: a keyed view's changelog, applied as upserts and
// deletes, gives the view's contents however the changes are batched.
func TestHarnessMaterialize(t *testing.T) {
	runHarness(t, harnessCase{
		name:  "materialize/upserts",
		build: func(in instance) Operator { return newUpsertView(in) },
		events: []event{
			in("a", 0, 1), in("b", 0, 1),
			wmAt(0, 1),
			retract(in("a", 0, 1)), in("a", 0, 2), retract(in("b", 0, 1)), in("c", 0, 1),
			wmAt(0, 2),
			retract(in("a", 0, 2)), in("a", 0, 3), retract(in("c", 0, 1)),
		},
		want:   []string{"a @0 3"},
		serial: true,
	})
}

// keepOf is the Keep predicate over a one-input operator's groups that
// instance in hands its operator, nil when it has none.
func keepOf(in instance) func(types.Row) bool {
	if in.Keep == nil {
		return nil
	}
	return func(g types.Row) bool { return in.Keep(0, g) }
}

// aggregateBuild builds node's GROUP BY (event time in column 1) for a
// harness instance.
func aggregateBuild(node *planner.Aggregate) func(instance) Operator {
	return func(in instance) Operator {
		return NewAggregate(AggregateConfig{ID: in.ID, Node: node, TimeCol: 1, Out: in.Out, Keep: keepOf(in),
			Store: in.Store, Budget: in.Budget})
	}
}
