package parser

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
)

// newRewriter starts a rewrite of the text spanned by toks with its
// comments blanked out: TiDB's comment rules (`-- ` needs a space, `/*!`
// runs code) are not Postgres's.
func (p *stmtParser) newRewriter(toks []token) *rewriter {
	rw := &rewriter{src: p.src.text, base: toks[0].off, limit: toks[len(toks)-1].end}
	for _, c := range p.comments {
		if c.off >= rw.base && c.end <= rw.limit {
			rw.blank(c.off, c.end)
		}
	}
	p.markParams(rw, toks)
	return rw
}

// frame is the rewrite state of one parenthesis level.
type frame struct {
	open     int  // index of the '(' token, -1 at the top
	inFrom   bool // between FROM and the end of the FROM clause
	isCast   bool // the parentheses of CAST(...)
	castDone bool // the AS of the CAST was handled
}

// queryRewrite is the streaming pass over the tokens of one SQL statement
// that TiDB will parse: it replaces window TVFs by placeholder tables and
// turns Postgres forms (intervals, :: casts, cast types) into TiDB's.
type queryRewrite struct {
	p       *stmtParser
	rw      *rewriter
	toks    []token
	end     int
	match   []int // index of the matching parenthesis, or -1
	bmatch  []int // index of the matching square bracket, or -1
	windows []*WindowTVFClause
	operand map[int]int // last token of a rewritten :: cast -> start of the cast
	skip    map[int]int // closing parenthesis of a FROM set-returning call -> last token of its tail
	errs    errList
	// quoteNames turns on quoting of TiDB-reserved names: for queries and
	// INSERT, not for statements we only hand TiDB to name them.
	quoteNames bool
}

func (q *queryRewrite) errAt(t token, detail string) {
	q.errs.add(q.p.src.syntaxErr(t.off, q.end, detail))
}

// matchParens pairs the parentheses of toks.
func matchParens(toks []token) []int {
	m := make([]int, len(toks))
	var stack []int
	for i, t := range toks {
		m[i] = -1
		switch {
		case t.isOp("("):
			stack = append(stack, i)
		case t.isOp(")") && len(stack) > 0:
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			m[o], m[i] = i, o
		}
	}
	return m
}

// maxDecimalWords is how many 9-digit words TiDB's decimal literal holds;
// its test driver panics on longer literals, so we refuse them first.
const maxDecimalWords = 9

// decimalFits reports whether a number TiDB would read as a decimal (one
// with a point and no exponent, or an integer beyond uint64) fits.
func decimalFits(num string) bool {
	intDigits, fracDigits, i := 0, 0, 0
	for i < len(num) && isDigit(num[i]) {
		intDigits, i = intDigits+1, i+1
	}
	point := i < len(num) && num[i] == '.'
	if point {
		i++
		for i < len(num) && isDigit(num[i]) {
			fracDigits, i = fracDigits+1, i+1
		}
	}
	if i < len(num) && (num[i] == 'e' || num[i] == 'E') {
		return true // a float
	}
	if !point && intDigits <= 19 {
		return true // an integer
	}
	return (intDigits+8)/9+(fracDigits+8)/9 <= maxDecimalWords
}

// isTablePos reports whether a table reference may follow prev in f.
func isTablePos(prev token, f frame) bool {
	return prev.is("FROM") || prev.is("JOIN") || prev.is("STRAIGHT_JOIN") ||
		((prev.isOp(",") || prev.isOp("(")) && f.inFrom)
}

