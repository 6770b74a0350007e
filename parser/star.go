package parser

import (
	"strings"

	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// StarArg is the column name that stands for the * of a call f(*) other
// than count(*). TiDB's grammar takes * in COUNT only, so `cnt(*)` would be
// a syntax error near "*)"; the pass writes `cnt(__star)` instead and the
// planner, which knows the functions, says `function cnt does not exist`.
// Restore writes the * back. The name is reserved.
const StarArg = "__star"

// IsStarArg reports whether e is the stand-in for the * of f(*).
func IsStarArg(e ast.ExprNode) bool {
	c, ok := e.(*ast.ColumnNameExpr)
	return ok && c.Name.Table.L == "" && c.Name.Name.L == StarArg
}

// tidbReservedWords are the words TiDB's grammar reserves (IN, EXISTS,
// VALUES, ...): `IN (*)` is no call, so its * stays a syntax error.
var tidbReservedWords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range tidb.Keywords {
		if k.Reserved {
			m[k.Word] = true
		}
	}
	return m
}()

// starArg replaces the * at i by StarArg when it is the only argument of
// a call to a function other than count, named by an unqualified word.
func (q *queryRewrite) starArg(i int) {
	if i < 2 || i+1 >= len(q.toks) || !q.toks[i-1].isOp("(") || !q.toks[i+1].isOp(")") {
		return
	}
	fn := q.toks[i-2]
	if fn.kind != tIdent || fn.is("COUNT") || tidbReservedWords[strings.ToUpper(fn.text)] ||
		(i >= 3 && q.toks[i-3].isOp(".")) {
		return
	}
	q.rw.replace(q.toks[i].off, q.toks[i].end, StarArg)
}
