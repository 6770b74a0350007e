package parser

import "strings"

// This file rewrites Postgres operators TiDB's grammar lacks into forms it
// parses, finding their operands by precedence over the tokens:
//
//	a IS NOT DISTINCT FROM b   → a <=> (b)
//	a IS DISTINCT FROM b       → (NOT (a <=> (b)))
//	a ~ b, a ~* b              → regexp_like(a, b), regexp_like(a, b, 'i')
//	a !~ b, a !~* b            → (NOT regexp_like(a, b[, 'i']))
//	EXTRACT(dow FROM ts)       → DATE_PART('dow', ts) for the fields TiDB lacks
//	a -> b (->> #> #>> @> ?)   → `->`(a, b): the funcs registry's JSONB operators
//
// Only the operator tokens are replaced and text inserted around the
// operands, so error positions inside the operands stay exact.

// boundaryWords end an operand of any operator at their level: clause
// keywords and the logical connectives, which bind looser than both IS
// and ~.
var boundaryWords = map[string]bool{
	"SELECT": true, "WHERE": true, "ON": true, "WHEN": true, "THEN": true, "ELSE": true,
	"HAVING": true, "BY": true, "AND": true, "OR": true, "XOR": true, "NOT": true, "AS": true,
	"FROM": true, "LIMIT": true, "ORDER": true, "GROUP": true, "UNION": true, "EXCEPT": true,
	"INTERSECT": true, "ASC": true, "DESC": true, "RETURN": true, "SET": true, "VALUES": true,
	"IS": true, "DISTINCT": true, "ALL": true, "USING": true, "WINDOW": true, "EMIT": true,
	"OFFSET": true, "JOIN": true, "OVER": true, "PARTITION": true,
}

// compareWords and compareOps bind looser than Postgres's ~ (and tighter
// than IS): they end an operand of ~ but not of IS DISTINCT FROM.
var (
	compareWords = map[string]bool{"LIKE": true, "ILIKE": true, "IN": true, "BETWEEN": true, "ESCAPE": true, "REGEXP": true, "RLIKE": true}
	compareOps   = map[string]bool{
		"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
		"<=>": true, "||": true, "~": true, "!": true, "&&": true, "->": true, "->>": true,
		"#>": true, "#>>": true, "@>": true, "?": true,
	}
)

// stopsOperand reports whether t ends an operand; tight is true for ~,
// whose operands stop at comparisons too. Brackets are walls like
// parentheses: the scans step over a matched pair whole, so meeting one
// means the operand is an element of ARRAY[...] or a subscript.
func stopsOperand(t token, tight bool) bool {
	switch t.kind {
	case tEOF:
		return true
	case tIdent:
		w := strings.ToUpper(t.text)
		return boundaryWords[w] || (tight && compareWords[w])
	case tOp:
		return t.text == "(" || t.text == ")" || t.text == "[" || t.text == "]" || t.text == "," || t.text == ";" || (tight && compareOps[t.text])
	}
	return false
}

// stopsLeftOperand is stopsOperand scanning back from an operator: ~ and
// the JSONB operators are left-associative with || at Postgres's "other
// operator" level, so their left operand takes in a chain of them.
func stopsLeftOperand(t token, tight bool) bool {
	if t.isOp("||") || isJSONOp(t) {
		return false
	}
	return stopsOperand(t, tight)
}

// isJSONOp reports whether t is one of the JSONB operators.
func isJSONOp(t token) bool {
	return t.kind == tOp && (t.text == "->" || t.text == "->>" || t.text == "#>" || t.text == "#>>" || t.text == "@>" || t.text == "?")
}

// jsonOp rewrites the JSONB operator at i into a call of the registry
// entry named by its symbol, `->`(a, b), and returns i.
func (q *queryRewrite) jsonOp(i int) int {
	t := q.toks[i]
	s, e := q.operandStart(i-1, true), q.operandEnd(i+1, true)
	if t.isOp("||") && (s < 0 || e < 0 || !q.isBinaryAt(i) || q.hasParamOrDollar(s, e)) {
		return i // TiDB's own || (CONCAT): a SQL function body's $n and $$…$$ stay its
	}
	if s < 0 || e < 0 || !q.isBinaryAt(i) {
		q.errAt(t, "the operator "+t.text+" needs an operand on each side")
		return i
	}
	q.rw.replace(t.off, t.end, ",")
	q.wrapOperands(s, e, "`"+t.text+"`(", ")")
	return i
}

// operandStart returns the first token of the operand that ends at token
// j, or -1 when there is none.
func (q *queryRewrite) operandStart(j int, tight bool) int {
	k := j
	for ; k >= 0; k-- {
		t := q.toks[k]
		switch {
		case t.isOp(")") && q.match[k] >= 0:
			k = q.match[k]
			continue
		case t.isOp("]") && q.bmatch != nil && q.bmatch[k] >= 0:
			k = q.bmatch[k]
			if k > 0 && q.toks[k-1].is("ARRAY") {
				k--
			}
			continue
		case t.is("END"):
			if s, ok := q.caseStart(k); ok {
				k = s
				continue
			}
		}
		if stopsLeftOperand(t, tight) || t.is("CASE") {
			break
		}
	}
	if k+1 > j {
		return -1
	}
	return k + 1
}

