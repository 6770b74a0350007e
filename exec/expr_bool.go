package exec

// This file holds the predicate side of the expression compiler: filters,
// comparisons, boolean logic, IN and LIKE.

import (
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

func (c *compiler) filter(s planner.Scalar) (func(types.Row) bool, error) {
	if e, ok := s.(*planner.Call); ok && (e.Fn == "and" || e.Fn == "or") {
		l, r, err := operands(e, c.filter)
		if err != nil {
			return nil, err
		}
		// At the top of a filter NULL is false, and for AND and OR
		// that is the same as evaluating three-valued logic first.
		if e.Fn == "and" {
			return func(row types.Row) bool { return l(row) && r(row) }, nil
		}
		return func(row types.Row) bool { return l(row) || r(row) }, nil
	}
	if e, ok := s.(*planner.Call); ok && cmpTruth[e.Fn] != ([3]bool{}) {
		if f := fusedIntFilter(e); f != nil {
			return f, nil
		}
	}
	be, err := c.compileBool(s)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) bool {
		v, ok := be(r)
		return v && ok
	}, nil
}

func (c *compiler) compileBool(s planner.Scalar) (boolEval, error) {
	if e, ok := s.(*planner.Call); ok {
		switch e.Fn {
		case "=", "<>", "<", "<=", ">", ">=":
			return c.compileCmp(e)
		case "and", "or":
			return c.compileLogic(e)
		case "not":
			x, err := c.compileBool(e.Args[0])
			if err != nil {
				return nil, err
			}
			return func(r types.Row) (bool, bool) {
				v, ok := x(r)
				return !v, ok
			}, nil
		case "is_null", "is_not_null":
			return c.compileIsNull(e)
		case "is_true", "is_not_true", "is_false", "is_not_false":
			return c.compileIsTruth(e)
		case "is_not_distinct_from", "is_distinct_from":
			return c.compileNotDistinct(e)
		case "in":
			return c.compileIn(e)
		case "like", "ilike":
			return c.compileLike(e)
		}
	}
	ev, err := c.compile(s)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) (bool, bool) {
		v := ev(r)
		return v.I != 0, v.K != types.Null
	}, nil
}

// cmpTruth[op][sign+1] is the result of comparison op for a three-way
// comparison result sign.
var cmpTruth = map[string][3]bool{
	"=":  {false, true, false},
	"<>": {true, false, true},
	"<":  {true, false, false},
	"<=": {true, true, false},
	">":  {false, false, true},
	">=": {false, true, true},
}

