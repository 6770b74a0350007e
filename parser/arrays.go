package parser

import (
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Postgres's array syntax, which TiDB's grammar lacks, becomes calls the
// binder knows:
//
//	ARRAY[a, b]          -> `array`(a, b)
//	x[i]                 -> `[]`(x, i)
//	x::T[], CAST(x AS T[]) -> __array_cast(x, k)   (k: the element kind's number)
//
// Slices (x[1:2]) and arrays of arrays are refused.

// The names of the calls the array syntax becomes.
const (
	ArrayFunc     = "array"
	SubscriptFunc = "[]"
	ArrayCastFunc = "__array_cast"
)

// arrayTargetPrefix starts castType's answer for an array type: the
// element kind's number follows.
const arrayTargetPrefix = "[]"

// elemKinds maps the first word of a scalar type name to its kind: the
// element types an array may have.
var elemKinds = map[string]types.Kind{
	"BIGINT": types.Int, "INT": types.Int, "INTEGER": types.Int, "SMALLINT": types.Int, "TINYINT": types.Int,
	"INT2": types.Int, "INT4": types.Int, "INT8": types.Int,
	"DOUBLE": types.Float, "FLOAT": types.Float, "FLOAT4": types.Float, "FLOAT8": types.Float, "REAL": types.Float,
	"DECIMAL": types.Decimal, "NUMERIC": types.Decimal,
	"VARCHAR": types.String, "TEXT": types.String, "CHAR": types.String, "STRING": types.String, "CHARACTER": types.String,
	"TIMESTAMP": types.Timestamp, "DATETIME": types.Timestamp, "TIMESTAMPTZ": types.TimestampTZ,
	"TIME": types.Time, "DATE": types.Date, "BOOLEAN": types.Bool, "BOOL": types.Bool, "INTERVAL": types.Interval,
	"JSONB": types.JSONB, "BYTEA": types.Bytea,
}

// matchBrackets pairs square brackets as matchParens pairs parentheses.
func matchBrackets(toks []token) []int {
	m := make([]int, len(toks))
	var stack []int
	for i, t := range toks {
		m[i] = -1
		switch {
		case t.isOp("["):
			stack = append(stack, i)
		case t.isOp("]") && len(stack) > 0:
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			m[o], m[i] = i, o
		}
	}
	return m
}

// arrayCtor rewrites ARRAY[...] at i (the ARRAY) and returns the index of
// its '[' (the elements are scanned next).
func (q *queryRewrite) arrayCtor(i int) int {
	open := i + 1
	closeIdx := q.bmatch[open]
	if closeIdx < 0 {
		q.errAt(q.toks[open], "unbalanced [")
		return open
	}
	q.rw.replace(q.toks[i].off, q.toks[open].end, "`"+ArrayFunc+"`(")
	q.rw.replace(q.toks[closeIdx].off, q.toks[closeIdx].end, ")")
	q.operand[closeIdx] = i
	return open
}

// subscript rewrites x[i] whose '[' is at i.
func (q *queryRewrite) subscript(i int) {
	t := q.toks[i]
	closeIdx := q.bmatch[i]
	start, ok := q.castOperand(i - 1)
	if !ok || closeIdx < 0 || closeIdx == i+1 {
		q.errAt(t, "expected an array and a subscript")
		return
	}
	for k := i + 1; k < closeIdx; k++ {
		if q.toks[k].isOp(":") {
			q.errs.add(q.p.src.unsupported(t.off, "array slices"))
			return
		}
	}
	q.insertFirst(q.toks[start].off, "`"+SubscriptFunc+"`(")
	q.rw.replace(t.off, t.end, ", ")
	q.rw.replace(q.toks[closeIdx].off, q.toks[closeIdx].end, ")")
	q.operand[closeIdx] = start
}

// arrayType reports whether the tokens after last (the end of a type
// name that starts at k) are [], and the castType target for that array.
func (q *queryRewrite) arrayType(k, last, limit int) (target string, end int, ok bool) {
	if last+2 >= limit+1 || last+2 >= len(q.toks) || !q.toks[last+1].isOp("[") || !q.toks[last+2].isOp("]") {
		return "", last, false
	}
	elem, known := elemKinds[strings.ToUpper(q.toks[k].text)]
	if known && last > k && q.toks[last].is("ZONE") && q.toks[last-2].is("WITH") {
		// TIMESTAMP WITH TIME ZONE[]; TIME WITH TIME ZONE has no arrays
		known = elem == types.Timestamp
		elem = types.TimestampTZ
	}
	if !known {
		return "", last, false
	}
	return arrayTargetPrefix + strconv.Itoa(int(elem)), last + 2, true
}

// arrayCastArgs is the text after the operand of an array cast: the
// element kind's number.
func arrayCastArgs(target string) string {
	return ", " + strings.TrimPrefix(target, arrayTargetPrefix) + ")"
}
