package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/parser"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// join plans an inner or outer join. Conjuncts of ON (and of the WHERE
// clause, when given: only for an inner join, the caller filters an outer
// join's output) are sorted into: filters on one side (pushed into that
// side unless the side is preserved: a preserved row failing the filter is
// still emitted, NULL-padded, so the filter stays in the residual),
// equality keys between the sides (= or the null-safe <=>), comparisons
// of a left and a right timestamp, and the rest. The time comparisons on
// one pair of watermark columns that bound right.time - left.time from
// both sides make an interval join (setInterval); every other conjunct,
// a one-sided time bound included, stays in the residual predicate, so
// each predicate the user wrote holds in every output row. Equal window
// starts on both sides make a window join.
func (b *builder) join(j *ast.Join, where ast.ExprNode) (Node, *relScope, error) {
	if n, sc, ok, err := b.lateralSetJoin(j, where); ok {
		return n, sc, err
	}
	if err := setFuncFirst(j); err != nil {
		return nil, nil, err
	}
	if j.Right == nil {
		// The first item of a FROM list (`FROM a, b` nests a join of a
		// alone on the left).
		return b.resultSet(j.Left)
	}
	if j.Tp == ast.CrossJoin && !j.NaturalJoin && len(j.Using) > 0 {
		return b.usingJoin(j, where)
	}
	typ, err := joinType(j)
	if err != nil {
		return nil, nil, err
	}
	if ts, tn := asOfTable(j.Right); tn != nil {
		return b.temporalJoin(j, where, typ, ts, tn)
	}
	left, ls, err := b.resultSet(j.Left)
	if err != nil {
		return nil, nil, err
	}
	right, rs, err := b.resultSet(j.Right)
	if err != nil {
		return nil, nil, err
	}
	var conds []ast.ExprNode
	if j.On != nil {
		conds = conjuncts(j.On.Expr)
	}
	conds = append(conds, conjuncts(where)...)
	scope := ls.join(rs)
	nl := len(ls.cols)
	jn := &Join{Left: left, Right: right, Type: typ, LeftTime: -1, RightTime: -1}
	var lf, rf []Scalar
	var rest []joinConjunct
	nOn := len(conds) - len(conjuncts(where))
	for i, c := range conds {
		clause := "WHERE"
		if i < nOn {
			clause = "JOIN conditions"
		}
		s, err := b.bindIn(clause, c, scope)
		if err != nil {
			return nil, nil, err
		}
		for _, part := range splitAnd(s) {
			side := sideOf(part, nl)
			switch {
			case side == sideLeft && !typ.Preserves(0):
				lf = append(lf, part)
			case side == sideRight && !typ.Preserves(1):
				rf = append(rf, part)
			case jn.addKey(part, nl):
			default:
				tb, ok := timeBoundOf(part, nl)
				rest = append(rest, joinConjunct{pred: part, bound: tb, isBound: ok})
			}
		}
	}
	if len(lf) > 0 {
		left = &Filter{Input: left, Pred: andAll(lf)}
	}
	if len(rf) > 0 {
		m := map[int]int{}
		for i := range rs.cols {
			m[nl+i] = i
		}
		right = &Filter{Input: right, Pred: RemapColumns(andAll(rf), m)}
	}
	jn.Left, jn.Right = left, right
	jn.Residual = andAll(jn.setInterval(rest))
	jn.classify()
	return jn.coerceKeys(scope, b.zone), scope, nil
}

// joinType reads the type of join j: inner (JOIN … ON or a comma join),
// LEFT or RIGHT [OUTER] JOIN … ON, or FULL [OUTER] JOIN … ON (the parser
// marks it).
func joinType(j *ast.Join) (JoinType, error) {
	typ := InnerJoin
	switch {
	case j.NaturalJoin:
		return 0, sqlerr.New(sqlerr.FeatureNotSupport, "NATURAL joins are not supported: write JOIN … ON or JOIN … USING")
	case j.Tp == ast.LeftJoin:
		typ = LeftOuterJoin
	case j.Tp == ast.RightJoin:
		typ = RightOuterJoin
	case parser.IsFullJoin(j):
		typ = FullOuterJoin
	}
	if typ.Outer() && len(j.Using) > 0 {
		return 0, sqlerr.New(sqlerr.FeatureNotSupport, "outer joins with USING are not supported: write the condition with ON")
	}
	if typ.Outer() && j.On == nil {
		return 0, sqlerr.New(sqlerr.SyntaxError, "an outer join needs an ON condition")
	}
	return typ, nil
}