func cmp3Int(a, b int64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// intCmpShape recognises `column <cmp> k` and `column % m <cmp> k` (or
// `/ m`) on BIGINTs with a constant k, the hot filter shapes, so that they
// compile to a single closure.
func intCmpShape(e *planner.Call) (col int, fn string, m, k int64, ok bool) {
	kc, isConst := e.Args[1].(*planner.Const)
	if !isConst || kc.V.K != types.Int {
		return 0, "", 0, 0, false
	}
	switch l := e.Args[0].(type) {
	case *planner.ColRef:
		if l.T == types.Int {
			return l.Index, "", 0, kc.V.I, true
		}
	case *planner.Call:
		if i, m, ok := pureColConst(l); ok {
			return i, l.Fn, m, kc.V.I, true
		}
	}
	return 0, "", 0, 0, false
}

// fusedIntCmp compiles an intCmpShape comparison to a boolEval.
func fusedIntCmp(e *planner.Call) boolEval {
	i, fn, m, k, ok := intCmpShape(e)
	if !ok {
		return nil
	}
	truth := cmpTruth[e.Fn]
	switch fn {
	case "%":
		return func(r types.Row) (bool, bool) {
			if uint(i) >= uint(len(r)) || r[i].K == types.Null {
				return false, false
			}
			return truth[cmp3Int(r[i].I%m, k)+1], true
		}
	case "/":
		return func(r types.Row) (bool, bool) {
			if uint(i) >= uint(len(r)) || r[i].K == types.Null {
				return false, false
			}
			return truth[cmp3Int(r[i].I/m, k)+1], true
		}
	}
	return func(r types.Row) (bool, bool) {
		if uint(i) >= uint(len(r)) || r[i].K == types.Null {
			return false, false
		}
		return truth[cmp3Int(r[i].I, k)+1], true
	}
}

// fusedIntFilter is fusedIntCmp for the top of a filter, where NULL is
// false.
func fusedIntFilter(e *planner.Call) func(types.Row) bool {
	i, fn, m, k, ok := intCmpShape(e)
	if !ok {
		return nil
	}
	truth := cmpTruth[e.Fn]
	switch fn {
	case "%":
		return func(r types.Row) bool {
			return uint(i) < uint(len(r)) && r[i].K != types.Null && truth[cmp3Int(r[i].I%m, k)+1]
		}
	case "/":
		return func(r types.Row) bool {
			return uint(i) < uint(len(r)) && r[i].K != types.Null && truth[cmp3Int(r[i].I/m, k)+1]
		}
	}
	return func(r types.Row) bool {
		return uint(i) < uint(len(r)) && r[i].K != types.Null && truth[cmp3Int(r[i].I, k)+1]
	}
}

func (c *compiler) compileCmp(e *planner.Call) (boolEval, error) {
	if be := fusedIntCmp(e); be != nil {
		return be, nil
	}
	truth := cmpTruth[e.Fn]
	lk, rk := e.Args[0].Type(), e.Args[1].Type()
	intLike := func(k types.Kind) bool { return k == types.Int || k == types.Null }
	switch {
	case intLike(lk) && intLike(rk):
		l, err := c.compileInt(e.Args[0])
		if err != nil {
			return nil, err
		}
		if k, ok := e.Args[1].(*planner.Const); ok && k.V.K == types.Int {
			b := k.V.I
			return func(r types.Row) (bool, bool) {
				a, ok := l(r)
				return truth[cmp3Int(a, b)+1], ok
			}, nil
		}
		rr, err := c.compileInt(e.Args[1])
		if err != nil {
			return nil, err
		}
		return func(r types.Row) (bool, bool) {
			a, ok := l(r)
			if !ok {
				return false, false
			}
			b, ok := rr(r)
			return truth[cmp3Int(a, b)+1], ok
		}, nil
	case (lk == types.Float || rk == types.Float) && (intLike(lk) || lk == types.Float) && (intLike(rk) || rk == types.Float):
		l, rr, err := operands(e, c.compileFloat)
		if err != nil {
			return nil, err
		}
		return func(r types.Row) (bool, bool) {
			a, ok := l(r)
			if !ok {
				return false, false
			}
			b, ok := rr(r)
			return truth[types.Compare(types.FloatValue(a), types.FloatValue(b))+1], ok
		}, nil
	}
	l, rr, err := operands(e, c.compile)
	if err != nil {
		return nil, err
	}
	return func(r types.Row) (bool, bool) {
		a := l(r)
		if a.K == types.Null {
			return false, false
		}
		b := rr(r)
		if b.K == types.Null {
			return false, false
		}
		return truth[types.Compare(a, b)+1], true
	}, nil
}

// compileLogic implements three-valued AND and OR: FALSE AND NULL is
// FALSE, TRUE OR NULL is TRUE, otherwise NULL wins over the other value.
func (c *compiler) compileLogic(e *planner.Call) (boolEval, error) {
	l, r, err := operands(e, c.compileBool)
	if err != nil {
		return nil, err
	}
	// dominant is the value that decides the result alone.
	dominant := e.Fn == "or"
	return func(row types.Row) (bool, bool) {
		a, aok := l(row)
		if aok && a == dominant {
			return dominant, true
		}
		b, bok := r(row)
		if bok && b == dominant {
			return dominant, true
		}
		return !dominant, aok && bok
	}, nil
}

func (c *compiler) compileIsNull(e *planner.Call) (boolEval, error) {
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	want := e.Fn == "is_null"
	return func(r types.Row) (bool, bool) { return (x(r).K == types.Null) == want, true }, nil
}

func (c *compiler) compileIsTruth(e *planner.Call) (boolEval, error) {
	x, err := c.compileBool(e.Args[0])
	if err != nil {
		return nil, err
	}
	target := e.Fn == "is_true" || e.Fn == "is_not_true"
	negate := strings.HasPrefix(e.Fn, "is_not_")
	return func(r types.Row) (bool, bool) {
		v, ok := x(r)
		return (ok && v == target) != negate, true
	}, nil
}

// compileNotDistinct implements IS [NOT] DISTINCT FROM: equality where
// NULL equals NULL and differs from every value; never NULL.
func (c *compiler) compileNotDistinct(e *planner.Call) (boolEval, error) {
	l, r, err := operands(e, c.compile)
	if err != nil {
		return nil, err
	}
	distinct := e.Fn == "is_distinct_from"
	return func(row types.Row) (bool, bool) {
		a, b := l(row), r(row)
		if a.K == types.Null || b.K == types.Null {
			return (a.K == b.K) != distinct, true
		}
		return (types.Compare(a, b) == 0) != distinct, true
	}, nil
}

// compileIn implements x IN (list): TRUE on a match, else NULL if x or any
// item is NULL, else FALSE.
func (c *compiler) compileIn(e *planner.Call) (boolEval, error) {
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	allConst := true
	consts := make([]types.Value, 0, len(e.Args)-1)
	for _, a := range e.Args[1:] {
		k, ok := a.(*planner.Const)
		if !ok {
			allConst = false
			break
		}
		consts = append(consts, k.V)
	}
	if allConst {
		return func(r types.Row) (bool, bool) {
			v := x(r)
			if v.K == types.Null {
				return false, false
			}
			sawNull := false
			for _, k := range consts {
				if k.K == types.Null {
					sawNull = true
				} else if types.Compare(v, k) == 0 {
					return true, true
				}
			}
			return false, !sawNull
		}, nil
	}
	items, err := c.compileAll(e.Args[1:])
	if err != nil {
		return nil, err
	}
	return func(r types.Row) (bool, bool) {
		v := x(r)
		if v.K == types.Null {
			return false, false
		}
		sawNull := false
		for _, it := range items {
			k := it(r)
			if k.K == types.Null {
				sawNull = true
			} else if types.Compare(v, k) == 0 {
				return true, true
			}
		}
		return false, !sawNull
	}, nil
}

// ---- LIKE ---------------------------------------------------------------

type likeTok struct {
	kind byte // 'l' literal rune, '_' one rune, '%' any runes
	r    rune
}

// parseLike tokenises a LIKE pattern; esc < 0 means no escape character.
func parseLike(p string, esc rune) ([]likeTok, *sqlerr.Error) {
	toks := make([]likeTok, 0, len(p))
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		i += n
		switch {
		case r == esc:
			if i >= len(p) {
				return nil, errLikeEscape
			}
			r, n = utf8.DecodeRuneInString(p[i:])
			i += n
			toks = append(toks, likeTok{'l', r})
		case r == '%':
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeTok{kind: '%'})
			}
		case r == '_':
			toks = append(toks, likeTok{kind: '_'})
		default:
			toks = append(toks, likeTok{'l', r})
		}
	}
	return toks, nil
}

