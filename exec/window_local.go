package exec

import (
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// LocalWindowAggregate is the first phase of a split window aggregate
// (planner.SplitAggregate). It judges each row against its windows
// exactly as WindowAggregate does — the verdict depends only on the row's
// watermark, the window end and the contract — handles late rows (drop,
// side output), and folds the rows of one batch into partial accumulators
// per (group, window). At the end of the batch it emits one partial row
// per (group, window) to the global phase, which merges them into its
// state. It keeps no state between batches, so it can run on any instance
// (rows reach it round-robin, which spreads a skewed key over all cores).
//
// A partial row is: the group columns, window start and end, whether the
// window was already fired when the rows arrived (late), then each
// accumulator's encoding (see partialWidth).
type LocalWindowAggregate struct {
	groups []int
	calls  []planner.AggCall
	win    planner.WindowSpec
	policy lateness.Policy
	out    Output
	late   *lateness.Counters
	judge  windowJudge

	wm    int64
	batch map[string]*localGroup // this batch's groups, by key
	// ints holds the batch's groups instead of batch when the group is
	// one column and the row's value there is a BIGINT (or INTEGER,
	// SMALLINT): the value itself is the key, with no key to encode and
	// no string to hash. Its keys encode as no other kind's do, so the
	// two maps never hold one group twice.
	ints   map[int64]*localGroup
	order  []*partial
	keyBuf []byte

	// reuse is set when every call's accumulator resets in place: then a
	// flushed batch's groups and partials go to the free lists and the
	// next batches take them from there, so a partial costs no
	// allocation once the free lists have grown to a batch's size.
	reuse      bool
	width      int // values in a partial row (a hint: array_agg's vary)
	freeGroups []*localGroup
	freeParts  []*partial
}

// localGroup is one group's partials in a batch: a row's windows (five
// for a HOP of size 5 × slide) cost one map lookup, not one each.
type localGroup struct {
	row   types.Row
	parts []*partial
}

type partial struct {
	group      types.Row
	start, end int64
	late       bool
	acc        accs
}

// NewLocalWindowAggregate returns the local phase of n (not SESSION, no
// DISTINCT).
func NewLocalWindowAggregate(n *planner.WindowAggregate, out Output, side func(types.Row, string, int64), late *lateness.Counters) *LocalWindowAggregate {
	p := n.Contract.Policy
	if p == 0 {
		p = lateness.Drop
	}
	width := len(n.GroupCols) + 3
	for _, c := range n.Aggs {
		width += partialWidth(c)
	}
	return &LocalWindowAggregate{width: width, groups: n.GroupCols, calls: n.Aggs, win: n.Window, policy: p,
		out: out, late: late, wm: types.MinTime, batch: map[string]*localGroup{}, ints: map[int64]*localGroup{}, reuse: resettable(n.Aggs),
		judge: windowJudge{win: n.Window, contract: n.Contract, policy: p, side: side, late: late}}
}

// Process implements Operator.
func (l *LocalWindowAggregate) Process(_ int, b *Batch) error {
	for i, r := range b.Rows {
		t := r[l.win.TimeCol]
		if t.IsNull() {
			l.late.Add(l.policy, "null_time", 1)
			continue
		}
		wm := l.wm
		if b.WM != nil && b.WM[i] > wm {
			wm = b.WM[i]
		}
		l.row(r, t.I, wm)
	}
	return l.flush()
}

// row folds one row into the partials of its windows.
func (l *LocalWindowAggregate) row(r types.Row, t, wm int64) {
	var g *localGroup
	l.judge.row(r, t, wm, func(start, end int64, late bool) {
		if g == nil {
			g = l.group(r)
		}
		l.partial(g, start, end, late).acc.add(l.calls, r)
	})
}

// windowJudge applies the lateness contract to a row: for every window
// the row falls in it decides, from the watermark the row arrived under,
// whether to fold it in (apply, with late true when the window has
// fired), drop it or send it to the side table (once per row), counting
// every late row. WindowAggregate and its local phase share it.
type windowJudge struct {
	win      planner.WindowSpec
	contract planner.Contract
	policy   lateness.Policy
	side     func(row types.Row, reason string, wm int64)
	late     *lateness.Counters
}

func (j *windowJudge) row(r types.Row, t, wm int64, apply func(start, end int64, late bool)) {
	sided := false
	assignWindows(j.win, t, func(start int64) {
		end := start + j.win.Size
		v := lateness.Judge(end, j.contract.Lateness, wm)
		switch lateness.Decide(v, j.policy) {
		case lateness.Apply:
			apply(start, end, v != lateness.OnTime)
		case lateness.Side:
			j.late.Add(j.policy, reasonOf(v), 1)
			if !sided && j.side != nil {
				j.side(r, reasonOf(v), wm)
			}
			sided = true
		default:
			j.late.Add(j.policy, reasonOf(v), 1)
		}
	})
}

// group returns the batch's partials of row r's group.
func (l *LocalWindowAggregate) group(r types.Row) *localGroup {
	if len(l.groups) == 1 {
		if v := r[l.groups[0]]; v.K == types.Int {
			g, ok := l.ints[v.I]
			if !ok {
				g = l.newGroup(r)
				l.ints[v.I] = g
			}
			return g
		}
	}
	l.keyBuf = state.AppendKeyCols(l.keyBuf[:0], r, l.groups)
	if g, ok := l.batch[string(l.keyBuf)]; ok {
		return g
	}
	g := l.newGroup(r)
	l.batch[string(l.keyBuf)] = g
	return g
}

// newGroup returns an empty group holding r's group columns, from the
// free list when it has one.
func (l *LocalWindowAggregate) newGroup(r types.Row) *localGroup {
	var g *localGroup
	if k := len(l.freeGroups); k > 0 {
		g = l.freeGroups[k-1]
		l.freeGroups = l.freeGroups[:k-1]
	} else {
		g = &localGroup{row: make(types.Row, len(l.groups))}
	}
	for i, c := range l.groups {
		g.row[i] = r[c]
	}
	return g
}

// partial returns g's partial of the window [start, end), late or not.
func (l *LocalWindowAggregate) partial(g *localGroup, start, end int64, late bool) *partial {
	for _, p := range g.parts {
		if p.start == start && p.late == late {
			return p
		}
	}
	var p *partial
	if k := len(l.freeParts); k > 0 {
		p = l.freeParts[k-1]
		l.freeParts = l.freeParts[:k-1]
		p.acc.reset()
		p.group, p.start, p.end, p.late = g.row, start, end, late
	} else {
		p = &partial{group: g.row, start: start, end: end, late: late, acc: newAccs(l.calls)}
	}
	g.parts = append(g.parts, p)
	l.order = append(l.order, p)
	return p
}

// flush emits the batch's partials, their rows cut from one slab of
// values, and forgets them (keeping them on the free lists when reuse is
// set: a partial row shares nothing with its accumulators).
func (l *LocalWindowAggregate) flush() error {
	if len(l.order) == 0 {
		return nil
	}
	out := &Batch{Rows: make([]types.Row, len(l.order))}
	slab := make([]types.Value, 0, l.width*len(l.order))
	for i, p := range l.order {
		at := len(slab)
		slab = append(slab, p.group...)
		slab = append(slab, types.TimestampValue(p.start), types.TimestampValue(p.end), types.BoolValue(p.late))
		slab = p.acc.appendEncode(slab)
		out.Rows[i] = slab[at:len(slab):len(slab)]
	}
	l.recycle()
	return l.out.Emit(out)
}

// recycle empties the batch, keeping its groups and partials for the
// next batches when reuse is set.
func (l *LocalWindowAggregate) recycle() {
	if l.reuse {
		for _, g := range l.batch {
			l.free(g)
		}
		for _, g := range l.ints {
			l.free(g)
		}
		l.freeParts = append(l.freeParts, l.order...)
	}
	clear(l.batch)
	clear(l.ints)
	clear(l.order)
	l.order = l.order[:0]
}

// free puts g, emptied, on the free list.
func (l *LocalWindowAggregate) free(g *localGroup) {
	clear(g.parts)
	g.parts = g.parts[:0]
	l.freeGroups = append(l.freeGroups, g)
}

// Watermark implements Operator.
func (l *LocalWindowAggregate) Watermark(_ int, wm int64) error {
	if wm > l.wm {
		l.wm = wm
	}
	return l.out.EmitWatermark(wm)
}

// Tick implements Operator.
func (l *LocalWindowAggregate) Tick(int64) error { return nil }

// assignWindows calls fn with the start of every window of spec that time
// t falls in.
func assignWindows(spec planner.WindowSpec, t int64, fn func(start int64)) {
	if spec.Kind == "keyed" {
		fn(t)
		return
	}
	windowStarts(t, spec.Size, spec.Slide, fn)
}

// partialWidth is how many values accumulator c's encoding takes in a
// partial row.
func partialWidth(c planner.AggCall) int {
	return len(newAccumulator(c).encode())
}

// partialAccs returns accumulators to decode partials into, one per
// call, made once (the global phase has no DISTINCT, whose decode adds to
// what it holds), and sets widths.
func (w *WindowAggregate) partialAccs() accs {
	if w.scratch == nil {
		w.scratch = newAccs(w.calls)
		for _, c := range w.calls {
			w.widths = append(w.widths, partialWidth(c))
		}
	}
	return w.scratch
}

// mergePartials is the global phase's Process: it merges partial rows
// from LocalWindowAggregate into the windows' state.
func (w *WindowAggregate) mergePartials(b *Batch) error {
	ng := len(w.groups)
	cols := w.allCols(ng)
	for _, r := range b.Rows {
		var group types.Row
		// A partial of late rows fires its window at once only if this
		// operator has fired it: other instances' on-time partials for
		// it may still be on their way, and its firing will include them
		// all (else the first row out would hold the late rows alone).
		end := r[ng+1].I
		late := r[ng+2].Bool() && end <= w.wm
		e, err := w.entry(r, cols, &group, r[ng].I, end, late)
		if err != nil {
			return err
		}
		off := ng + 3
		for i, a := range w.partialAccs() {
			n := w.widths[i]
			if err := a.decode(r[off : off+n]); err != nil {
				return err
			}
			e.acc[i].merge(a)
			off += n
		}
		w.touch(e)
	}
	if err := w.flushPending(); err != nil {
		return err
	}
	return w.evict()
}
