package difftest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// dialect is the SQL a production renders: streamsql's or Postgres'.
type dialect uint8

const (
	streaming dialect = iota
	postgres
)

// kind is the SQL type of an expression, as the grammar tracks it. It
// decides how answers are compared: kFloat columns compare as numbers to
// 12 significant digits (summation order and libm differ), every other
// kind compares as exact text.
type kind uint8

const (
	kInt kind = iota
	kFloat
	kDec
	kStr
	kTs
	kBool
	kInterval
	kDate
	kJSON  // only an argument of the JSONB productions (jsonb_test.go)
	kBytea // only an argument of the BYTEA productions (bytea_test.go)
	kArray // a BIGINT[], only an argument of the array productions (array_test.go)
	kTime  // a TIME, only an argument of the TIME productions (zone_test.go)
)

func (k kind) String() string {
	return [...]string{"BIGINT", "DOUBLE", "DECIMAL", "VARCHAR", "TIMESTAMP", "BOOLEAN", "INTERVAL", "DATE", "JSONB", "BYTEA", "BIGINT[]"}[k]
}

// expr is a scalar production: it has a kind and renders in both
// dialects.
type expr interface {
	kind() kind
	sql(d dialect) string
}

// col is a column reference; rel qualifies it ("" in single-input
// queries).
type col struct {
	rel, name string
	k         kind
}

func (c col) kind() kind { return c.k }
func (c col) sql(dialect) string {
	if c.rel == "" {
		return c.name
	}
	return c.rel + "." + c.name
}

// lit is a constant; pg is its Postgres spelling when it differs.
type lit struct {
	k      kind
	st, pg string
}

func (l lit) kind() kind { return l.k }
func (l lit) sql(d dialect) string {
	if d == postgres && l.pg != "" {
		return l.pg
	}
	return l.st
}

// binary is an infix arithmetic operator (+ - * on any numeric mix, /
// and % by a non-zero constant, timestamp ± interval, timestamp −
// timestamp, interval × integer).
type binary struct {
	op   string
	l, r expr
	k    kind
}

func (b binary) kind() kind { return b.k }
func (b binary) sql(d dialect) string {
	return "(" + b.l.sql(d) + " " + b.op + " " + b.r.sql(d) + ")"
}

// neg is unary minus.
type neg struct{ x expr }

func (n neg) kind() kind { return n.x.kind() }
func (n neg) sql(d dialect) string {
	return "(- " + n.x.sql(d) + ")"
}

// call is a built-in function from scalarFuncs.
type call struct {
	fn   *scalarFunc
	args []expr
}

func (c call) kind() kind { return c.fn.result }
func (c call) sql(d dialect) string {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = a.sql(d)
	}
	switch {
	case d == postgres && c.fn.pg != nil:
		return c.fn.pg(args)
	case d == streaming && c.fn.st != nil:
		return c.fn.st(args)
	}
	return c.fn.name + "(" + strings.Join(args, ", ") + ")"
}

// cast is CAST(x AS type); pg, when set, renders the Postgres form.
type cast struct {
	x      expr
	to     kind
	st, pg string // target type spellings
	pgFn   func(x string) string
}

func (c cast) kind() kind { return c.to }
func (c cast) sql(d dialect) string {
	if d == postgres {
		if c.pgFn != nil {
			return c.pgFn(c.x.sql(d))
		}
		return "CAST(" + c.x.sql(d) + " AS " + c.pg + ")"
	}
	return "CAST(" + c.x.sql(d) + " AS " + c.st + ")"
}

// caseWhen is CASE WHEN c THEN a ELSE b END.
type caseWhen struct{ c, a, b expr }

func (c caseWhen) kind() kind { return c.a.kind() }
func (c caseWhen) sql(d dialect) string {
	return "CASE WHEN " + c.c.sql(d) + " THEN " + c.a.sql(d) + " ELSE " + c.b.sql(d) + " END"
}

// cmp is a comparison (= <> < <= > >=).
type cmp struct {
	op   string
	l, r expr
}

func (cmp) kind() kind { return kBool }
func (c cmp) sql(d dialect) string {
	return "(" + c.l.sql(d) + " " + c.op + " " + c.r.sql(d) + ")"
}

