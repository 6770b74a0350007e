package parser

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	tidb "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	tidbtypes "github.com/pingcap/tidb/pkg/parser/types"

	// test_driver provides TiDB's literal value expressions.
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/streamsql/streamsql/sqlerr"
)

// sqlMode makes TiDB read the text the way our tokenizer does: "x" is an
// identifier, || concatenates, and a backslash in a string is itself.
const sqlMode = mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes

var tidbParsers = sync.Pool{New: func() any {
	p := tidb.New()
	p.SetSQLMode(sqlMode)
	return p
}}

// placeholderPrefix starts the table names that stand in for window TVFs.
const placeholderPrefix = "__w"

// isPlaceholderName reports whether name has the form of a window
// placeholder (__w0, __w1, ...); users may not use such names.
func isPlaceholderName(name string) bool {
	if len(name) <= len(placeholderPrefix) || !strings.EqualFold(name[:len(placeholderPrefix)], placeholderPrefix) {
		return false
	}
	_, err := strconv.ParseUint(name[len(placeholderPrefix):], 10, 32)
	return err == nil
}

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
	windows []*WindowTVFClause
	operand map[int]int // last token of a rewritten :: cast -> start of the cast
	errs    errList
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
	q.operand = map[int]int{}
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
		case t.isOp("("):
			frames = append(frames, frame{open: i, inFrom: i > 0 && isTablePos(prev, *f), isCast: prev.is("CAST")})
		case t.isOp(")"):
			if len(frames) > 1 {
				frames = frames[:len(frames)-1]
			}
		case t.isOp("::"):
			i = q.pgCast(i)
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
	case "INTERVAL":
		return q.exprInterval(i)
	case "AS":
		if f.isCast && !f.castDone {
			f.castDone = true
			return q.castAs(i, f.open)
		}
	case "FOR":
		if i+3 < len(q.toks) && q.toks[i+1].is("SYSTEM_TIME") && q.toks[i+2].is("AS") && q.toks[i+3].is("OF") {
			q.rw.replace(t.off, q.toks[i+3].end, "AS OF TIMESTAMP")
			return i + 3
		}
	}
	return i
}

// windowTVF replaces TUMBLE(...), HOP(...) or SESSION(...) at i by a
// placeholder table and records the window.
func (q *queryRewrite) windowTVF(i int) int {
	t := q.toks[i]
	closeIdx := q.match[i+1]
	if closeIdx < 0 {
		return i // unbalanced: TiDB reports it
	}
	w := &WindowTVFClause{
		Placeholder: fmt.Sprintf("%s%d", placeholderPrefix, q.p.windows),
		Pos:         q.p.src.pos(t.off),
	}
	q.p.windows++
	q.rw.replace(t.off, q.toks[closeIdx].end, w.Placeholder)
	c := &cursor{p: q.p, toks: q.toks[i+2 : closeIdx], end: q.toks[closeIdx].off, limit: q.end}
	var usage string
	switch strings.ToUpper(t.text) {
	case "TUMBLE":
		w.Kind, usage = Tumble, "TUMBLE(source, time_col, size)"
	case "HOP":
		w.Kind, usage = Hop, "HOP(source, time_col, slide, size)"
	default:
		w.Kind, usage = Session, "SESSION(source, time_col, gap)"
	}
	if err := c.windowArgs(w, usage); err != nil {
		q.errs.add(err)
	} else {
		q.windows = append(q.windows, w)
	}
	return closeIdx
}

// windowArgs parses the arguments of a window TVF into w.
func (c *cursor) windowArgs(w *WindowTVFClause, usage string) *sqlerr.Error {
	var err *sqlerr.Error
	hint := "expected " + usage
	if w.Source, _, err = c.name("the windowed relation: " + usage); err != nil {
		return err
	}
	if c.peek(0).isOp(".") {
		return c.errAt(c.peek(0), "the windowed relation must be a plain name")
	}
	if !c.acceptOp(",") {
		return c.errAt(c.peek(0), hint)
	}
	if w.TimeColumn, _, err = c.name("the time column: " + usage); err != nil {
		return err
	}
	if !c.acceptOp(",") {
		return c.errAt(c.peek(0), hint)
	}
	first, err := c.interval(false)
	if err != nil {
		return err
	}
	switch w.Kind {
	case Tumble:
		w.Size = first
	case Session:
		w.Gap = first
	case Hop:
		w.Slide = first
		if !c.acceptOp(",") {
			return c.errAt(c.peek(0), hint)
		}
		if w.Size, err = c.interval(false); err != nil {
			return err
		}
	}
	if !c.atEOF() {
		return c.errAt(c.peek(0), hint)
	}
	return nil
}