// run walks the tokens once and records the edits. It returns the first
// error; it keeps going after an error so that an earlier TiDB error can
// still win.
func (q *queryRewrite) run() *sqlerr.Error {
	q.match = matchParens(q.toks)
	q.bmatch = matchBrackets(q.toks)
	q.operand = map[int]int{}
	q.skip = map[int]int{}
	frames := []frame{{open: -1}}
	for i := 0; i < len(q.toks); i++ {
		t := q.toks[i]
		f := &frames[len(frames)-1]
		var prev token
		if i > 0 {
			prev = q.toks[i-1]
		}
		switch {
		case t.isName() && isPlaceholderName(t.val()):
			q.errAt(t, fmt.Sprintf("the name %q is reserved for window placeholders", t.val()))
		case t.isName() && strings.EqualFold(t.val(), SetFuncMarker):
			q.errAt(t, fmt.Sprintf("the name %q is reserved for set-returning functions in FROM", t.val()))
		case t.isName() && strings.EqualFold(t.val(), StarArg):
			q.errAt(t, fmt.Sprintf("the name %q is reserved for the * of f(*)", t.val()))
		case t.isName() && strings.EqualFold(t.val(), AggFilterFunc):
			q.errAt(t, fmt.Sprintf("the name %q is reserved for an aggregate's FILTER clause", t.val()))
		case t.isOp("*"):
			q.starArg(i)
		case t.isOp("("):
			frames = append(frames, frame{open: i, inFrom: i > 0 && isTablePos(prev, *f), isCast: prev.is("CAST")})
		case t.isOp(")"):
			if len(frames) > 1 {
				frames = frames[:len(frames)-1]
			}
			if j, ok := q.skip[i]; ok {
				i = j
			}
		case t.isOp("::"):
			i = q.pgCast(i)
		case t.is("AT"):
			i = q.atTimeZone(i)
		case t.is("TIMESTAMPTZ") || t.is("TIMESTAMP"):
			i = q.timestampTZLiteral(i)
		case t.isOp("~") || t.isOp("!"):
			i = q.regexOp(i)
		case t.isEString() || t.kind == tDollar:
			q.eString(i) // TiDB knows neither E'...' nor $$...$$ strings
		case t.is("EXTRACT"):
			if j := q.extract(i); j != i { // consumed its '(': open its frame
				frames = append(frames, frame{open: i + 1})
				i = j
			}
		case isJSONOp(t) || t.isOp("||"):
			i = q.jsonOp(i)
		case t.isOp("["):
			q.subscript(i)
		case t.kind == tNumber && !decimalFits(t.text):
			q.errAt(t, "numeric literal too long")
			q.rw.replace(t.off, t.end, "0")
		case t.kind == tIdent:
			i = q.keyword(i, prev, f)
		}
	}
	return q.errs.first()
}

// keyword handles an unquoted word at i and returns the index of the last
// token it consumed.
func (q *queryRewrite) keyword(i int, prev token, f *frame) int {
	t := q.toks[i]
	switch strings.ToUpper(t.text) {
	case "FROM":
		f.inFrom = true
	case "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "SELECT":
		f.inFrom = false
	case "TUMBLE", "HOP", "SESSION":
		if i+1 < len(q.toks) && q.toks[i+1].isOp("(") {
			if i > 0 && isTablePos(prev, *f) {
				return q.windowTVF(i)
			}
			q.errAt(t, strings.ToUpper(t.text)+" is a window table function: use it as a table in FROM")
		}
	case "TABLE":
		if i > 0 && isTablePos(prev, *f) {
			return q.flinkWindowTVF(i)
		}
	case "INTERVAL":
		return q.exprInterval(i)
	case "ARRAY":
		if i+1 < len(q.toks) && q.toks[i+1].isOp("[") {
			return q.arrayCtor(i)
		}
	case "CARDINALITY": // a TiDB keyword
		if i+1 < len(q.toks) && q.toks[i+1].isOp("(") {
			q.rw.replace(t.off, t.end, "`cardinality`")
		}
	case "IS":
		return q.isDistinct(i)
	case "FILTER":
		return q.aggFilter(i)
	case "SIMILAR":
		return q.similarTo(i)
	case "JSONB_ARRAY_ELEMENTS", "JSONB_ARRAY_ELEMENTS_TEXT", "GENERATE_SERIES", "UNNEST":
		if i+1 < len(q.toks) && q.toks[i+1].isOp("(") && (isTablePos(prev, *f) || prev.is("LATERAL")) {
			q.setFunc(i, prev)
		}
	case "JSONB_EACH", "JSONB_EACH_TEXT", "JSONB_OBJECT_KEYS":
		// Set-returning functions of more than one column or not yet
		// registered: refused where a table goes (also after LATERAL),
		// rather than left to TiDB's syntax error.
		if i+1 < len(q.toks) && q.toks[i+1].isOp("(") && (isTablePos(prev, *f) || prev.is("LATERAL")) {
			q.errs.add(q.p.src.unsupported(t.off, "the set-returning function "+strings.ToLower(t.text)+" in FROM"))
		}
	case "JSONB_AGG", "JSONB_OBJECT_AGG":
		// TiDB's grammar knows these aggregates by MySQL's names.
		if i+1 < len(q.toks) && q.toks[i+1].isOp("(") {
			q.rw.replace(t.off, t.end, jsonAggNames[strings.ToUpper(t.text)])
		}
	case "AS":
		if f.isCast && !f.castDone {
			f.castDone = true
			return q.castAs(i, f.open)
		}
		if f.inFrom && i+2 < len(q.toks) && q.toks[i+1].is("OF") && q.toks[i+2].is("TIMESTAMP") {
			return q.asOf(i, i+3)
		}
	case "FULL":
		return q.fullJoin(i, prev, f)
	case "STRAIGHT_JOIN":
		q.errs.add(q.p.src.unsupported(t.off, "STRAIGHT_JOIN"))
	case "FOR":
		if i+3 < len(q.toks) && q.toks[i+1].is("SYSTEM_TIME") && q.toks[i+2].is("AS") && q.toks[i+3].is("OF") {
			return q.asOf(i, i+4)
		}
	default:
		q.quoteReserved(i, prev)
	}
	return i
}

