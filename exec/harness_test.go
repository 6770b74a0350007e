package exec

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/types"
)

// This file is the operator harness: runHarness feeds a case's events to
// the operator under test many times, varying how they are delivered, and
// requires the same consolidated output (the view after retractions) every
// time. What it varies:
//
//   - batch splits: one row per batch (the baseline), every run of rows in
//     one batch, seeded random splits; a watermark advance always ends a
//     batch, so watermarks keep their logical positions;
//   - parallelism 1 and 4 (NewParallel, each instance restoring only the
//     keys it owns, as the pipeline builder wires it);
//   - checkpoint and restore at a random point, into a real state.Store;
//     the "crash" form checkpoints twice, keeps feeding past the second
//     checkpoint, then restores from it and replays the rest;
//   - duplicated rows and rows reordered between two watermark advances,
//     for the cases that declare it safe;
//   - a state budget of one row, so everything spills, with and without
//     checkpoints and crashes, for the cases whose operator spills.
//
// After a restore the harness re-sends each port's last watermark before
// replaying, as the engine does (engine/view.go: "Operators learn the
// restored watermark before new rows arrive").

// autoWM marks a row event whose watermark in force is the port's last
// watermark advance.
const autoWM = types.MinTime + 1

// event is one step of an operator's input: a row arriving on a port with
// the watermark in force when it arrived, or (row == nil) a watermark
// advance on that port.
type event struct {
	port int
	row  types.Row
	wm   int64
	del  bool // the row is a retraction
}

// instance is what a case's factory gets to build one operator instance.
type instance struct {
	ID   string // state key prefix, unique per run
	Out  Output
	Side func(row types.Row, reason string, wm int64)
	Late *lateness.Counters
	// Keep is the restore filter of this instance (nil when it owns all).
	Keep func(port int, key types.Row) bool
	// Store and Budget, when Budget > 0, make a spilling operator keep
	// at most Budget entries in memory (harnessCase.spill).
	Store  *state.Store
	Budget int
}

// harnessCase is one operator test: a factory, its input and the
// consolidated output expected (rows formatted by fmtRow, any order).
type harnessCase struct {
	name     string
	keys     [][]int // key columns per input port, for Parallel
	build    func(in instance) Operator
	events   []event
	want     []string
	wantSide []string
	reorder  bool // rows between watermark advances may come in any order
	dup      bool // duplicated rows do not change the output
	serial   bool // the operator is not keyed: run one instance only
	spill    bool // the operator spills: also run it with a budget of one
}

// variation is one way of delivering a case's events.
type variation struct {
	split   string // "each", "one" or "random"
	seed    int64
	par     int
	ckpts   int  // checkpoints to take (0: none); restore from the last
	crash   bool // keep feeding past the last checkpoint before restoring
	dup     bool
	reorder bool
	budget  int // instance.Budget (0: no spilling)
}

func (v variation) label(ckpts []int, crashAt int) string {
	var b strings.Builder
	b.WriteString("split=" + v.split)
	if v.split == "random" {
		fmt.Fprintf(&b, "(seed %d)", v.seed)
	}
	fmt.Fprintf(&b, " parallelism=%d", v.par)
	if v.dup {
		b.WriteString(" duplicated")
	}
	if v.reorder {
		fmt.Fprintf(&b, " reordered(seed %d)", v.seed)
	}
	if v.budget > 0 {
		fmt.Fprintf(&b, " budget=%d", v.budget)
	}
	switch {
	case len(ckpts) == 1 && !v.crash:
		fmt.Fprintf(&b, " restore-at=%d", ckpts[0])
	case len(ckpts) > 0:
		fmt.Fprintf(&b, " checkpoints=%v crash-at=%d", ckpts, crashAt)
	}
	return b.String()
}