// tidbUnits are the interval units TiDB knows besides the ones in
// unitMicros; an interval with one of them is left as written.
var tidbUnits = map[string]bool{
	"MONTH": true, "QUARTER": true, "YEAR": true, "SECOND_MICROSECOND": true,
	"MINUTE_MICROSECOND": true, "MINUTE_SECOND": true, "HOUR_MICROSECOND": true,
	"HOUR_SECOND": true, "HOUR_MINUTE": true, "DAY_MICROSECOND": true,
	"DAY_SECOND": true, "DAY_MINUTE": true, "DAY_HOUR": true, "YEAR_MONTH": true,
}

// exprInterval rewrites an interval inside an expression into TiDB's form
// `INTERVAL 'n' UNIT`: the Postgres text '10 seconds' becomes '10' SECOND
// (in place when it fits), plural units become singular and milliseconds
// become microseconds.
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
	if unitTok.kind == tIdent && tidbUnits[strings.ToUpper(unitTok.text)] {
		return i + 2
	}
	u := fullUnit(unitTok)
	switch {
	case u == "" && lit.kind == tNumber:
		return i + 1 // TiDB reports the missing unit
	case u == "":
		us, err := parseIntervalText(lit.val())
		if err != nil {
			q.errAt(lit, err.Error())
			return i + 1
		}
		q.rw.replace(lit.off, lit.end, tidbIntervalLiteral(us))
		return i + 1
	case u == "MILLISECOND":
		n, err := strconv.ParseFloat(strings.TrimSpace(lit.val()), 64)
		if err != nil {
			q.errAt(lit, "expected a number of milliseconds")
			return i + 2
		}
		us, err := scaleInterval(n, u)
		if err != nil {
			q.errAt(lit, err.Error())
			return i + 2
		}
		q.rw.replace(lit.off, unitTok.end, tidbIntervalLiteral(us))
	case !strings.EqualFold(unitTok.text, u):
		q.rw.replace(unitTok.off, unitTok.end, u)
	}
	return i + 2
}

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
	q.rw.insert(q.toks[start].off, "CAST(")
	q.rw.replace(t.off, q.toks[last].end, " AS "+target+")")
	q.operand[last] = start
	return last
}

// intervalCast rewrites the Postgres '10 seconds'::interval (the '::' at
// i) into INTERVAL '10' SECOND.
func (q *queryRewrite) intervalCast(i int) int {
	lit := q.toks[i-1]
	us, err := parseIntervalText(lit.val())
	if err != nil {
		q.errAt(lit, err.Error())
		return i + 1
	}
	q.rw.replace(lit.off, q.toks[i+1].end, "INTERVAL "+tidbIntervalLiteral(us))
	return i + 1
}

// castOperand finds the first token of the operand that ends at token j:
// a name (maybe qualified), a literal, a parenthesised expression, a
// function call or an earlier :: cast.
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
		if k > 0 {
			if fn := q.toks[k-1]; fn.isName() && fn.end == q.toks[k].off && !nonFunctionWords[strings.ToUpper(fn.text)] {
				s = k - 1
			}
		}
	case t.kind == tString:
		if j > 0 {
			if p := q.toks[j-1]; p.kind == tIdent && (p.end == t.off || p.is("DATE") || p.is("TIME") || p.is("TIMESTAMP")) {
				s = j - 1
			}
		}
		return s, true
	case t.isName() || t.kind == tNumber:
	default:
		return 0, false
	}
	for s >= 2 && q.toks[s-1].isOp(".") && q.toks[s-2].isName() {
		s -= 2
	}
	return s, true
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
	if target != "" {
		q.rw.replace(q.toks[i+1].off, q.toks[last].end, target)
	}
	return last
}

// The cast targets. The planner maps TiDB's FuncCastExpr.Tp back to a kind:
//
//	BIGINT INT INTEGER SMALLINT INT2 INT4 INT8   -> SIGNED      (TypeLonglong)  -> Int
//	TEXT VARCHAR[(n)] CHAR[(n)] STRING            -> CHAR        (TypeVarString) -> String
//	DOUBLE [PRECISION] FLOAT FLOAT4 FLOAT8 REAL
//	NUMERIC DECIMAL [(p[,s])]                     -> DOUBLE      (TypeDouble)    -> Float
//	TIMESTAMP[(p)] TIMESTAMPTZ DATETIME[(p)]      -> DATETIME(6) (TypeDatetime)  -> Timestamp
//	BOOLEAN BOOL                                  -> TypeTiny, flen 1            -> Bool
//
// TiDB has no BOOLEAN cast: the pass writes YEAR (same length as BOOL,
// padded for BOOLEAN) and fixBoolCasts turns every YEAR cast into TypeTiny,
// the type TiDB gives a BOOLEAN column; a user's own CAST(x AS YEAR) is
// refused. TiDB-native targets (SIGNED, UNSIGNED, CHAR, DATE, TIME, JSON,
// BINARY) pass through unchanged.
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
	case "FLOAT", "FLOAT4", "FLOAT8", "REAL", "NUMERIC", "DECIMAL":
		optArgs()
		target = "DOUBLE"
	case "TIMESTAMP", "TIMESTAMPTZ", "DATETIME":
		optArgs()
		if last+3 < limit && (q.toks[last+1].is("WITH") || q.toks[last+1].is("WITHOUT")) &&
			q.toks[last+2].is("TIME") && q.toks[last+3].is("ZONE") {
			last += 3
		}
		target = "DATETIME(6)"
	case "BOOLEAN", "BOOL":
		target = "YEAR"
	case "YEAR":
		return "", k, q.p.src.unsupported(t.off, "cast to YEAR")
	case "DATE", "TIME", "JSON", "BINARY":
		optArgs()
		return "", last, nil
	default:
		c := &cursor{p: q.p, end: q.end}
		return "", k, c.typeErr(t)
	}
	return target, last, nil
}