// nullSafeEq is <=> (Postgres: IS NOT DISTINCT FROM), or with op set
// streamsql's spelling of IS [NOT] DISTINCT FROM, which is Postgres's.
type nullSafeEq struct {
	l, r expr
	op   string
}

func (nullSafeEq) kind() kind { return kBool }
func (n nullSafeEq) sql(d dialect) string {
	switch {
	case n.op != "":
		return "(" + n.l.sql(d) + " " + n.op + " " + n.r.sql(d) + ")"
	case d == postgres:
		return "(" + n.l.sql(d) + " IS NOT DISTINCT FROM " + n.r.sql(d) + ")"
	}
	return "(" + n.l.sql(d) + " <=> " + n.r.sql(d) + ")"
}

// regexMatch is s ~ pattern (~*, !~, !~*), spelled alike in both.
type regexMatch struct {
	x       expr
	op, pat string
}

func (regexMatch) kind() kind { return kBool }
func (m regexMatch) sql(d dialect) string {
	return "(" + m.x.sql(d) + " " + m.op + " " + m.pat + ")"
}

// regexPatterns mean the same in RE2 and Postgres's regular expressions
// (docs/sql.md lists where the two differ).
var regexPatterns = []string{"'a'", "'^a'", "'c$'", "'a.c'", "'[a-c]+'", "'x|y'", "'\\s'", "'^[[:alpha:]]+$'", "'L{2}'", "'(o)(r)'"}

// isTest is x IS [NOT] NULL|TRUE|FALSE.
type isTest struct {
	x    expr
	test string
}

func (isTest) kind() kind { return kBool }
func (i isTest) sql(d dialect) string {
	return "(" + i.x.sql(d) + " IS " + i.test + ")"
}

// like is s [NOT] LIKE|ILIKE pattern [ESCAPE '!'].
type like struct {
	x       expr
	op, pat string
	escape  bool
}

func (like) kind() kind { return kBool }
func (l like) sql(d dialect) string {
	s := "(" + l.x.sql(d) + " " + l.op + " " + l.pat
	if l.escape {
		s += " ESCAPE '!'"
	}
	return s + ")"
}

// inList is x [NOT] IN (constants), NULL among them at times.
type inList struct {
	x    expr
	not  bool
	list []string
}

func (inList) kind() kind { return kBool }
func (i inList) sql(d dialect) string {
	op := " IN ("
	if i.not {
		op = " NOT IN ("
	}
	return "(" + i.x.sql(d) + op + strings.Join(i.list, ", ") + "))"
}

// between is x [NOT] BETWEEN lo AND hi.
type between struct {
	x, lo, hi expr
	not       bool
}

func (between) kind() kind { return kBool }
func (b between) sql(d dialect) string {
	op := " BETWEEN "
	if b.not {
		op = " NOT BETWEEN "
	}
	return "(" + b.x.sql(d) + op + b.lo.sql(d) + " AND " + b.hi.sql(d) + ")"
}

// logic is AND / OR.
type logic struct {
	op   string
	l, r expr
}

func (logic) kind() kind { return kBool }
func (l logic) sql(d dialect) string {
	return "(" + l.l.sql(d) + " " + l.op + " " + l.r.sql(d) + ")"
}

// not is NOT x.
type not struct{ x expr }

func (not) kind() kind             { return kBool }
func (n not) sql(d dialect) string { return "(NOT " + n.x.sql(d) + ")" }

// gen draws productions from a random source over the columns in scope.
type gen struct {
	r    *rand.Rand
	cols []col
	// sweep is genFuncSweep's position in scalarFuncs.
	sweep int
	// funcs numbers the SQL functions drawn (genSQLFunction).
	funcs int
}

func (g *gen) pick(n int) int { return g.r.IntN(n) }

func (g *gen) oneOf(s ...string) string { return s[g.r.IntN(len(s))] }