// variations lists the deliveries every case runs under; the first is the
// baseline (one row per batch, one instance, no restore).
func variations(c harnessCase) []variation {
	vs := []variation{{split: "each", par: 1}, {split: "one", par: 1}, {split: "each", par: 4}, {split: "one", par: 4}}
	for s := int64(1); s <= 3; s++ {
		vs = append(vs, variation{split: "random", seed: s, par: 1}, variation{split: "random", seed: s, par: 4})
	}
	for s := int64(1); s <= 6; s++ {
		vs = append(vs, variation{split: "random", seed: 10 + s, par: 1 + 3*int(s%2), ckpts: 1})
	}
	for s := int64(1); s <= 4; s++ {
		vs = append(vs, variation{split: "random", seed: 20 + s, par: 1 + 3*int(s%2), ckpts: 2, crash: true})
	}
	for s := int64(1); c.dup && s <= 3; s++ {
		vs = append(vs, variation{split: "random", seed: 30 + s, par: 1 + 3*int(s%2), ckpts: int(s % 2), dup: true})
	}
	for s := int64(1); c.reorder && s <= 4; s++ {
		vs = append(vs, variation{split: "random", seed: 40 + s, par: 1 + 3*int(s%2), ckpts: int(s % 2), reorder: true})
	}
	for s := int64(1); c.spill && s <= 6; s++ {
		vs = append(vs, variation{split: "random", seed: 50 + s, par: 1 + 3*int(s%2), ckpts: int(s % 3), crash: s%3 == 2, budget: 1})
	}
	if c.serial {
		vs = slices.DeleteFunc(vs, func(v variation) bool { return v.par > 1 })
	}
	return vs
}

// runHarness runs c under every variation.
func runHarness(t *testing.T, c harnessCase) {
	t.Helper()
	store, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	var base *result
	for i, v := range variations(c) {
		res := runVariation(c, v, store, fmt.Sprintf("run%d/", i))
		switch {
		case res.err != nil:
			t.Errorf("%s: %s: %v", c.name, res.label, res.err)
		case i == 0:
			base = &res
			checkRows(t, c.name+": baseline ("+res.label+"), view", res.view, c.want)
			checkRows(t, c.name+": baseline ("+res.label+"), side table", res.side, c.wantSide)
		case base != nil:
			checkRows(t, c.name+": "+res.label+", view (vs baseline)", res.view, base.view)
			checkRows(t, c.name+": "+res.label+", side table (vs baseline)", res.side, base.side)
		}
	}
}

func checkRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// result is one variation's consolidated output.
type result struct {
	label      string
	view, side []string
	err        error
}

// runVariation delivers c's events as v says, checkpointing under prefix.
func runVariation(c harnessCase, v variation, store *state.Store, prefix string) result {
	rng := rand.New(rand.NewSource(v.seed))
	steps := deliver(perturb(fillWM(c.events), v, rng), v.split, rng)
	ckpts, crashAt := plan(len(steps), v, rng)
	res := result{label: v.label(ckpts, crashAt)}
	r := newRig(c, v, prefix, store)
	from, saved := 0, r.wms
	for _, at := range ckpts {
		if res.err = r.feed(steps[from:at]); res.err != nil {
			return res
		}
		from, saved = at, r.wms
		if res.err = r.checkpoint(store); res.err != nil {
			return res
		}
	}
	if len(ckpts) > 0 {
		if res.err = r.feed(steps[from:crashAt]); res.err != nil {
			return res
		}
		if r, res.err = restoreRig(c, v, prefix, store, saved); res.err != nil {
			return res
		}
	}
	if res.err = r.feed(steps[from:]); res.err == nil {
		view, err := r.view.Rows()
		side, err2 := r.side.Rows()
		if res.err = errors.Join(err, err2); res.err == nil {
			res.view, res.side = fmtRows(view), fmtRows(side)
		}
	}
	return res
}

