package parser

import "strings"

// tidbReserved are words TiDB reserves that Postgres users take for column
// and table names (Kafka's key, a rank, a range). Used as names, without a
// '(' after them, the pass quotes them so TiDB reads identifiers. The
// quotes change the length; the offset map keeps positions right.
var tidbReserved = map[string]bool{
	"KEY": true, "KEYS": true, "INDEX": true, "RANK": true, "RANGE": true, "READ": true,
	"WRITE": true, "RELEASE": true, "USAGE": true, "LOAD": true, "LINES": true,
	"OPTION": true, "SQL": true, "GENERATED": true, "STORED": true, "VIRTUAL": true,
	"CURSOR": true, "ITERATE": true, "LEAVE": true, "LOCK": true, "STARTING": true,
	"TERMINATED": true, "LINEAR": true, "DELAYED": true, "CHANGE": true, "TRIGGER": true,
	"PROCEDURE": true, "INT1": true, "REPEAT": true, "EXIT": true, "WHILE": true,
	"MATCH": true, "LAG": true, "LEAD": true, "DATABASE": true, "SCHEMA": true,
}

// quoteReserved quotes the reserved word at i when it is used as a name.
func (q *queryRewrite) quoteReserved(i int, prev token) {
	t := q.toks[i]
	w := strings.ToUpper(t.text)
	var next token
	if i+1 < len(q.toks) {
		next = q.toks[i+1]
	}
	switch {
	case !q.quoteNames || !tidbReserved[w], next.isOp("("), prev.is("DUPLICATE"):
		return
	case (w == "KEY" || w == "INDEX" || w == "KEYS") &&
		(prev.is("USE") || prev.is("FORCE") || prev.is("IGNORE") || next.is("FOR")):
		return // an index hint
	case w == "RANGE" && (next.is("BETWEEN") || next.is("UNBOUNDED") || next.is("CURRENT") ||
		next.is("INTERVAL") || next.kind == tNumber):
		return // a window frame
	case w == "LOCK" && next.is("IN"):
		return // LOCK IN SHARE MODE
	}
	q.rw.replace(t.off, t.end, quoteName(t.text))
}