// asOfEnd are the words that end the expression of a table's AS OF
// clause (with `,`, `)` and `;`).
var asOfEnd = map[string]bool{"ON": true, "USING": true, "WHERE": true, "JOIN": true, "LEFT": true,
	"RIGHT": true, "INNER": true, "FULL": true, "CROSS": true, "STRAIGHT_JOIN": true, "GROUP": true,
	"ORDER": true, "LIMIT": true, "HAVING": true, "WINDOW": true, "UNION": true, "EMIT": true}

// asOf rewrites `FOR SYSTEM_TIME AS OF e [[AS] alias]` (or TiDB's `AS OF
// TIMESTAMP e [[AS] alias]`), from token i with e starting at token
// from, into TiDB's order `[AS alias] AS OF TIMESTAMP e`: TiDB's grammar
// takes a table's alias before its AS OF clause. It returns the index of
// the last token it consumed.
func (q *queryRewrite) asOf(i, from int) int {
	stop, depth := from, 0
	for ; stop < len(q.toks); stop++ {
		t := q.toks[stop]
		if t.isOp("(") {
			depth++
		} else if t.isOp(")") {
			if depth == 0 {
				break
			}
			depth--
		} else if depth == 0 && (t.isOp(",") || t.isOp(";") || t.kind == tIdent && asOfEnd[strings.ToUpper(t.text)]) {
			break
		}
	}
	last := stop - 1
	var alias token
	aliasFrom := -1
	switch {
	case last-1 > from && q.toks[last].isName() && q.toks[last-1].is("AS"):
		alias, aliasFrom = q.toks[last], last-1
	case last > from && q.toks[last].isName() && !q.toks[last-1].isOp("."):
		if p := q.toks[last-1]; p.isName() || p.isOp(")") {
			alias, aliasFrom = q.toks[last], last
		}
	}
	if aliasFrom < 0 {
		q.rw.replace(q.toks[i].off, q.toks[from-1].end, "AS OF TIMESTAMP")
		return from - 1
	}
	q.rw.replace(q.toks[i].off, q.toks[from-1].end, "AS "+alias.text+" AS OF TIMESTAMP")
	q.rw.blank(q.toks[aliasFrom].off, alias.end)
	return last
}

// FullJoinMarker is what `FULL [OUTER] JOIN` becomes for TiDB, whose
// grammar has no FULL join: STRAIGHT_JOIN, which parses like an inner
// join, with ast.Join.StraightJoin set (a STRAIGHT_JOIN the user writes
// is refused). IsFullJoin reads it back; Restore writes FULL JOIN.
const FullJoinMarker = "STRAIGHT_JOIN"

// IsFullJoin reports whether j was written FULL [OUTER] JOIN.
func IsFullJoin(j *ast.Join) bool { return j.StraightJoin }

// fullJoin rewrites `FULL [OUTER] JOIN` in a FROM clause at i into
// FullJoinMarker and returns the index of its JOIN; any other FULL is
// left alone.
func (q *queryRewrite) fullJoin(i int, prev token, f *frame) int {
	j := i + 1
	if j < len(q.toks) && q.toks[j].is("OUTER") {
		j++
	}
	if !f.inFrom || j >= len(q.toks) || !q.toks[j].is("JOIN") {
		q.quoteReserved(i, prev)
		return i
	}
	q.rw.replace(q.toks[i].off, q.toks[j].end, FullJoinMarker)
	return j
}

// jsonAggNames are TiDB's names of the JSONB aggregates; restoreNode
// writes Postgres's back.
var jsonAggNames = map[string]string{"JSONB_AGG": "JSON_ARRAYAGG", "JSONB_OBJECT_AGG": "JSON_OBJECTAGG"}

// tidbCompoundUnits are TiDB's compound interval units; an interval with
// one of them is left as written (the binder refuses it).
var tidbCompoundUnits = map[string]bool{
	"SECOND_MICROSECOND": true, "MINUTE_MICROSECOND": true, "MINUTE_SECOND": true,
	"HOUR_MICROSECOND": true, "HOUR_SECOND": true, "HOUR_MINUTE": true, "DAY_MICROSECOND": true,
	"DAY_SECOND": true, "DAY_MINUTE": true, "DAY_HOUR": true, "YEAR_MONTH": true,
}

