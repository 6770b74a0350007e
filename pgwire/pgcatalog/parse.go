package pgcatalog

import (
	"fmt"
	"github.com/streamsql/streamsql/types"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
)

// The parse tree of the SELECT subset catalog queries use.

type expr interface{}

type (
	litExpr struct {
		v any    // nil, bool, int64, float64, string
		t uint32 // static type; types.OIDUnknown for a quoted literal
	}
	paramExpr struct{ n int }
	colExpr   struct{ qual, name string }
	starExpr  struct{ qual string }
	funcExpr  struct {
		name     string
		args     []expr
		star     bool
		distinct bool
		order    []orderItem // string_agg(x, ',' ORDER BY y)
		filter   expr
		over     *window // row_number() OVER (...)
	}
	binExpr struct {
		op   string
		l, r expr
	}
	notExpr struct{ e expr }
	negExpr struct{ e expr }
	isExpr  struct {
		e    expr
		not  bool
		what string // "null", "true", "false"
	}
	castExpr struct {
		e expr
		t uint32
	}
	caseExpr struct {
		operand expr
		whens   []whenClause
		els     expr
	}
	inExpr struct {
		e    expr
		list []expr
		sub  *query
		not  bool
	}
	anyExpr struct {
		op  string
		l   expr
		r   expr   // an array, or nil with sub set
		sub *query // x = ANY (SELECT ...)
		all bool
	}
	subExpr struct {
		q    *query
		kind byte // 'e' scalar, 'x' EXISTS, 'a' ARRAY(...)
	}
	arrayExpr   struct{ elems []expr }
	indexExpr   struct{ e, idx expr }
	betweenExpr struct {
		e, lo, hi expr
		not       bool
	}
	likeExpr struct {
		e, pat expr
		not    bool
		ci     bool
	}
)

type whenClause struct{ cond, then expr }

// window is an OVER clause: partitions and their order (no frames).
type window struct {
	partition []expr
	order     []orderItem
}

type orderItem struct {
	e          expr
	desc       bool
	nullsFirst *bool
}

type selItem struct {
	e     expr
	alias string
}

type selectStmt struct {
	distinct bool
	items    []selItem
	from     []fromItem
	where    expr
	groupBy  []expr
	having   expr
}

// query is a SELECT or a set operation, with its ORDER BY and LIMIT.
type query struct {
	sel         *selectStmt
	op          string // "union", "union all", "intersect", "except" when sel is nil
	left, right *query
	order       []orderItem
	limit       expr
	offset      expr
}

type fromItem interface{}

type (
	tableRef struct {
		schema, name, alias string
		colAliases          []string
	}
	subRef struct {
		q          *query
		alias      string
		colAliases []string
	}
	funcRef struct {
		fn         *funcExpr
		alias      string
		colAliases []string
	}
	joinRef struct {
		kind  string // "inner", "left", "right", "full", "cross"
		l, r  fromItem
		on    expr
		using []string
	}
)

type parser struct {
	toks  []token
	i     int
	depth int // nesting of expressions and subqueries
}

// A query may nest sqlerr.MaxDepth levels, as the engine's statements may:
// every subquery, parenthesis, operator of a chain (`a OR b OR …` is
// left-deep), cast and join counts, so a query of a million parentheses
// or terms fails here instead of growing the stack of the parser, walkQuery
// and the evaluator, which all recurse over the tree.

// parseError is a syntax error, or (tooDeep) a query nested too deeply at
// byte offset off.
type parseError struct {
	msg     string
	tooDeep bool
	off     int
}

func (e parseError) Error() string { return e.msg }

// parseQuery parses one SELECT statement (with an optional trailing
// semicolon).
func parseQuery(text string) (q *query, err error) {
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			q, err = nil, pe
		}
	}()
	q = p.query()
	for p.isOp(";") {
		p.i++
	}
	if p.peek().k != tEOF {
		p.fail("unexpected %q", p.peek().s)
	}
	return q, nil
}