// coerceKeys gives both columns of each equality key one type, the one
// the binder unifies the operands of = to (BIGINT with DOUBLE meets in
// DOUBLE), by casting the other column, as Postgres does. The join
// operators match keys and the exchange routes rows by the key values'
// encoding, in which 1 and 1.0 differ; cast to one type, equal keys
// encode alike. A cast is an extra last column of a Project over its
// side, which the key then reads; a Project over the join drops the
// extra columns again, so the output is still the columns scope names.
func (j *Join) coerceKeys(scope *relScope, zone string) Node {
	eq, _ := funcs.Lookup("=")
	nl, nr := len(j.Left.Schema()), len(j.Right.Schema())
	var lx, rx []*Cast
	for i := range j.LeftKeys {
		l, r := scope.colRef(j.LeftKeys[i], 0), scope.colRef(nl+j.RightKeys[i], nl)
		k, ok := unifyArgs(eq.Sigs[0], []Scalar{l, r})
		if !ok || l.T == r.T {
			continue // ok: the binder accepted l = r, so they unify
		}
		if l.T != k {
			lx = append(lx, &Cast{Arg: l, To: k, Zone: zone})
			j.LeftKeys[i] = nl + len(lx) - 1
		}
		if r.T != k {
			rx = append(rx, &Cast{Arg: r, To: k, Zone: zone})
			j.RightKeys[i] = nr + len(rx) - 1
		}
	}
	if len(lx) == 0 && len(rx) == 0 {
		return j
	}
	j.Left, j.Right = withColumns(j.Left, lx), withColumns(j.Right, rx)
	return j.dropExtra(scope, nl, len(lx))
}

// dropExtra shifts the residual's right-side columns past the extra
// columns now after the left side's first nl, and returns a Project over
// j that drops the extra columns: the columns of scope, in order.
func (j *Join) dropExtra(scope *relScope, nl, extra int) Node {
	shift := func(i int) int {
		if i >= nl {
			return i + extra
		}
		return i
	}
	if j.Residual != nil {
		j.Residual = MapColRefs(j.Residual, func(c *ColRef) Scalar {
			s := *c
			s.Index = shift(c.Index)
			return &s
		})
	}
	p := &Project{Input: j}
	for i, c := range scope.cols {
		p.Exprs = append(p.Exprs, &ColRef{Index: shift(i), Name: c.qualified(), T: c.kind})
		p.Names = append(p.Names, c.name)
	}
	return p
}

// withColumns is n with the casts of its columns after its own columns
// (n when there are none). A cast column is named after the column it
// casts.
func withColumns(n Node, casts []*Cast) Node {
	s := n.Schema()
	exprs := make([]Scalar, len(casts))
	names := make([]string, len(casts))
	for i, c := range casts {
		exprs[i], names[i] = c, s[c.Arg.(*ColRef).Index].Name
	}
	return appendColumns(n, s, exprs, names)
}

// joinConjunct is a conjunct of a join that is neither a one-side filter
// nor an equality key; bound describes it when it compares a left and a
// right timestamp (isBound).
type joinConjunct struct {
	pred    Scalar
	bound   timeBound
	isBound bool
}

// timeBound is a comparison right.#rc (op) left.#lc + bound, read as a
// bound on right.time - left.time: a lower bound (>, >=) or an upper one
// (<, <=), strict for < and >.
type timeBound struct {
	lc, rc int // left column; right column, counted from the right side
	bound  int64
	lower  bool
	strict bool
}

const (
	minInt = -1 << 63
	maxInt = 1<<63 - 1
)

type side uint8

const (
	sideNone side = iota
	sideLeft
	sideRight
	sideBoth
)

func sideOf(s Scalar, nl int) side {
	used := map[int]bool{}
	ColumnsUsed(s, used)
	var l, r bool
	for c := range used {
		if c < nl {
			l = true
		} else {
			r = true
		}
	}
	switch {
	case l && r:
		return sideBoth
	case l:
		return sideLeft
	case r:
		return sideRight
	}
	return sideNone
}