// plan picks v.ckpts sorted checkpoint step indexes and the crash point.
func plan(n int, v variation, rng *rand.Rand) (ckpts []int, crashAt int) {
	for range v.ckpts {
		ckpts = append(ckpts, rng.Intn(n+1))
	}
	slices.Sort(ckpts)
	if len(ckpts) == 0 {
		return nil, 0
	}
	last := ckpts[len(ckpts)-1]
	crashAt = last
	if v.crash {
		crashAt = last + rng.Intn(n-last+1)
	}
	return ckpts, crashAt
}

// fillWM stamps rows marked autoWM with their port's last watermark.
func fillWM(evs []event) []event {
	out := slices.Clone(evs)
	wm := map[int]int64{}
	for i, e := range out {
		cur, ok := wm[e.port]
		if !ok {
			cur = types.MinTime
		}
		switch {
		case e.row == nil:
			wm[e.port] = max(cur, e.wm)
		case e.wm == autoWM:
			out[i].wm = cur
		}
	}
	return out
}

// perturb duplicates rows or reorders rows between watermark advances.
func perturb(evs []event, v variation, rng *rand.Rand) []event {
	var out []event
	seg := 0 // start of the current run of rows in out
	for _, e := range evs {
		if e.row == nil {
			if v.reorder {
				rows := out[seg:]
				rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			}
			out = append(out, e)
			seg = len(out)
			continue
		}
		out = append(out, e)
		if v.dup {
			out = append(out, e)
		}
	}
	if v.reorder {
		rows := out[seg:]
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	return out
}

// step is one delivery: a batch on a port, or (b == nil) a watermark.
type step struct {
	port int
	b    *Batch
	wm   int64
}

// deliver groups rows into batches: per row ("each"), per run of rows on
// one port ("one"), or cut at random ("random").
func deliver(evs []event, split string, rng *rand.Rand) []step {
	var out []step
	var cur *Batch
	for i, e := range evs {
		if e.row == nil {
			cur = nil
			out = append(out, step{port: e.port, wm: e.wm})
			continue
		}
		cut := cur == nil || evs[i-1].port != e.port || split == "each" ||
			(split == "random" && rng.Intn(3) == 0)
		if cut {
			out = append(out, step{port: e.port, b: &Batch{}})
			cur = out[len(out)-1].b
		}
		cur.Rows = append(cur.Rows, e.row)
		cur.WM = append(cur.WM, e.wm)
		cur.Diffs = append(cur.Diffs, diffOf(e))
	}
	return out
}

// rig is the operator under test wired to the view and side-table stores.
type rig struct {
	op         Operator
	view, side *Materialize
	sideMu     sync.Mutex // parallel instances write side rows concurrently
	wms        [2]int64   // the last watermark sent on each port
}

// newRig builds fresh operators: n instances behind NewParallel when
// n > 1, each with the restore filter of the keys it owns.
func newRig(c harnessCase, v variation, prefix string, store *state.Store) *rig {
	n := v.par
	r := &rig{
		view: NewMaterialize(prefix+"view/", nil, nil),
		side: NewMaterialize(prefix+"side/", nil, nil),
		wms:  [2]int64{types.MinTime, types.MinTime},
	}
	in := instance{ID: prefix + "op/", Out: Output{Op: checkedView{r.view}}, Side: r.sideRow, Late: &lateness.Counters{}}
	if v.budget > 0 {
		in.Store, in.Budget = store, v.budget
	}
	if n <= 1 {
		r.op = c.build(in)
		return r
	}
	r.op = NewParallel(n, c.keys, in.Out, func(i int, out Output) Operator {
		inst := in
		inst.Out = out
		inst.Keep = func(_ int, key types.Row) bool { return Owner(key, n) == i }
		return c.build(inst)
	})
	return r
}

// sideRow is the side-table writer (pipeline.go's sideFunc).
func (r *rig) sideRow(row types.Row, reason string, wm int64) {
	r.sideMu.Lock()
	defer r.sideMu.Unlock()
	out := append(row.Clone(), types.StringValue(reason), types.TimestampValue(wm))
	_ = r.side.Process(0, &Batch{Rows: []types.Row{out}})
}

func (r *rig) stateful() []Stateful {
	out := []Stateful{r.view, r.side}
	if s, ok := r.op.(Stateful); ok {
		out = append(out, s)
	}
	return out
}

// feed delivers steps, each batch a fresh copy.
func (r *rig) feed(steps []step) error {
	for i, s := range steps {
		var err error
		if s.b == nil {
			r.wms[s.port] = max(r.wms[s.port], s.wm)
			err = r.op.Watermark(s.port, s.wm)
		} else {
			b := &Batch{Rows: make([]types.Row, len(s.b.Rows)), WM: slices.Clone(s.b.WM), Diffs: slices.Clone(s.b.Diffs)}
			for j, row := range s.b.Rows {
				b.Rows[j] = row.Clone()
			}
			err = r.op.Process(s.port, b)
		}
		if err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
	}
	return nil
}

// checkpoint writes every Stateful's changes in one transaction.
func (r *rig) checkpoint(store *state.Store) error {
	return store.Update(func(w *state.Writer) error {
		for _, s := range r.stateful() {
			if err := s.Checkpoint(w); err != nil {
				return err
			}
		}
		return nil
	})
}

// restoreRig builds fresh operators, restores them from store and re-sends
// the watermarks in force at the checkpoint.
func restoreRig(c harnessCase, v variation, prefix string, store *state.Store, wms [2]int64) (*rig, error) {
	r := newRig(c, v, prefix, store)
	for _, s := range r.stateful() {
		if err := s.Restore(store); err != nil {
			return nil, fmt.Errorf("restore: %w", err)
		}
	}
	for port, wm := range wms {
		if wm == types.MinTime {
			continue
		}
		r.wms[port] = wm
		if err := r.op.Watermark(port, wm); err != nil {
			return nil, fmt.Errorf("watermark after restore: %w", err)
		}
	}
	return r, nil
}

// checkedView feeds a Materialize one row at a time and fails on a batch
// whose columns disagree or on the retraction of a row the view does not
// hold (Materialize itself ignores those).
type checkedView struct{ m *Materialize }

func (v checkedView) Process(port int, b *Batch) error {
	if (b.Diffs != nil && len(b.Diffs) != len(b.Rows)) || (b.WM != nil && len(b.WM) != len(b.Rows)) {
		return fmt.Errorf("output batch has %d rows, %d diffs, %d watermarks", len(b.Rows), len(b.Diffs), len(b.WM))
	}
	for i, row := range b.Rows {
		k := state.AppendRow(nil, row)
		id, ok := v.m.rows.find(k, v.m.rows.hash(k))
		if (!ok || v.m.rows.rec(id).count <= 0) && b.Diff(i) < 0 {
			return fmt.Errorf("retraction of row %s the view does not hold", fmtRow(row))
		}
		if err := v.m.Process(port, &Batch{Rows: []types.Row{row}, Diffs: []int8{b.Diff(i)}}); err != nil {
			return err
		}
	}
	return nil
}

func (v checkedView) Watermark(port int, wm int64) error { return v.m.Watermark(port, wm) }
func (v checkedView) Tick(now int64) error               { return v.m.Tick(now) }

// fmtRow prints a row compactly: timestamps as @micros.
func fmtRow(r types.Row) string {
	parts := make([]string, len(r))
	for i, v := range r {
		switch v.K {
		case types.Timestamp:
			parts[i] = "@" + strconv.FormatInt(v.I, 10)
		case types.Float:
			parts[i] = "f" + types.FormatFloat(v.F)
		default:
			parts[i] = v.String()
		}
	}
	return strings.Join(parts, " ")
}

func fmtRows(rows []types.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmtRow(r)
	}
	slices.Sort(out)
	return out
}

func diffOf(e event) int8 {
	if e.del {
		return -1
	}
	return 1
}