// likeMatch matches s against a tokenised pattern, backtracking to the
// last % only (linear for patterns with one %).
func likeMatch(s string, p []likeTok) bool {
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			t := p[pi]
			if t.kind == '%' {
				starP, starS = pi, si
				pi++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[si:])
			if t.kind == '_' || t.r == r {
				si += n
				pi++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		si, pi = starS, starP+1
	}
	for pi < len(p) && p[pi].kind == '%' {
		pi++
	}
	return pi == len(p)
}

// likeMatcher returns a fast matcher for a constant pattern: plain
// equality, prefix, suffix and substring patterns avoid the general
// matcher.
func likeMatcher(toks []likeTok) func(string) bool {
	var lit strings.Builder
	first, last := -1, -1
	simple := true
	for i, t := range toks {
		switch t.kind {
		case 'l':
			lit.WriteRune(t.r)
		case '_':
			simple = false
		case '%':
			if i != 0 && i != len(toks)-1 {
				simple = false
			}
			if i == 0 {
				first = i
			} else {
				last = i
			}
		}
	}
	if len(toks) == 1 && toks[0].kind == '%' {
		return func(string) bool { return true }
	}
	if simple {
		l := lit.String()
		switch {
		case first < 0 && last < 0:
			return func(s string) bool { return s == l }
		case first == 0 && last < 0:
			return func(s string) bool { return strings.HasSuffix(s, l) }
		case first < 0:
			return func(s string) bool { return strings.HasPrefix(s, l) }
		default:
			return func(s string) bool { return strings.Contains(s, l) }
		}
	}
	return func(s string) bool { return likeMatch(s, toks) }
}

func escapeRune(v types.Value) (rune, *sqlerr.Error) {
	switch utf8.RuneCountInString(v.S) {
	case 0:
		return -1, nil
	case 1:
		r, _ := utf8.DecodeRuneInString(v.S)
		return r, nil
	}
	return 0, errEscapeChars
}

func (c *compiler) compileLike(e *planner.Call) (boolEval, error) {
	fold := e.Fn == "ilike"
	x, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	esc, constEsc := rune('\\'), true
	if len(e.Args) == 3 {
		k, ok := e.Args[2].(*planner.Const)
		constEsc = ok
		if ok && k.V.K == types.String {
			r, eerr := escapeRune(k.V)
			if eerr != nil {
				return nil, eerr
			}
			esc = r
		}
	}
	if k, ok := e.Args[1].(*planner.Const); ok && constEsc && k.V.K == types.String {
		pat := k.V.S
		if fold {
			pat = strings.ToLower(pat)
		}
		toks, perr := parseLike(pat, esc)
		if perr != nil {
			return nil, perr
		}
		m := likeMatcher(toks)
		return func(r types.Row) (bool, bool) {
			v := x(r)
			if v.K == types.Null {
				return false, false
			}
			s := v.S
			if fold {
				s = strings.ToLower(s)
			}
			return m(s), true
		}, nil
	}
	args, err := c.compileAll(e.Args[1:])
	if err != nil {
		return nil, err
	}
	errs := c.errs
	return func(r types.Row) (bool, bool) {
		v, p := x(r), args[0](r)
		if v.K == types.Null || p.K == types.Null {
			return false, false
		}
		esc := rune('\\')
		if len(args) == 2 {
			ev := args[1](r)
			if ev.K == types.Null {
				return false, false
			}
			var eerr *sqlerr.Error
			if esc, eerr = escapeRune(ev); eerr != nil {
				errs.record(eerr)
				return false, false
			}
		}
		s, pat := v.S, p.S
		if fold {
			s, pat = strings.ToLower(s), strings.ToLower(pat)
		}
		toks, perr := parseLike(pat, esc)
		if perr != nil {
			errs.record(perr)
			return false, false
		}
		return likeMatch(s, toks), true
	}, nil
}

// ---- CASE, casts and conditional functions ------------------------------
