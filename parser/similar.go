package parser

// SimilarFunc is the registry entry `x [NOT] SIMILAR TO p [ESCAPE e]`
// becomes: `similar_to`(x, p[, e]), negated for NOT.
const SimilarFunc = "similar_to"

// similarTo rewrites x [NOT] SIMILAR TO p [ESCAPE e] whose SIMILAR is at
// i and returns the index of its last token.
func (q *queryRewrite) similarTo(i int) int {
	if i+1 >= len(q.toks) || !q.toks[i+1].is("TO") {
		return i
	}
	t := q.toks[i]
	opStart, not := i, i > 0 && q.toks[i-1].is("NOT")
	if not {
		opStart = i - 1
	}
	s, e := q.operandStart(opStart-1, false), q.operandEnd(i+2, true)
	if s < 0 || e < 0 {
		q.errAt(t, "SIMILAR TO needs an operand on each side")
		return i + 1
	}
	last := e
	if e+2 < len(q.toks) && q.toks[e+1].is("ESCAPE") {
		esc := q.operandEnd(e+2, true)
		if esc < 0 {
			q.errAt(q.toks[e+1], "ESCAPE needs a string")
			return e + 1
		}
		q.rw.replace(q.toks[e+1].off, q.toks[e+1].end, ",")
		last = esc
	}
	q.rw.replace(q.toks[opStart].off, q.toks[i+1].end, ",")
	before, after := "`"+SimilarFunc+"`(", ")"
	if not {
		before, after = "(NOT `"+SimilarFunc+"`(", "))"
	}
	q.wrapOperands(s, last, before, after)
	return i + 1
}