// tidbParse parses the rewritten text with TiDB and maps a syntax error
// back to the user's text. end is the end of the statement.
func (p *stmtParser) tidbParse(rw *rewriter, end int) (ast.StmtNode, *sqlerr.Error) {
	text, m := rw.build()
	tp := tidbParsers.Get().(*tidb.Parser)
	defer tidbParsers.Put(tp)
	stmts, _, err := tp.Parse(text, "", "")
	if err != nil {
		return nil, p.tidbErr(err.Error(), text, m, rw.base, end)
	}
	if len(stmts) != 1 {
		return nil, p.src.syntaxErr(rw.base, end, "expected one statement")
	}
	return stmts[0], nil
}

// tidbErr turns TiDB's `line L column C near "rest of text" detail`
// message into our error. The near text is the rewritten text from the
// offending token to its end, which gives the offset.
func (p *stmtParser) tidbErr(msg, text string, m offsetMap, base, end int) *sqlerr.Error {
	const nearTag = ` near "`
	i := strings.Index(msg, nearTag)
	if !strings.HasPrefix(msg, "line ") || i < 0 {
		return p.src.syntaxErr(base, end, msg)
	}
	rest := msg[i+len(nearTag):]
	off, detail := -1, ""
	const totalTag = "(total length "
	if j := strings.LastIndex(rest, totalTag); j >= 0 && len(text) > 2048 {
		n, err := strconv.Atoi(strings.TrimRight(strings.TrimSpace(rest[j+len(totalTag):]), ")"))
		if err == nil && n <= len(text) {
			off = len(text) - n
		}
	} else if near, ok := strings.CutSuffix(rest, `" `); ok && strings.HasSuffix(text, near) {
		off = len(text) - len(near)
	} else {
		for k := 0; k <= len(text) && k < 1<<16; k++ {
			if strings.HasPrefix(rest, text[k:]+`"`) {
				off, detail = k, strings.TrimSpace(rest[len(text)-k+1:])
				break
			}
		}
	}
	if off < 0 {
		return p.src.syntaxErr(base, end, msg)
	}
	return p.src.syntaxErr(m.orig(off), end, detail)
}

// fixVisitor finishes the TiDB tree: it turns the YEAR casts that stand
// for BOOLEAN into TypeTiny casts and finds the aliases of the window
// placeholders.
type fixVisitor struct {
	windows map[string]*WindowTVFClause
	seen    map[string]bool
}

// Enter implements ast.Visitor.
func (v *fixVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.FuncCastExpr:
		if x.FunctionType == ast.CastFunction && x.Tp != nil && x.Tp.GetType() == mysql.TypeYear {
			tp := tidbtypes.NewFieldType(mysql.TypeTiny)
			tp.SetFlen(1)
			x.Tp = tp
		}
	case *ast.TableSource:
		if tn, ok := x.Source.(*ast.TableName); ok && tn.Schema.L == "" {
			if w := v.windows[tn.Name.L]; w != nil {
				w.Alias = x.AsName.O
				v.seen[tn.Name.L] = true
			}
		}
	}
	return n, false
}

// Leave implements ast.Visitor.
func (v *fixVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// fix runs fixVisitor over node and checks every window landed in a FROM
// clause.
func (p *stmtParser) fix(node ast.Node, windows []*WindowTVFClause, end int) *sqlerr.Error {
	v := &fixVisitor{windows: map[string]*WindowTVFClause{}, seen: map[string]bool{}}
	for _, w := range windows {
		v.windows[w.Placeholder] = w
	}
	node.Accept(v)
	for _, w := range windows {
		if !v.seen[w.Placeholder] {
			return p.src.syntaxErr(w.Pos.Offset, end, "a window function may only be a table in FROM")
		}
	}
	return nil
}

// parseQuery parses the SELECT (or UNION, or WITH ... SELECT) spanned by
// toks; errs are errors found before (a view's clauses) that compete for
// being the first.
func (p *stmtParser) parseQuery(toks []token, end int, errs errList) (*QueryStmt, *sqlerr.Error) {
	rw := p.newRewriter(toks)
	q := &queryRewrite{p: p, rw: rw, toks: toks, end: end}
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