func splitAnd(s Scalar) []Scalar {
	if c, ok := s.(*Call); ok && c.Fn == "and" {
		return append(splitAnd(c.Args[0]), splitAnd(c.Args[1])...)
	}
	return []Scalar{s}
}

// addKey records left.col = right.col (or the null-safe left.col <=>
// right.col) as an equality key.
func (j *Join) addKey(s Scalar, nl int) bool {
	c, ok := s.(*Call)
	if !ok || (c.Fn != "=" && c.Fn != "is_not_distinct_from") {
		return false
	}
	a, aok := c.Args[0].(*ColRef)
	r, rok := c.Args[1].(*ColRef)
	if !aok || !rok {
		return false
	}
	if a.Index >= nl {
		a, r = r, a
	}
	if a.Index >= nl || r.Index < nl {
		return false
	}
	j.LeftKeys = append(j.LeftKeys, a.Index)
	j.RightKeys = append(j.RightKeys, r.Index-nl)
	if c.Fn == "is_not_distinct_from" {
		if j.NullSafe == nil {
			j.NullSafe = make([]bool, len(j.LeftKeys)-1, len(j.LeftKeys))
		}
		j.NullSafe = append(j.NullSafe, true)
	} else if j.NullSafe != nil {
		j.NullSafe = append(j.NullSafe, false)
	}
	return true
}

// linear matches col, col + interval and col - interval.
func linear(s Scalar) (col int, off int64, ok bool) {
	switch e := s.(type) {
	case *ColRef:
		return e.Index, 0, e.T == types.Timestamp
	case *Call:
		if (e.Fn == "+" || e.Fn == "-") && len(e.Args) == 2 {
			r, rok := e.Args[0].(*ColRef)
			k, kok := e.Args[1].(*Const)
			if rok && kok && r.T == types.Timestamp && k.V.K == types.Interval {
				us, fixed := types.IntervalDuration(k.V)
				if !fixed { // months: not a fixed offset
					return 0, 0, false
				}
				if e.Fn == "-" {
					return r.Index, -us, true
				}
				return r.Index, us, true
			}
		}
	}
	return 0, 0, false
}

// timeBoundOf reads a comparison between a left and a right timestamp
// (each plus or minus a constant interval) as a bound on right.time -
// left.time.
func timeBoundOf(s Scalar, nl int) (timeBound, bool) {
	c, ok := s.(*Call)
	if !ok || len(c.Args) != 2 {
		return timeBound{}, false
	}
	var tb timeBound
	var greater bool // args[0] > or >= args[1]
	switch c.Fn {
	case ">=", ">":
		greater = true
	case "<=", "<":
	default:
		return timeBound{}, false
	}
	tb.strict = c.Fn == ">" || c.Fn == "<"
	ac, ao, aok := linear(c.Args[0])
	bc, bo, bok := linear(c.Args[1])
	if !aok || !bok || (ac < nl) == (bc < nl) {
		return timeBound{}, false
	}
	// Normalise to R + ro (op) L + lo.
	rc, ro, lc, lo := ac, ao, bc, bo
	if ac < nl {
		rc, ro, lc, lo = bc, bo, ac, ao
		greater = !greater
	}
	// R + ro >= L + lo  <=>  R - L >= lo - ro
	tb.lc, tb.rc, tb.bound, tb.lower = lc, rc-nl, lo-ro, greater
	return tb, true
}

// setInterval makes the join an interval join when conjuncts bound
// right.time - left.time from below and from above on one pair of
// watermark columns (only a watermark column tells which rows are still
// to come, so only such bounds let state be purged): the tightest bound of
// each direction is kept, and the conjuncts of that pair, which they
// imply, leave the predicate. It returns the conjuncts still to evaluate.
func (j *Join) setInterval(rest []joinConjunct) []Scalar {
	lc, rc, ok := j.intervalPair(rest)
	if ok {
		j.Kind, j.LeftTime, j.RightTime = IntervalJoin, lc, rc
		j.Lower, j.Upper = minInt, maxInt
	}
	var residual []Scalar
	for _, c := range rest {
		if !ok || !c.isBound || c.bound.lc != lc || c.bound.rc != rc {
			residual = append(residual, c.pred)
			continue
		}
		j.tighten(c.bound)
	}
	return residual
}