// IntervalFunc is the function an interval literal in an expression
// becomes for TiDB, which has no interval values: `INTERVAL '1' MONTH`
// is __interval('1', 'MONTH') and `INTERVAL '1 day'` __interval('1 day',
// ”). The binder turns the call back into the interval constant.
const IntervalFunc = "__interval"

// exprInterval rewrites the interval literal at i (`INTERVAL '10'
// SECOND`, `INTERVAL '1 year 2 mons'`) into an IntervalFunc call; the
// binder reads its text (22007 when it does not read).
func (q *queryRewrite) exprInterval(i int) int {
	if i+1 >= len(q.toks) {
		return i
	}
	lit := q.toks[i+1]
	if lit.kind != tString && lit.kind != tNumber {
		return i
	}
	var unitTok token
	if i+2 < len(q.toks) {
		unitTok = q.toks[i+2]
	}
	if unitTok.kind == tIdent && tidbCompoundUnits[strings.ToUpper(unitTok.text)] {
		return i + 2
	}
	last, unit := i+1, ""
	if u := sqlUnit(unitTok); u != "" {
		last, unit = i+2, u
	} else if lit.kind == tNumber {
		q.errAt(unitTok, "expected an interval unit such as SECOND")
		return i + 1
	}
	if last+1 < len(q.toks) && (q.toks[last+1].is("PRECEDING") || q.toks[last+1].is("FOLLOWING")) {
		return q.frameInterval(i, last, unit)
	}
	q.rw.replace(q.toks[i].off, q.toks[last].end,
		fmt.Sprintf("%s(%s, %s)", IntervalFunc, quoteString(lit.val()), quoteString(unit)))
	return last
}

// frameInterval keeps the interval at i..last that bounds a window
// frame (`RANGE BETWEEN INTERVAL '10' SECOND PRECEDING …`) in TiDB's
// frame syntax, which takes `INTERVAL value unit` with a singular unit:
// Postgres' unit-less text form ('10 seconds') becomes microseconds.
func (q *queryRewrite) frameInterval(i, last int, unit string) int {
	if unit != "" {
		q.rw.replace(q.toks[i].off, q.toks[last].end, fmt.Sprintf("INTERVAL %s %s", quoteString(q.toks[i+1].val()), unit))
		return last
	}
	us, err := parseIntervalText(q.toks[i+1].val())
	if err != nil {
		q.errAt(q.toks[i+1], err.Error())
		return last
	}
	q.rw.replace(q.toks[i].off, q.toks[last].end, fmt.Sprintf("INTERVAL '%d' MICROSECOND", us))
	return last
}

// parseQuery parses the SELECT (or UNION, or WITH ... SELECT) spanned by
// toks; errs are errors found before (a view's clauses) that compete for
// being the first.
func (p *stmtParser) parseQuery(toks []token, end int, errs errList) (*QueryStmt, *sqlerr.Error) {
	return p.parseQueryFrom(p.newRewriter(toks), toks, end, errs)
}

// parseQueryPrefixed parses prefix followed by toks as a query (prefix
// "SELECT " turns an expression into one); errors point into toks' text.
func (p *stmtParser) parseQueryPrefixed(toks []token, end int, prefix string) (*QueryStmt, *sqlerr.Error) {
	rw := p.newRewriter(toks)
	if prefix != "" {
		rw.insert(toks[0].off, prefix)
	}
	return p.parseQueryFrom(rw, toks, end, nil)
}

// parseQueryFrom is parseQuery over a rewriter already started.
func (p *stmtParser) parseQueryFrom(rw *rewriter, toks []token, end int, errs errList) (*QueryStmt, *sqlerr.Error) {
	q := &queryRewrite{p: p, rw: rw, toks: toks, end: end, quoteNames: true}
	errs.add(q.run())
	node, err := p.tidbParse(rw, end)
	errs.add(err)
	var rs ast.ResultSetNode
	switch n := node.(type) {
	case nil:
	case *ast.SelectStmt:
		rs = n
	case *ast.SetOprStmt:
		rs = n
	default:
		errs.add(p.src.syntaxErr(toks[0].off, end, "expected a query"))
	}
	if rs != nil {
		errs.add(p.fix(rs, q.windows, end))
	}
	if e := errs.first(); e != nil {
		return nil, e
	}
	return &QueryStmt{StmtBase: p.base(toks), Select: rs, Windows: q.windows}, nil
}

// query parses a SELECT statement.
func (p *stmtParser) query(toks []token) (Stmt, *sqlerr.Error) {
	q, err := p.parseQuery(toks, toks[len(toks)-1].end, nil)
	if err != nil {
		return nil, err
	}
	return q, nil
}
