package parser

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// nonFunctionWords may stand before '(' without naming a function.
var nonFunctionWords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IN": true, "EXISTS": true, "WHERE": true,
	"SELECT": true, "ON": true, "WHEN": true, "THEN": true, "ELSE": true, "BY": true,
	"HAVING": true, "AS": true, "FROM": true, "JOIN": true, "IS": true, "LIKE": true,
	"BETWEEN": true, "CASE": true, "DISTINCT": true, "ALL": true, "ANY": true,
	"SOME": true, "VALUES": true, "USING": true, "OVER": true, "XOR": true, "DIV": true,
	"MOD": true, "LIMIT": true, "SET": true, "RETURN": true, "INTERVAL": true,
}

// pgCast rewrites the Postgres cast `operand::type` at i (the '::') into
// CAST(operand AS target).
func (q *queryRewrite) pgCast(i int) int {
	t := q.toks[i]
	start, ok := q.castOperand(i - 1)
	if !ok {
		q.errAt(t, "expected an expression before ::")
		return i
	}
	if i+1 < len(q.toks) && q.toks[i+1].is("INTERVAL") && start == i-1 && q.toks[start].kind == tString {
		return q.intervalCast(i)
	}
	target, last, err := q.castType(i+1, len(q.toks))
	if err != nil {
		q.errs.add(err)
		q.rw.blank(t.off, t.end) // TiDB must not report the '::' before our error
		return i
	}
	if strings.HasPrefix(target, arrayTargetPrefix) { // x::T[] -> __array_cast(x, k)
		q.insertFirst(q.toks[start].off, ArrayCastFunc+"(")
		q.rw.replace(t.off, q.toks[last].end, arrayCastArgs(target))
		q.operand[last] = start
		return last
	}
	if fn := castFunc[target]; fn != "" { // x::interval -> __interval_cast(x)
		q.insertFirst(q.toks[start].off, fn+"(")
		q.rw.replace(t.off, q.toks[last].end, ")")
		q.operand[last] = start
		return last
	}
	if target == "" { // a TiDB-native target: as written
		target = q.p.src.text[q.toks[i+1].off:q.toks[last].end]
	}
	q.insertFirst(q.toks[start].off, "CAST(")
	q.rw.replace(t.off, q.toks[last].end, " AS "+target+")")
	q.operand[last] = start
	return last
}

// intervalCast rewrites the Postgres '1 day 02:00'::interval (the '::'
// at i) into an IntervalFunc call, as an interval literal.
func (q *queryRewrite) intervalCast(i int) int {
	lit := q.toks[i-1]
	if _, err := types.ParseIntervalValue(lit.val(), ""); err != nil {
		q.errAt(lit, fmt.Sprintf("invalid input syntax for type interval: %q", lit.val()))
		return i + 1
	}
	q.rw.replace(lit.off, q.toks[i+1].end, fmt.Sprintf("%s(%s, '')", IntervalFunc, quoteString(lit.val())))
	return i + 1
}

// intervalTarget is castType's answer for INTERVAL, which TiDB cannot
// cast to: the cast becomes a call of IntervalCastFunc.
const intervalTarget = "INTERVAL"

// castFunc maps castType's answers for the types TiDB cannot cast to to
// the calls that stand for the cast.
var castFunc = map[string]string{intervalTarget: IntervalCastFunc, timestampTZTarget: TimestampTZCastFunc}

// IntervalCastFunc is the function `CAST(x AS INTERVAL)` and `x::interval`
// become (x not a string literal, which is an interval literal): the
// binder makes it a cast to INTERVAL.
const IntervalCastFunc = "__interval_cast"

