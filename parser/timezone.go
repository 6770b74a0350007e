package parser

// The time zone forms TiDB lacks, rewritten into calls the binder knows:
//
//	x AT TIME ZONE z                              → __at_time_zone(x, z)
//	TIMESTAMPTZ 'text', TIMESTAMP WITH TIME ZONE 'text' → __timestamptz_cast('text')
//	CAST(x AS TIMESTAMPTZ), x::timestamptz        → __timestamptz_cast(x)

// AtTimeZoneFunc is the call `x AT TIME ZONE z` becomes: the binder makes
// it timezone(z, x).
const AtTimeZoneFunc = "__at_time_zone"

// TimestampTZCastFunc is the call a cast to TIMESTAMPTZ (which TiDB has no
// type for) and a TIMESTAMPTZ 'text' literal become: the binder makes it
// a cast to TIMESTAMPTZ.
const TimestampTZCastFunc = "__timestamptz_cast"

// timestampTZTarget is castType's answer for TIMESTAMPTZ and TIMESTAMP
// WITH TIME ZONE.
const timestampTZTarget = "TIMESTAMPTZ"

// atTimeZone rewrites `x AT TIME ZONE z` whose AT is at i; z is a string
// literal, a (qualified) name or a parenthesised expression.
func (q *queryRewrite) atTimeZone(i int) int {
	if i+3 >= len(q.toks) || !q.toks[i+1].is("TIME") || !q.toks[i+2].is("ZONE") {
		return i
	}
	start, ok := q.castOperand(i - 1)
	if !ok {
		q.errAt(q.toks[i], "expected an expression before AT TIME ZONE")
		return i
	}
	last := i + 3
	z := q.toks[last]
	switch {
	case z.isOp("(") && q.match[last] > 0:
		last = q.match[last]
	case z.kind == tString:
	case z.isName():
		for last+2 < len(q.toks) && q.toks[last+1].isOp(".") && q.toks[last+2].isName() {
			last += 2
		}
	default:
		q.errAt(z, "expected a time zone after AT TIME ZONE")
		return i
	}
	q.rw.insert(q.toks[start].off, AtTimeZoneFunc+"(")
	q.rw.replace(q.toks[i].off, q.toks[i+2].end, ",")
	q.rw.insert(q.toks[last].end, ")")
	q.operand[last] = start
	return i + 2 // the zone operand is rewritten as usual
}

// timestampTZLiteral rewrites TIMESTAMPTZ 'text' or TIMESTAMP WITH TIME
// ZONE 'text' (the type word at i) into a TimestampTZCastFunc call.
func (q *queryRewrite) timestampTZLiteral(i int) int {
	lit := i + 1
	if q.toks[i].is("TIMESTAMP") {
		lit = i + 4
		if lit >= len(q.toks) || !q.toks[i+1].is("WITH") || !q.toks[i+2].is("TIME") || !q.toks[i+3].is("ZONE") {
			return i
		}
	}
	if lit >= len(q.toks) || q.toks[lit].kind != tString {
		return i
	}
	q.rw.replace(q.toks[i].off, q.toks[lit].off, TimestampTZCastFunc+"(")
	q.rw.insert(q.toks[lit].end, ")")
	q.operand[lit] = i
	return lit
}