// operandEnd returns the last token of the operand that starts at token
// i, or -1 when there is none.
func (q *queryRewrite) operandEnd(i int, tight bool) int {
	k, cases, between := i, 0, false
	for ; k < len(q.toks); k++ {
		t := q.toks[k]
		switch {
		case t.isOp("(") && q.match[k] > k:
			k = q.match[k]
			continue
		case t.isOp("[") && q.bmatch != nil && q.bmatch[k] > k:
			k = q.bmatch[k]
			continue
		case t.is("CASE"):
			cases++
			continue
		case t.is("END") && cases > 0:
			cases--
			continue
		case cases > 0:
			continue
		case t.is("BETWEEN") && !tight:
			between = true
			continue
		case t.is("AND") && between:
			between = false
			continue
		}
		if stopsOperand(t, tight) || t.is("END") {
			break
		}
	}
	if k-1 < i {
		return -1
	}
	return k - 1
}

// wrapOperands puts before and after around the tokens [s, e]. Both go
// in front of earlier insertions at the same offsets: an operator
// rewritten later either encloses the earlier one (its operand started
// there: a :: cast's CAST) or is inside it (its operand ends there).
func (q *queryRewrite) wrapOperands(s, e int, before, after string) {
	if before != "" {
		q.insertFirst(q.toks[s].off, before)
	}
	q.insertFirst(q.toks[e].end, after)
}

// insertFirst inserts text at off before any earlier insertion there.
func (q *queryRewrite) insertFirst(off int, text string) {
	q.rw.firsts = append(q.rw.firsts, edit{off, off, text})
}

// isDistinct rewrites IS [NOT] DISTINCT FROM at i (the IS) and returns
// the index of its FROM, or i when the tokens are not that operator.
func (q *queryRewrite) isDistinct(i int) int {
	not := i+1 < len(q.toks) && q.toks[i+1].is("NOT")
	from := i + 2
	if not {
		from++
	}
	if from >= len(q.toks) || !q.toks[from-1].is("DISTINCT") || !q.toks[from].is("FROM") {
		return i
	}
	t := q.toks[i]
	s, e := q.operandStart(i-1, false), q.operandEnd(from+1, false)
	if s < 0 || e < 0 {
		q.errAt(t, "IS DISTINCT FROM needs an operand on each side")
		return from
	}
	q.rw.replace(t.off, q.toks[from].end, "<=> (")
	if not {
		q.wrapOperands(s, e, "", ")")
		return from
	}
	q.wrapOperands(s, e, "(NOT (", ")))")
	return from
}

// isBinaryAt reports whether the token before i ends an operand, so that
// an operator at i is binary.
func (q *queryRewrite) isBinaryAt(i int) bool {
	if i == 0 {
		return false
	}
	p := q.toks[i-1]
	return p.isOp(")") || p.isOp("]") || p.kind == tString || p.kind == tNumber || p.kind == tQIdent ||
		(p.kind == tIdent && !stopsOperand(p, true) && !p.is("CASE"))
}

// regexOp rewrites the Postgres regex match operator starting at i (~ or
// the ! of !~) into REGEXP_LIKE and returns the index of its last token.
func (q *queryRewrite) regexOp(i int) int {
	last, negate := i, q.toks[i].isOp("!")
	if negate {
		if i+1 >= len(q.toks) || !q.toks[i+1].isOp("~") {
			return i
		}
		last++
	}
	if !q.isBinaryAt(i) {
		return i
	}
	fold := last+1 < len(q.toks) && q.toks[last+1].isOp("*") && q.toks[last+1].off == q.toks[last].end
	if fold {
		last++
	}
	s, e := q.operandStart(i-1, true), q.operandEnd(last+1, true)
	if s < 0 || e < 0 {
		q.errAt(q.toks[i], "a regular expression match needs an operand on each side")
		return last
	}
	open, closing := "regexp_like(", ")"
	if fold {
		closing = ", 'i')"
	}
	if negate {
		open, closing = "(NOT "+open, closing+")"
	}
	q.rw.replace(q.toks[i].off, q.toks[last].end, ",")
	q.wrapOperands(s, e, open, closing)
	return last
}

// tidbExtractUnits are the EXTRACT fields TiDB's grammar knows; EXTRACT
// of any other word becomes DATE_PART, which the binder checks.
var tidbExtractUnits = map[string]bool{
	"MICROSECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true, "DAY": true,
	"WEEK": true, "MONTH": true, "QUARTER": true, "YEAR": true,
}

// extract rewrites EXTRACT(field FROM at i into DATE_PART('field', when
// TiDB does not know the field, and returns the index of the FROM.
func (q *queryRewrite) extract(i int) int {
	if i+3 >= len(q.toks) || !q.toks[i+1].isOp("(") || q.toks[i+2].kind != tIdent || !q.toks[i+3].is("FROM") {
		return i
	}
	unit := q.toks[i+2].text
	if tidbExtractUnits[strings.ToUpper(unit)] || strings.Contains(unit, "_") {
		return i
	}
	q.rw.replace(q.toks[i].off, q.toks[i+3].end, "DATE_PART('"+strings.ToLower(unit)+"',")
	return i + 3
}

// hasParamOrDollar reports whether tokens s..e hold a SQL function's
// parameter ($1) or a dollar-quoted string, which the function parser
// reads in TiDB's rendering of the body.
func (q *queryRewrite) hasParamOrDollar(s, e int) bool {
	for k := s; k <= e; k++ {
		if q.toks[k].kind == tDollar || q.toks[k].isOp("$") {
			return true
		}
	}
	return false
}