// castOperand finds the first token of the operand that ends at token j:
// a name (maybe qualified), a literal, a parenthesised expression, a
// function call (an aggregate's with its FILTER clause) or an earlier ::
// cast.
func (q *queryRewrite) castOperand(j int) (int, bool) {
	if j < 0 {
		return 0, false
	}
	if s, ok := q.operand[j]; ok {
		return s, true
	}
	t := q.toks[j]
	s := j
	switch {
	case t.isOp(")"):
		k := q.match[j]
		if k < 0 {
			return 0, false
		}
		s = k
		if k > 1 && q.toks[k-1].is("FILTER") && q.toks[k-2].isOp(")") && k+1 < len(q.toks) && q.toks[k+1].is("WHERE") {
			return q.castOperand(k - 2) // agg(...) FILTER (WHERE ...): the operand is the whole call
		}
		if k > 0 {
			if fn := q.toks[k-1]; fn.isName() && !nonFunctionWords[strings.ToUpper(fn.text)] {
				s = k - 1
			}
		}
	case t.kind == tDollar:
		return s, true
	case t.kind == tString:
		if j > 0 {
			if p := q.toks[j-1]; p.kind == tIdent && (p.end == t.off || p.is("DATE") || p.is("TIME") || p.is("TIMESTAMP")) {
				s = j - 1
			}
		}
		return s, true
	case t.is("END"):
		return q.caseStart(j)
	case t.kind == tNumber && j > 0 && q.toks[j-1].isOp("$") && q.toks[j-1].end == t.off:
		return j - 1, true // $1, a SQL function's parameter
	case t.isName() || t.kind == tNumber:
	default:
		return 0, false
	}
	for s >= 2 && q.toks[s-1].isOp(".") && q.toks[s-2].isName() {
		s -= 2
	}
	return s, true
}

// caseStart finds the CASE that the END at j closes.
func (q *queryRewrite) caseStart(j int) (int, bool) {
	depth := 0
	for k := j; k >= 0; k-- {
		t := q.toks[k]
		switch {
		case t.isOp(")") && q.match[k] >= 0:
			k = q.match[k]
		case t.is("END"):
			depth++
		case t.is("CASE"):
			if depth--; depth == 0 {
				return k, true
			}
		}
	}
	return 0, false
}

// castAs rewrites the type of CAST(expr AS type) whose AS is at i and
// whose '(' is at open.
func (q *queryRewrite) castAs(i, open int) int {
	closeIdx := q.match[open]
	if closeIdx < 0 || i+1 >= closeIdx {
		return i
	}
	target, last, err := q.castType(i+1, closeIdx)
	if err != nil {
		q.errs.add(err)
		return max(i, last)
	}
	if last+1 != closeIdx {
		return i // more than a type (e.g. CHAR CHARACTER SET x): TiDB decides
	}
	if strings.HasPrefix(target, arrayTargetPrefix) { // CAST(x AS T[]) -> __array_cast(x, k)
		q.rw.replace(q.toks[open-1].off, q.toks[open-1].end, ArrayCastFunc)
		q.rw.replace(q.toks[i].off, q.toks[last].end, arrayCastArgs(target)[:len(arrayCastArgs(target))-1])
		return last
	}
	if fn := castFunc[target]; fn != "" { // CAST(x AS INTERVAL) -> __interval_cast(x)
		q.rw.replace(q.toks[open-1].off, q.toks[open-1].end, fn)
		q.rw.blank(q.toks[i].off, q.toks[last].end)
		return last
	}
	if target != "" {
		q.rw.replace(q.toks[i+1].off, q.toks[last].end, target)
	}
	return last
}

