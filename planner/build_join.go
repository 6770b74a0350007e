package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// join plans an inner join. Conjuncts of ON (and of the WHERE clause, when
// given) are sorted into: filters on one side (pushed into that side),
// equality keys between the sides, time bounds (right.time - left.time
// within [lower, upper]: an interval join) and a residual predicate.
// Equal window starts on both sides make a window join.
func (b *builder) join(j *ast.Join, where ast.ExprNode) (Node, *relScope, error) {
	if j.Tp != ast.CrossJoin || j.NaturalJoin || len(j.Using) > 0 {
		return nil, nil, sqlerr.New(sqlerr.FeatureNotSupport, "only inner joins with ON are supported")
	}
	left, ls, err := b.resultSet(j.Left)
	if err != nil {
		return nil, nil, err
	}
	if j.Right == nil {
		return left, ls, nil
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
	jn := &Join{LeftTime: -1, RightTime: -1, Lower: minInt, Upper: maxInt}
	var lf, rf, residual []Scalar
	for _, c := range conds {
		s, err := BindScalar(c, scope)
		if err != nil {
			return nil, nil, err
		}
		for _, part := range splitAnd(s) {
			side := sideOf(part, nl)
			switch {
			case side == sideLeft:
				lf = append(lf, part)
			case side == sideRight:
				rf = append(rf, part)
			case jn.addKey(part, nl):
			case jn.addTimeBound(part, nl):
			default:
				residual = append(residual, part)
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
	jn.Left, jn.Right, jn.Residual = left, right, andAll(residual)
	jn.classify()
	return jn, scope, nil
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

// addKey records left.col = right.col as an equality key.
func (j *Join) addKey(s Scalar, nl int) bool {
	c, ok := s.(*Call)
	if !ok || c.Fn != "=" {
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
				if e.Fn == "-" {
					return r.Index, -k.V.I, true
				}
				return r.Index, k.V.I, true
			}
		}
	}
	return 0, 0, false
}

// addTimeBound records a comparison between a left and a right timestamp
// (each plus or minus a constant interval) as a bound on
// right.time - left.time.
func (j *Join) addTimeBound(s Scalar, nl int) bool {
	c, ok := s.(*Call)
	if !ok || len(c.Args) != 2 {
		return false
	}
	var greater bool // args[0] >= args[1]
	switch c.Fn {
	case ">=", ">":
		greater = true
	case "<=", "<":
	default:
		return false
	}
	ac, ao, aok := linear(c.Args[0])
	bc, bo, bok := linear(c.Args[1])
	if !aok || !bok || (ac < nl) == (bc < nl) {
		return false
	}
	// Normalise to R + ro (op) L + lo.
	rc, ro, lc, lo := ac, ao, bc, bo
	if ac < nl {
		rc, ro, lc, lo = bc, bo, ac, ao
		greater = !greater
	}
	rc -= nl
	if (j.LeftTime >= 0 && j.LeftTime != lc) || (j.RightTime >= 0 && j.RightTime != rc) {
		return false
	}
	j.LeftTime, j.RightTime = lc, rc
	// R + ro >= L + lo  =>  R - L >= lo - ro
	bound := lo - ro
	if greater {
		if bound > j.Lower {
			j.Lower = bound
		}
	} else if bound < j.Upper {
		j.Upper = bound
	}
	return true
}

// classify decides the join kind from its keys and bounds.
func (j *Join) classify() {
	if j.LeftTime >= 0 && j.Lower != minInt && j.Upper != maxInt {
		j.Kind = IntervalJoin
		return
	}
	for i := range j.LeftKeys {
		ls, lok := windowOrigin(j.Left, j.LeftKeys[i])
		rs, rok := windowOrigin(j.Right, j.RightKeys[i])
		if lok && rok && ls == rs && ls > 0 {
			j.Kind = WindowJoin
			j.LeftTime, j.RightTime = j.LeftKeys[i], j.RightKeys[i]
			j.WindowSize = ls
			j.Lower, j.Upper = 0, 0
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
	switch x := n.(type) {
	case *Filter:
		return windowStartOf(x.Input, col, mustAggregate, crossed)
	case *Project:
		if r, ok := x.Exprs[col].(*ColRef); ok {
			return windowStartOf(x.Input, r.Index, mustAggregate, crossed)
		}
	case *Aggregate:
		if col < len(x.GroupCols) {
			return windowStartOf(x.Input, x.GroupCols[col], mustAggregate, true)
		}
	case *WindowAggregate:
		if col == len(x.GroupCols) && x.Window.Kind != "session" {
			return x.Window.Size, true
		}
	case *WindowAssign:
		if (crossed || !mustAggregate) && col == len(x.Input.Schema()) && x.Window.Kind != "session" {
			return x.Window.Size, true
		}
	}
	return 0, false
}