// intervalPair finds the first pair of watermark columns bounded both
// from below and from above.
func (j *Join) intervalPair(rest []joinConjunct) (lc, rc int, ok bool) {
	for _, c := range rest {
		if !c.isBound || !eventTimeColumn(j.Left, c.bound.lc) || !eventTimeColumn(j.Right, c.bound.rc) {
			continue
		}
		var lower, upper bool
		for _, d := range rest {
			if d.isBound && d.bound.lc == c.bound.lc && d.bound.rc == c.bound.rc {
				lower, upper = lower || d.bound.lower, upper || !d.bound.lower
			}
		}
		if lower && upper {
			return c.bound.lc, c.bound.rc, true
		}
	}
	return 0, 0, false
}

// tighten narrows the interval by one bound (at an equal bound a strict
// one is tighter).
func (j *Join) tighten(tb timeBound) {
	if tb.lower {
		if tb.bound > j.Lower || tb.bound == j.Lower && tb.strict {
			j.Lower, j.LowerStrict = tb.bound, tb.strict
		}
		return
	}
	if tb.bound < j.Upper || tb.bound == j.Upper && tb.strict {
		j.Upper, j.UpperStrict = tb.bound, tb.strict
	}
}

// classify decides the kind of a join that is not an interval join: a
// window join when a key pairs the window starts of equal windows,
// unbounded otherwise.
func (j *Join) classify() {
	if j.Kind == IntervalJoin {
		return
	}
	for i := range j.LeftKeys {
		ls, lok := windowOrigin(j.Left, j.LeftKeys[i])
		rs, rok := windowOrigin(j.Right, j.RightKeys[i])
		if lok && rok && ls == rs && ls > 0 {
			j.Kind = WindowJoin
			j.LeftTime, j.RightTime = j.LeftKeys[i], j.RightKeys[i]
			j.WindowSize = ls
			return
		}
	}
	j.Kind = Unbounded
}

// windowOrigin reports whether column col of n is a window_start computed
// by a TUMBLE or HOP window, and the window size.
func windowOrigin(n Node, col int) (int64, bool) { return windowStartOf(n, col, false, false) }

// windowStartOf traces column col of n back to the window_start of a
// TUMBLE or HOP window and returns the window size. With mustAggregate
// the column must also have passed through an aggregate that grouped by
// it (crossed records that one was passed).
func windowStartOf(n Node, col int, mustAggregate, crossed bool) (int64, bool) {
	size, end, ok := windowColumnOf(n, col, mustAggregate, crossed)
	return size, ok && !end
}

// windowColumnOf traces column col of n back to the window_start or (end)
// the window_end of a TUMBLE or HOP window, as windowStartOf does.
func windowColumnOf(n Node, col int, mustAggregate, crossed bool) (size int64, end, ok bool) {
	switch x := n.(type) {
	case *Filter:
		return windowColumnOf(x.Input, col, mustAggregate, crossed)
	case *Project:
		if r, ok := x.Exprs[col].(*ColRef); ok {
			return windowColumnOf(x.Input, r.Index, mustAggregate, crossed)
		}
	case *Aggregate:
		if col < len(x.GroupCols) {
			return windowColumnOf(x.Input, x.GroupCols[col], mustAggregate, true)
		}
	case *WindowAggregate:
		if w := len(x.GroupCols); (col == w || col == w+1) && x.Window.Kind != "session" {
			return x.Window.Size, col == w+1, true
		}
	case *WindowAssign:
		w := len(x.Input.Schema())
		if (crossed || !mustAggregate) && (col == w || col == w+1) && x.Window.Kind != "session" {
			return x.Window.Size, col == w+1, true
		}
	}
	return 0, false, false
}

// eventTimeColumn reports whether column col of n carries a watermark: a
// source's watermark column, or the window start or end of a windowed
// aggregate (the rules fuse it into a WindowAggregate, which emits
// windows in end order as the watermark passes).
func eventTimeColumn(n Node, col int) bool {
	if TimeColumnOf(n, col) {
		return true
	}
	_, _, ok := windowColumnOf(n, col, true, false)
	return ok
}