// The cast targets. The planner maps TiDB's FuncCastExpr.Tp back to a kind:
//
//	BIGINT INT INTEGER SMALLINT INT2 INT4 INT8   -> SIGNED      (TypeLonglong)  -> Int
//	TEXT VARCHAR[(n)] CHAR[(n)] STRING            -> CHAR        (TypeVarString) -> String
//	DOUBLE [PRECISION] FLOAT FLOAT4 FLOAT8 REAL   -> DOUBLE      (TypeDouble)    -> Float
//	NUMERIC DECIMAL                               -> DECIMAL(0,0) (TypeNewDecimal, flen 0) -> Decimal, unconstrained
//	NUMERIC DECIMAL (p[,s])                       -> DECIMAL(p,s) (TypeNewDecimal) -> Decimal, fit to (p, s)
//	DATE                                          -> DATE        (TypeDate)      -> Date
//	TIMESTAMP[(p)] DATETIME[(p)] [WITHOUT TIME ZONE] -> DATETIME(6) (TypeDatetime) -> Timestamp
//	TIMESTAMPTZ, TIMESTAMP WITH TIME ZONE         -> TimestampTZCastFunc(x)       -> TimestampTZ
//	TIME[(p)]                                     -> TIME        (TypeDuration)  -> Time
//	BOOLEAN BOOL                                  -> TypeTiny, flen 1, IsBooleanFlag -> Bool
//	INTERVAL                                      -> IntervalCastFunc(x)          -> Interval
//	JSONB                                         -> JSON        (TypeJSON)      -> JSONB
//	BYTEA BINARY                                  -> BINARY      (TypeString, charset binary) -> Bytea
//
// TiDB has no BOOLEAN cast: the pass writes YEAR (same length as BOOL,
// padded for BOOLEAN) and fixVisitor turns every YEAR cast into TypeTiny,
// the type TiDB gives a BOOLEAN column; a user's own CAST(x AS YEAR) is
// refused. TiDB-native targets (SIGNED, UNSIGNED, CHAR, DATE, TIME,
// BINARY) pass through unchanged; Postgres's JSON (text kept as written)
// is not JSONB and is refused. TiDB reads a bare DECIMAL as
// DECIMAL(10,0); Postgres's bare NUMERIC is unconstrained, so the pass
// writes DECIMAL(0,0), a precision Postgres does not allow (1 to 1000,
// checked here), for it.
func (q *queryRewrite) castType(k, limit int) (target string, last int, err *sqlerr.Error) {
	if k >= limit {
		t := token{kind: tEOF, off: q.end, end: q.end}
		if k < len(q.toks) {
			t = q.toks[k]
		}
		return "", k, q.p.src.syntaxErr(t.off, q.end, "expected a type name")
	}
	t := q.toks[k]
	if t.kind != tIdent {
		return "", k, q.p.src.syntaxErr(t.off, q.end, "expected a type name")
	}
	last = k
	optWord := func(w string) {
		if last+1 < limit && q.toks[last+1].is(w) {
			last++
		}
	}
	optArgs := func() {
		if last+1 < limit && q.toks[last+1].isOp("(") && q.match[last+1] > 0 && q.match[last+1] < limit {
			last = q.match[last+1]
		}
	}
	switch strings.ToUpper(t.text) {
	case "BIGINT", "INT", "INTEGER", "SMALLINT", "INT2", "INT4", "INT8", "TINYINT":
		target = "SIGNED"
	case "SIGNED", "UNSIGNED":
		optWord("INTEGER")
		return "", last, nil
	case "TEXT", "STRING", "VARCHAR", "CHAR", "CHARACTER":
		optWord("VARYING")
		optArgs()
		target = "CHAR"
	case "DOUBLE":
		optWord("PRECISION")
		target = "DOUBLE"
	case "FLOAT", "FLOAT4", "FLOAT8", "REAL":
		optArgs()
		target = "DOUBLE"
	case "NUMERIC", "DECIMAL":
		target = "DECIMAL(0,0)" // unconstrained, as in Postgres
		if last+1 < limit && q.toks[last+1].isOp("(") && q.match[last+1] > 0 && q.match[last+1] < limit {
			c := &cursor{p: q.p, toks: q.toks[:q.match[last+1]+1], i: last + 1, end: q.end}
			p, s, err := c.decimalArgs()
			if err != nil {
				return "", k, err
			}
			target = fmt.Sprintf("DECIMAL(%d,%d)", p, s)
			last = q.match[last+1]
		}
	case "TIMESTAMP", "TIMESTAMPTZ", "DATETIME":
		optArgs()
		target = "DATETIME(6)"
		if t.is("TIMESTAMPTZ") {
			target = timestampTZTarget
		}
		if last+3 < limit && (q.toks[last+1].is("WITH") || q.toks[last+1].is("WITHOUT")) &&
			q.toks[last+2].is("TIME") && q.toks[last+3].is("ZONE") {
			if q.toks[last+1].is("WITH") {
				target = timestampTZTarget
			}
			last += 3
		}
	case "BOOLEAN", "BOOL":
		target = "YEAR"
	case "INTERVAL":
		target = intervalTarget
	case "YEAR":
		return "", k, q.p.src.unsupported(t.off, "cast to YEAR")
	case "JSONB":
		target = "JSON"
	case "BYTEA":
		target = "BINARY"
	case "JSON":
		return "", k, q.p.src.unsupported(t.off, "type JSON (use JSONB)")
	case "DATE", "TIME", "BINARY":
		optArgs()
		if at, end, ok := q.arrayType(k, last, limit); ok {
			return at, end, nil
		}
		return "", last, nil
	default:
		c := &cursor{p: q.p, end: q.end}
		return "", k, c.typeErr(t)
	}
	if at, end, ok := q.arrayType(k, last, limit); ok {
		return at, end, nil
	}
	return target, last, nil
}