// deeper opens one nesting level for what; the caller closes it by
// decrementing p.depth.
func (p *parser) deeper(what string) {
	if p.depth++; p.depth > sqlerr.MaxDepth {
		panic(parseError{msg: what, tooDeep: true, off: p.peek().pos})
	}
}

func (p *parser) fail(format string, args ...any) {
	panic(parseError{msg: fmt.Sprintf("at %d: ", p.peek().pos) + fmt.Sprintf(format, args...)})
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.k != tEOF {
		p.i++
	}
	return t
}
func (p *parser) isOp(s string) bool { t := p.peek(); return t.k == tOp && t.s == s }
func (p *parser) isKw(s string) bool { t := p.peek(); return t.k == tIdent && t.s == s }
func (p *parser) acceptOp(s string) bool {
	if p.isOp(s) {
		p.i++
		return true
	}
	return false
}
func (p *parser) acceptKw(s ...string) bool {
	for k, w := range s {
		t := p.peekAt(k)
		if t.k != tIdent || t.s != w {
			return false
		}
	}
	p.i += len(s)
	return true
}
func (p *parser) expectOp(s string) {
	if !p.acceptOp(s) {
		p.fail("expected %q, found %q", s, p.peek().s)
	}
}
func (p *parser) expectKw(s string) {
	if !p.acceptKw(s) {
		p.fail("expected %s, found %q", strings.ToUpper(s), p.peek().s)
	}
}

func (p *parser) ident() string {
	t := p.next()
	if t.k != tIdent && t.k != tQIdent {
		p.fail("expected a name, found %q", t.s)
	}
	return t.s
}

// reserved words that end an expression or cannot be a bare alias.
var reserved = map[string]bool{
	"select": true, "from": true, "where": true, "group": true, "having": true, "order": true, "limit": true,
	"offset": true, "union": true, "intersect": true, "except": true, "on": true, "join": true, "left": true,
	"right": true, "full": true, "inner": true, "cross": true, "outer": true, "natural": true, "using": true,
	"and": true, "or": true, "not": true, "as": true, "is": true, "in": true, "like": true, "ilike": true,
	"then": true, "when": true, "else": true, "end": true, "case": true, "asc": true, "desc": true, "nulls": true,
	"fetch": true, "for": true, "window": true, "between": true, "collate": true, "similar": true, "lateral": true,
	"into": true, "with": true, "returning": true, "escape": true, "over": true, "partition": true,
}

var intervalUnits = map[string]bool{"microsecond": true, "millisecond": true, "second": true, "minute": true,
	"hour": true, "day": true, "week": true, "month": true, "year": true}

// windowFuncs are the window functions the evaluator computes.
var windowFuncs = map[string]bool{"row_number": true, "rank": true, "dense_rank": true}

func (p *parser) alias() string {
	if p.acceptKw("as") {
		return p.ident()
	}
	t := p.peek()
	if t.k == tQIdent || t.k == tIdent && !reserved[t.s] {
		p.i++
		return t.s
	}
	return ""
}

func (p *parser) query() *query {
	levels := p.depth
	defer func() { p.depth = levels }()
	p.deeper("queries")
	if p.isKw("with") {
		p.fail("WITH is not supported")
	}
	q := p.setTerm()
	for {
		var op string
		switch {
		case p.acceptKw("union", "all"):
			op = "union all"
		case p.acceptKw("union", "distinct"), p.acceptKw("union"):
			op = "union"
		case p.acceptKw("intersect"):
			p.acceptKw("all")
			op = "intersect"
		case p.acceptKw("except"):
			p.acceptKw("all")
			op = "except"
		}
		if op == "" {
			break
		}
		p.deeper("set operations")
		q = &query{op: op, left: q, right: p.setTerm()}
	}
	if p.acceptKw("order", "by") {
		q = p.wrapIfSet(q)
		q.order = p.orderList()
	}
	for {
		switch {
		case p.acceptKw("limit"):
			q = p.wrapIfSet(q)
			if p.acceptKw("all") {
				continue
			}
			q.limit = p.expr(0)
		case p.acceptKw("offset"):
			q = p.wrapIfSet(q)
			q.offset = p.expr(0)
			if !p.acceptKw("rows") {
				p.acceptKw("row")
			}
		case p.acceptKw("fetch"):
			q = p.wrapIfSet(q)
			if !p.acceptKw("first") {
				p.expectKw("next")
			}
			q.limit = &litExpr{v: int64(1), t: types.OIDInt8}
			if !p.isKw("row") && !p.isKw("rows") {
				q.limit = p.expr(0)
			}
			if !p.acceptKw("rows") {
				p.expectKw("row")
			}
			p.expectKw("only")
		case p.acceptKw("for"):
			// FOR UPDATE / FOR SHARE: nothing to lock in a virtual catalog
			for p.peek().k == tIdent && !reserved[p.peek().s] {
				p.i++
			}
		default:
			return q
		}
	}
}