// colOf returns a column of kind k in scope, if any.
func (g *gen) colOf(k kind) (col, bool) {
	var cs []col
	for _, c := range g.cols {
		if c.k == k {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return col{}, false
	}
	return cs[g.r.IntN(len(cs))], true
}

// leaf is a column or a constant of kind k.
func (g *gen) leaf(k kind) expr {
	if c, ok := g.colOf(k); ok && g.pick(3) > 0 {
		return c
	}
	return g.lit(k)
}

// lit is a constant of kind k.
func (g *gen) lit(k kind) expr {
	switch k {
	case kInt:
		return lit{k: k, st: g.oneOf("0", "1", "2", "3", "7", "-4")}
	case kFloat:
		v := g.oneOf("0.5", "2.5", "-1.25", "10", "0")
		return lit{k: k, st: "CAST(" + v + " AS DOUBLE)", pg: "CAST(" + v + " AS float8)"}
	case kDec:
		v := g.oneOf("0.10", "1.00", "2.50", "-0.05")
		return lit{k: k, st: "CAST(" + v + " AS DECIMAL(10,2))", pg: "CAST(" + v + " AS numeric(10,2))"}
	case kStr:
		return lit{k: k, st: g.oneOf("'a'", "'abc'", "''", "'hello world'", "'x%y'", `E'a\tb\'c'`, `E'\x41\u0062\n'`)}
	case kTs:
		v := g.oneOf("'2024-01-01 00:00:00'", "'2023-12-31 23:59:30'", "'2024-01-01 00:01:05.5'")
		return lit{k: k, st: "CAST(" + v + " AS TIMESTAMP)"}
	case kBool:
		return lit{k: k, st: g.oneOf("TRUE", "FALSE")}
	case kInterval:
		// Literals in Postgres' forms (months, days and time kept apart)
		// or a difference of input times (whole days and the rest).
		if g.pick(2) == 0 {
			return binary{op: "-", l: g.leaf(kTs), r: g.leaf(kTs), k: kInterval}
		}
		return lit{k: k, st: g.oneOf(intervalLiterals...)}
	case kDate:
		return cast{x: g.lit(kTs), to: kDate, st: "DATE", pg: "date"}
	case kJSON:
		return jsonLit(g)
	case kBytea:
		return byteaLit(g)
	case kArray:
		return arrayLit(g)
	}
	panic(fmt.Sprintf("difftest: no literal of kind %v", k))
}

// expr draws an expression of kind k, nesting at most depth levels.
func (g *gen) expr(k kind, depth int) expr {
	if depth <= 0 || g.pick(4) == 0 {
		return g.leaf(k)
	}
	ps := exprProductions[k]
	return ps[g.pick(len(ps))](g, depth-1)
}

// exprProductions are the ways to build an expression of each kind. A new
// operator joins the corpus by adding its function here (and, for a
// function, its row in scalarFuncs).
var exprProductions map[kind][]func(g *gen, depth int) expr

func init() {
	exprProductions = map[kind][]func(g *gen, depth int) expr{
		kInt: {
			arith(kInt, kInt, kInt, "+", "-", "*"),
			divByConst(kInt, "/", "%"),
			func(g *gen, d int) expr { return neg{g.expr(kInt, d)} },
			funcsOf(kInt), funcsOf(kInt), funcsOf(kInt),
			castTo(kInt), caseOf(kInt),
		},
		kFloat: {
			arith(kFloat, kFloat, kFloat, "+", "-", "*"),
			arith(kFloat, kInt, kFloat, "+", "*"),
			divByConst(kFloat, "/"),
			func(g *gen, d int) expr { return neg{g.expr(kFloat, d)} },
			funcsOf(kFloat), funcsOf(kFloat), funcsOf(kFloat),
			castTo(kFloat), caseOf(kFloat),
		},
		kDec: {
			arith(kDec, kDec, kDec, "+", "-"),
			arith(kDec, kDec, kInt, "*", "+"),
			divByConst(kDec, "/"),
			func(g *gen, d int) expr { return neg{g.expr(kDec, d)} },
			funcsOf(kDec), castTo(kDec),
		},
		kStr: {
			funcsOf(kStr), funcsOf(kStr), funcsOf(kStr),
			castTo(kStr), caseOf(kStr),
		},
		kTs: {
			shiftTs,
			funcsOf(kTs),
		},
		kInterval: {
			func(g *gen, d int) expr { return g.leaf(kInterval) },
			func(g *gen, d int) expr {
				return binary{op: "*", l: g.leaf(kInterval), r: g.leaf(kInt), k: kInterval}
			},
			func(g *gen, d int) expr {
				return binary{op: "*", l: g.expr(kInterval, d), r: g.leaf(kFloat), k: kInterval}
			},
			arith(kInterval, kInterval, kInterval, "+", "-"),
			divByConst(kInterval, "/"),
			func(g *gen, d int) expr { return neg{g.expr(kInterval, d)} },
		},
		kDate:  {castTo(kDate)},
		kBytea: byteaProductions,
		kArray: arrayProductions,
		kJSON: {jsonFromRow, func(g *gen, d int) expr {
			return call{fn: &scalarFunc{name: "->", result: kJSON, st: jsonOp("->"), pg: jsonOp("->")}, args: jsonArgs(jsonKeys)(g, d)}
		}},
		kBool: {
			comparison, comparison, comparison,
			func(g *gen, d int) expr {
				return nullSafeEq{l: g.expr(kInt, d), r: g.expr(kInt, d)}
			},
			func(g *gen, d int) expr {
				k := []kind{kInt, kStr, kDec, kTs, kFloat}[g.pick(5)]
				return nullSafeEq{l: g.expr(k, d), r: g.expr(k, d), op: g.oneOf("IS DISTINCT FROM", "IS NOT DISTINCT FROM")}
			},
			func(g *gen, d int) expr {
				return regexMatch{x: g.expr(kStr, d), op: g.oneOf("~", "~*", "!~", "!~*"), pat: g.oneOf(regexPatterns...)}
			},
			funcsOf(kBool),
			func(g *gen, d int) expr {
				k := []kind{kInt, kStr, kDec, kTs, kFloat}[g.pick(5)]
				return isTest{g.expr(k, d), g.oneOf("NULL", "NOT NULL")}
			},
			func(g *gen, d int) expr {
				return isTest{g.expr(kBool, d), g.oneOf("TRUE", "FALSE", "NOT TRUE", "NOT FALSE")}
			},
			likeOf,
			func(g *gen, d int) expr {
				list := []string{"0", "2", "3"}
				if g.pick(3) == 0 {
					list = append(list, "NULL")
				}
				return inList{x: g.expr(kInt, d), not: g.pick(2) == 0, list: list}
			},
			func(g *gen, d int) expr {
				k := []kind{kInt, kTs, kDec}[g.pick(3)]
				return between{x: g.expr(k, d), lo: g.expr(k, d), hi: g.expr(k, d), not: g.pick(3) == 0}
			},
			func(g *gen, d int) expr { return logic{g.oneOf("AND", "OR"), g.expr(kBool, d), g.expr(kBool, d)} },
			func(g *gen, d int) expr { return not{g.expr(kBool, d)} },
			castTo(kBool),
		},
	}
}

// arith builds l op r of the given kinds (the operands swap at random when
// their kinds differ, for the commutative operators).
func arith(res, lk, rk kind, ops ...string) func(g *gen, d int) expr {
	return func(g *gen, d int) expr {
		op := ops[g.pick(len(ops))]
		l, r := g.expr(lk, d), g.expr(rk, d)
		if lk != rk && (op == "+" || op == "*") && g.pick(2) == 0 && !(lk == kTs || rk == kTs) {
			l, r = r, l
		}
		return binary{op: op, l: l, r: r, k: res}
	}
}

// intervalLiterals are interval literals in the forms Postgres reads:
// a number and a unit keyword, text with units (plural, abbreviated,
// fractional, "ago") and clock times.
var intervalLiterals = []string{
	"INTERVAL '1' MONTH", "INTERVAL '2' YEAR", "INTERVAL '90' MINUTE", "INTERVAL '3' DAY",
	"INTERVAL '1 year 2 mons'", "INTERVAL '1 day 02:00:00'", "INTERVAL '36 hours'",
	"INTERVAL '-1 day +02:00'", "INTERVAL '1.5 months'", "INTERVAL '1 mon -1 days'",
	"INTERVAL '2 weeks ago'", "INTERVAL '00:00:00.5'", "INTERVAL '10s'",
}

// shiftTs is ts ± INTERVAL 'n' SECOND, or ± any interval expression
// (months added on the calendar).
func shiftTs(g *gen, d int) expr {
	if g.pick(2) == 0 {
		return binary{op: g.oneOf("+", "-"), l: g.expr(kTs, d), r: g.expr(kInterval, d), k: kTs}
	}
	n := g.oneOf("1", "5", "10", "90")
	return binary{op: g.oneOf("+", "-"), l: g.expr(kTs, d), r: lit{k: kInterval, st: "INTERVAL '" + n + "' SECOND"}, k: kTs}
}

// divByConst builds x / c and x % c with a non-zero constant c: a
// division by zero is an error in Postgres and NULL in a running view.
func divByConst(k kind, ops ...string) func(g *gen, d int) expr {
	return func(g *gen, d int) expr {
		c := g.oneOf("2", "3", "-4", "7")
		var r expr = lit{k: kInt, st: c}
		if k == kFloat && g.pick(2) == 0 {
			r = lit{k: kFloat, st: "CAST(" + c + " AS DOUBLE)", pg: "CAST(" + c + " AS float8)"}
		}
		return binary{op: ops[g.pick(len(ops))], l: g.expr(k, d), r: r, k: k}
	}
}

func caseOf(k kind) func(g *gen, d int) expr {
	return func(g *gen, d int) expr {
		return caseWhen{c: g.expr(kBool, d), a: g.expr(k, d), b: g.expr(k, d)}
	}
}

// comparison compares two expressions of one kind (or an integer with a
// double).
func comparison(g *gen, d int) expr {
	op := g.oneOf("=", "<>", "<", "<=", ">", ">=")
	pairs := [][2]kind{{kInt, kInt}, {kInt, kFloat}, {kStr, kStr}, {kTs, kTs}, {kDec, kDec}, {kFloat, kFloat}, {kDec, kInt}, {kInterval, kInterval}}
	p := pairs[g.pick(len(pairs))]
	return cmp{op: op, l: g.expr(p[0], d), r: g.expr(p[1], d)}
}

func likeOf(g *gen, d int) expr {
	op := g.oneOf("LIKE", "NOT LIKE", "ILIKE", "LIKE", "NOT ILIKE")
	if g.pick(4) == 0 {
		return like{x: g.expr(kStr, d), op: op, pat: g.oneOf("'a!_c'", "'x!%y'", "'%!_%'"), escape: true}
	}
	return like{x: g.expr(kStr, d), op: op, pat: g.oneOf("'a%'", "'%b%'", "'_'", "'%'", "'a_c'", "''", "'A%'", "'% %'")}
}

// castTo builds CAST(x AS k) from a kind that casts to k, in Postgres'
// spelling of the same conversion. Float and DECIMAL to BIGINT round half
// away from zero (planner.CanCast's documentation); Postgres' float8 to
// bigint rounds half to even, so its side rounds through numeric.
func castTo(k kind) func(g *gen, d int) expr {
	return func(g *gen, d int) expr {
		switch k {
		case kInt:
			switch g.pick(3) {
			case 0:
				return cast{x: g.expr(kFloat, d), to: k, st: "BIGINT", pgFn: func(x string) string { return "CAST(round(CAST(" + x + " AS numeric)) AS bigint)" }}
			case 1:
				return cast{x: g.expr(kDec, d), to: k, st: "BIGINT", pg: "bigint"}
			}
			return cast{x: g.expr(kBool, d), to: k, st: "BIGINT", pgFn: func(x string) string { return "CAST(CAST(" + x + " AS int) AS bigint)" }}
		case kFloat:
			from := []kind{kInt, kDec}[g.pick(2)]
			return cast{x: g.expr(from, d), to: k, st: "DOUBLE", pg: "float8"}
		case kDec:
			from := []kind{kInt, kDec}[g.pick(2)]
			return cast{x: g.expr(from, d), to: k, st: "DECIMAL(12,2)", pg: "numeric(12,2)"}
		case kStr:
			from := []kind{kInt, kFloat, kDec, kTs, kBool, kInterval}[g.pick(6)]
			return cast{x: g.expr(from, d), to: k, st: "VARCHAR", pg: "text"}
		case kBool:
			return cast{x: g.expr(kInt, d), to: k, st: "BOOLEAN", pgFn: func(x string) string { return "CAST(CAST(" + x + " AS int) AS boolean)" }}
		case kDate:
			return cast{x: g.expr(kTs, d), to: k, st: "DATE", pg: "date"}
		}
		panic(fmt.Sprintf("difftest: no cast to %v", k))
	}
}

// funcsOf draws a call of a built-in returning kind k.
func funcsOf(k kind) func(g *gen, d int) expr {
	return func(g *gen, d int) expr {
		fs := funcsByResult[k]
		f := fs[g.pick(len(fs))]
		return call{fn: f, args: f.args(g, d)}
	}
}