// wrapIfSet keeps ORDER BY/LIMIT on the outer query of a parenthesised
// term that already has its own.
func (p *parser) wrapIfSet(q *query) *query { return q }

func (p *parser) setTerm() *query {
	if p.isOp("(") {
		p.i++
		q := p.query()
		p.expectOp(")")
		return q
	}
	return &query{sel: p.selectStmt()}
}

func (p *parser) selectStmt() *selectStmt {
	p.expectKw("select")
	s := &selectStmt{}
	if p.acceptKw("distinct") {
		s.distinct = true
		if p.acceptKw("on") {
			p.fail("DISTINCT ON is not supported")
		}
	} else {
		p.acceptKw("all")
	}
	for {
		if p.isOp("*") {
			p.i++
			s.items = append(s.items, selItem{e: &starExpr{}})
		} else {
			e := p.expr(0)
			s.items = append(s.items, selItem{e: e, alias: p.alias()})
		}
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("from") {
		for {
			s.from = append(s.from, p.fromItem())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKw("where") {
		s.where = p.expr(0)
	}
	if p.acceptKw("group", "by") {
		for {
			s.groupBy = append(s.groupBy, p.expr(0))
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKw("having") {
		s.having = p.expr(0)
	}
	return s
}

func (p *parser) orderList() []orderItem {
	var out []orderItem
	for {
		it := orderItem{e: p.expr(0)}
		if p.acceptKw("desc") {
			it.desc = true
		} else {
			p.acceptKw("asc")
		}
		if p.acceptKw("nulls", "first") {
			t := true
			it.nullsFirst = &t
		} else if p.acceptKw("nulls", "last") {
			f := false
			it.nullsFirst = &f
		}
		out = append(out, it)
		if !p.acceptOp(",") {
			return out
		}
	}
}

func (p *parser) fromItem() fromItem {
	levels := p.depth
	defer func() { p.depth = levels }()
	left := p.fromPrimary()
	for {
		kind := ""
		p.acceptKw("natural")
		switch {
		case p.acceptKw("join"), p.acceptKw("inner", "join"):
			kind = "inner"
		case p.acceptKw("left", "join"), p.acceptKw("left", "outer", "join"):
			kind = "left"
		case p.acceptKw("right", "join"), p.acceptKw("right", "outer", "join"):
			kind = "right"
		case p.acceptKw("full", "join"), p.acceptKw("full", "outer", "join"):
			kind = "full"
		case p.acceptKw("cross", "join"):
			kind = "cross"
		}
		if kind == "" {
			return left
		}
		p.deeper("joins")
		j := &joinRef{kind: kind, l: left, r: p.fromPrimary()}
		if kind != "cross" {
			if p.acceptKw("on") {
				j.on = p.expr(0)
			} else if p.acceptKw("using") {
				p.expectOp("(")
				for {
					j.using = append(j.using, p.ident())
					if !p.acceptOp(",") {
						break
					}
				}
				p.expectOp(")")
			} else {
				j.kind = "cross"
			}
		}
		left = j
	}
}

func (p *parser) colAliases() []string {
	if !p.isOp("(") {
		return nil
	}
	p.i++
	var out []string
	for {
		out = append(out, p.ident())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}

func (p *parser) fromPrimary() fromItem {
	defer func(d int) { p.depth = d }(p.depth)
	p.deeper("FROM items")
	p.acceptKw("lateral")
	p.acceptKw("only")
	if p.isOp("(") {
		if t := p.peekAt(1); t.k == tIdent && (t.s == "select" || t.s == "with") || t.k == tOp && t.s == "(" {
			p.i++
			q := p.query()
			p.expectOp(")")
			r := &subRef{q: q, alias: p.alias()}
			r.colAliases = p.colAliases()
			return r
		}
		p.i++
		f := p.fromItem()
		p.expectOp(")")
		return f
	}
	parts := []string{p.ident()}
	for p.acceptOp(".") {
		parts = append(parts, p.ident())
	}
	if p.isOp("(") {
		fn := p.funcCall(parts[len(parts)-1])
		r := &funcRef{fn: fn}
		if p.acceptKw("with", "ordinality") {
			p.fail("WITH ORDINALITY is not supported")
		}
		r.alias = p.alias()
		r.colAliases = p.colAliases()
		return r
	}
	t := &tableRef{name: parts[len(parts)-1]}
	if len(parts) > 1 {
		t.schema = parts[len(parts)-2]
	}
	t.alias = p.alias()
	t.colAliases = p.colAliases()
	return t
}

// Operator precedences, loosest first (Postgres's table).
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precLike // IN, LIKE, BETWEEN, SIMILAR
	precOther
	precAdd
	precMul
	precExp
	precUnary
)

func binPrec(t token) (string, int) {
	if t.k == tIdent {
		switch t.s {
		case "or":
			return "or", precOr
		case "and":
			return "and", precAnd
		}
		return "", 0
	}
	if t.k != tOp {
		return "", 0
	}
	switch t.s {
	case "=", "<>", "!=", "<", ">", "<=", ">=":
		return t.s, precCmp
	case "+", "-":
		return t.s, precAdd
	case "*", "/", "%":
		return t.s, precMul
	case "^":
		return t.s, precExp
	case "~", "!~", "~*", "!~*", "||", "~~", "!~~", "~~*", "!~~*", "@>", "<@", "&&", "->", "->>":
		return t.s, precOther
	}
	return "", 0
}

// expr parses an expression whose operators bind at least as tightly as
// min.
func (p *parser) expr(min int) expr {
	// every operator that wraps left below opens a level that stays open
	// for the rest of the chain: a conservative bound on the tree's depth
	defer func(d int) { p.depth = d }(p.depth)
	p.deeper("expressions")
	var left expr
	if p.isKw("not") && min <= precNot {
		p.i++
		left = &notExpr{p.expr(precNot)}
	} else {
		left = p.unary()
	}
	for first := true; ; first = false {
		if !first {
			p.deeper("expressions") // the last turn wrapped left
		}
		t := p.peek()
		// OPERATOR(schema.op)
		if t.k == tIdent && t.s == "operator" && p.peekAt(1).k == tOp && p.peekAt(1).s == "(" {
			if precOther < min {
				return left
			}
			p.i += 2
			var op string
			for !p.isOp(")") {
				tk := p.next()
				if tk.k == tEOF {
					p.fail("unterminated OPERATOR()")
				}
				op = tk.s
			}
			p.i++
			if op == "=" || op == "<>" || op == "<" || op == ">" || op == "<=" || op == ">=" {
				left = p.cmpRight(op, left, precCmp+1)
			} else {
				left = &binExpr{op: op, l: left, r: p.expr(precOther + 1)}
			}
			continue
		}
		if t.k == tIdent {
			not := false
			k := 0
			if t.s == "not" {
				not, k = true, 1
			}
			switch w := p.peekAt(k); {
			case w.k == tIdent && w.s == "is" && !not:
				if precIs < min {
					return left
				}
				p.i++
				n := p.acceptKw("not")
				switch {
				case p.acceptKw("null"):
					left = &isExpr{e: left, not: n, what: "null"}
				case p.acceptKw("true"):
					left = &isExpr{e: left, not: n, what: "true"}
				case p.acceptKw("false"):
					left = &isExpr{e: left, not: n, what: "false"}
				case p.acceptKw("distinct", "from"):
					op := "is distinct from"
					if n {
						op = "is not distinct from"
					}
					left = &binExpr{op: op, l: left, r: p.expr(precIs + 1)}
				default:
					p.fail("unsupported IS")
				}
				continue
			case w.k == tIdent && (w.s == "isnull" || w.s == "notnull") && !not:
				if precIs < min {
					return left
				}
				p.i++
				left = &isExpr{e: left, not: w.s == "notnull", what: "null"}
				continue
			case w.k == tIdent && w.s == "in":
				if precLike < min {
					return left
				}
				p.i += k + 1
				p.expectOp("(")
				in := &inExpr{e: left, not: not}
				if p.isKw("select") {
					in.sub = p.query()
				} else {
					for {
						in.list = append(in.list, p.expr(0))
						if !p.acceptOp(",") {
							break
						}
					}
				}
				p.expectOp(")")
				left = in
				continue
			case w.k == tIdent && (w.s == "like" || w.s == "ilike"):
				if precLike < min {
					return left
				}
				p.i += k + 1
				left = &likeExpr{e: left, pat: p.expr(precLike + 1), not: not, ci: w.s == "ilike"}
				if p.acceptKw("escape") {
					p.expr(precLike + 1)
				}
				continue
			case w.k == tIdent && w.s == "between":
				if precLike < min {
					return left
				}
				p.i += k + 1
				p.acceptKw("symmetric")
				lo := p.expr(precLike + 1)
				p.expectKw("and")
				left = &betweenExpr{e: left, lo: lo, hi: p.expr(precLike + 1), not: not}
				continue
			}
		}
		op, prec := binPrec(t)
		if prec == 0 || prec < min {
			return left
		}
		p.i++
		if prec == precCmp {
			left = p.cmpRight(op, left, prec+1)
			continue
		}
		left = &binExpr{op: op, l: left, r: p.expr(prec + 1)}
	}
}

// cmpRight parses the right side of a comparison, which may be
// ANY/SOME/ALL (array or subquery).
func (p *parser) cmpRight(op string, left expr, prec int) expr {
	if op == "!=" {
		op = "<>"
	}
	if t := p.peek(); t.k == tIdent && (t.s == "any" || t.s == "some" || t.s == "all") && p.peekAt(1).k == tOp && p.peekAt(1).s == "(" {
		p.i += 2
		a := &anyExpr{op: op, l: left, all: t.s == "all"}
		if p.isKw("select") {
			a.sub = p.query()
		} else {
			a.r = p.expr(0)
		}
		p.expectOp(")")
		return a
	}
	return &binExpr{op: op, l: left, r: p.expr(prec)}
}

func (p *parser) unary() expr {
	if p.acceptOp("-") {
		return &negExpr{p.expr(precUnary)}
	}
	if p.acceptOp("+") {
		return p.expr(precUnary)
	}
	e := p.primary()
	defer func(d int) { p.depth = d }(p.depth)
	for first := true; ; first = false {
		if !first {
			p.deeper("casts and subscripts") // the last turn wrapped e
		}
		switch {
		case p.acceptOp("::"):
			e = &castExpr{e: e, t: p.typeName()}
		case p.isOp("["):
			p.i++
			idx := p.expr(0)
			if p.acceptOp(":") {
				p.fail("array slices are not supported")
			}
			p.expectOp("]")
			e = &indexExpr{e: e, idx: idx}
		case p.acceptKw("collate"):
			p.ident()
			for p.acceptOp(".") {
				p.ident()
			}
		default:
			return e
		}
	}
}

// typeName parses a type name: [schema.]name, multi-word names, an
// optional (n) modifier and [] suffixes.
func (p *parser) typeName() uint32 {
	name := p.ident()
	if p.peek().k != tQIdent && name == "char" && p.toks[p.i-1].k == tQIdent {
		name = "\"char\""
	}
	if p.toks[p.i-1].k == tQIdent && name == "char" {
		name = "\"char\""
	}
	for p.acceptOp(".") {
		name = p.ident()
		if p.toks[p.i-1].k == tQIdent && name == "char" {
			name = "\"char\""
		}
	}
	switch name {
	case "double":
		p.expectKw("precision")
		name = "double precision"
	case "character":
		if p.acceptKw("varying") {
			name = "character varying"
		}
	case "timestamp", "time":
		if p.acceptKw("with", "time", "zone") {
			name += " with time zone"
		} else if p.acceptKw("without", "time", "zone") {
			name += " without time zone"
		}
	}
	if p.acceptOp("(") {
		for !p.acceptOp(")") {
			if p.next().k == tEOF {
				p.fail("unterminated type modifier")
			}
		}
	}
	for p.isOp("[") && p.peekAt(1).k == tOp && p.peekAt(1).s == "]" {
		p.i += 2
		name += "[]"
	}
	t, ok := lookupType(name)
	if !ok {
		p.fail("type %q is not supported", name)
	}
	return t
}

func (p *parser) primary() expr {
	t := p.next()
	switch t.k {
	case tNum:
		if strings.ContainsAny(t.s, ".eE") {
			f, err := strconv.ParseFloat(t.s, 64)
			if err != nil {
				p.fail("bad number %q", t.s)
			}
			return &litExpr{v: f, t: types.OIDNumeric}
		}
		n, err := strconv.ParseInt(t.s, 10, 64)
		if err != nil {
			p.fail("bad number %q", t.s)
		}
		if n > 1<<31-1 {
			return &litExpr{v: n, t: types.OIDInt8}
		}
		return &litExpr{v: n, t: types.OIDInt4}
	case tStr:
		return &litExpr{v: t.s, t: types.OIDUnknown}
	case tParam:
		n, _ := strconv.Atoi(t.s)
		return &paramExpr{n: n}
	case tOp:
		if t.s == "(" {
			if p.isKw("select") || p.isKw("with") {
				q := p.query()
				p.expectOp(")")
				return &subExpr{q: q, kind: 'e'}
			}
			e := p.expr(0)
			if p.isOp(",") {
				p.fail("row constructors are not supported")
			}
			p.expectOp(")")
			return e
		}
		p.fail("unexpected %q", t.s)
	case tQIdent:
		return p.identExpr(t)
	case tIdent:
		switch t.s {
		case "null":
			return &litExpr{v: nil, t: types.OIDUnknown}
		case "true", "false":
			return &litExpr{v: t.s == "true", t: types.OIDBool}
		case "case":
			return p.caseExpr()
		case "cast":
			p.expectOp("(")
			e := p.expr(0)
			p.expectKw("as")
			c := &castExpr{e: e, t: p.typeName()}
			p.expectOp(")")
			return c
		case "exists":
			p.expectOp("(")
			q := p.query()
			p.expectOp(")")
			return &subExpr{q: q, kind: 'x'}
		case "array":
			if p.acceptOp("(") {
				q := p.query()
				p.expectOp(")")
				return &subExpr{q: q, kind: 'a'}
			}
			p.expectOp("[")
			a := &arrayExpr{}
			for !p.acceptOp("]") {
				a.elems = append(a.elems, p.expr(0))
				if !p.acceptOp(",") {
					p.expectOp("]")
					break
				}
			}
			return a
		case "current_user", "session_user", "user", "current_role", "current_catalog", "current_schema",
			"current_timestamp", "localtimestamp", "current_date", "now":
			if !p.isOp("(") {
				return &funcExpr{name: t.s}
			}
		case "trim":
			if p.isOp("(") {
				return p.trimExpr()
			}
		case "substring":
			if p.isOp("(") {
				return p.substringExpr()
			}
		}
		if p.peek().k == tStr {
			// typed literal: int '1', timestamp '...'
			p.i--
			tt := p.typeName()
			s := p.next()
			v := s.s
			if tt == types.OIDInterval {
				// INTERVAL '1' SECOND: the unit follows the literal
				if u := p.peek(); u.k == tIdent && intervalUnits[u.s] {
					p.i++
					v += " " + u.s
				}
			}
			return &castExpr{e: &litExpr{v: v, t: types.OIDUnknown}, t: tt}
		}
		return p.identExpr(t)
	}
	p.fail("unexpected end of query")
	return nil
}

func (p *parser) identExpr(first token) expr {
	parts := []string{first.s}
	for p.isOp(".") {
		p.i++
		if p.acceptOp("*") {
			return &starExpr{qual: parts[len(parts)-1]}
		}
		parts = append(parts, p.ident())
	}
	if p.isOp("(") {
		return p.funcCall(parts[len(parts)-1])
	}
	c := &colExpr{name: parts[len(parts)-1]}
	if len(parts) > 1 {
		c.qual = parts[len(parts)-2]
	}
	return c
}

func (p *parser) funcCall(name string) *funcExpr {
	p.expectOp("(")
	f := &funcExpr{name: name}
	if p.acceptOp("*") {
		f.star = true
		p.expectOp(")")
	} else if !p.acceptOp(")") {
		if p.acceptKw("distinct") {
			f.distinct = true
		} else {
			p.acceptKw("all")
		}
		p.acceptKw("variadic")
		for {
			f.args = append(f.args, p.expr(0))
			if !p.acceptOp(",") {
				break
			}
		}
		if p.acceptKw("order", "by") {
			f.order = p.orderList()
		}
		p.expectOp(")")
	}
	if p.acceptKw("within") {
		p.fail("WITHIN GROUP is not supported")
	}
	if p.acceptKw("filter") {
		p.expectOp("(")
		p.expectKw("where")
		f.filter = p.expr(0)
		p.expectOp(")")
	}
	if p.acceptKw("over") {
		p.expectOp("(")
		w := &window{}
		if p.acceptKw("partition", "by") {
			for {
				w.partition = append(w.partition, p.expr(0))
				if !p.acceptOp(",") {
					break
				}
			}
		}
		if p.acceptKw("order", "by") {
			w.order = p.orderList()
		}
		p.expectOp(")")
		if !windowFuncs[name] {
			p.fail("window function %s is not supported", name)
		}
		f.over = w
	}
	return f
}

func (p *parser) caseExpr() expr {
	c := &caseExpr{}
	if !p.isKw("when") {
		c.operand = p.expr(0)
	}
	for p.acceptKw("when") {
		w := whenClause{cond: p.expr(0)}
		p.expectKw("then")
		w.then = p.expr(0)
		c.whens = append(c.whens, w)
	}
	if p.acceptKw("else") {
		c.els = p.expr(0)
	}
	p.expectKw("end")
	return c
}

// trimExpr parses trim([leading|trailing|both] [chars] from s) and
// trim(s [, chars]).
func (p *parser) trimExpr() expr {
	p.expectOp("(")
	name := "btrim"
	switch {
	case p.acceptKw("leading"):
		name = "ltrim"
	case p.acceptKw("trailing"):
		name = "rtrim"
	case p.acceptKw("both"):
	}
	var chars expr
	if !p.isKw("from") {
		chars = p.expr(0)
	}
	if p.acceptKw("from") {
		s := p.expr(0)
		p.expectOp(")")
		if chars == nil {
			return &funcExpr{name: name, args: []expr{s}}
		}
		return &funcExpr{name: name, args: []expr{s, chars}}
	}
	args := []expr{chars}
	for p.acceptOp(",") {
		args = append(args, p.expr(0))
	}
	p.expectOp(")")
	return &funcExpr{name: name, args: args}
}

func (p *parser) substringExpr() expr {
	p.expectOp("(")
	args := []expr{p.expr(0)}
	if p.acceptKw("from") {
		args = append(args, p.expr(0))
		if p.acceptKw("for") {
			args = append(args, p.expr(0))
		}
	} else {
		for p.acceptOp(",") {
			args = append(args, p.expr(0))
		}
	}
	p.expectOp(")")
	return &funcExpr{name: "substring", args: args}
}
