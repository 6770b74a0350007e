package parser

import (
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/sqlerr"
)

// Parse parses a script of one or more ';'-separated statements. Errors are
// *sqlerr.Error with code sqlerr.SyntaxError, sqlerr.FeatureNotSupport or
// (nesting beyond sqlerr.MaxDepth) sqlerr.StackDepth and the position of
// the first problem in the script.
func Parse(sql string) ([]Stmt, error) {
	src := newSource(sql)
	if off := invalidUTF8(sql); off >= 0 {
		return nil, src.syntaxErr(off, len(sql), "invalid UTF-8")
	}
	lx := lex(sql)
	var out []Stmt
	start := 0
	for i := 0; i <= len(lx.toks); i++ {
		if i < len(lx.toks) && !lx.toks[i].isOp(";") {
			continue
		}
		if i == len(lx.toks) && lx.errOff >= 0 {
			break // the last statement runs into the lexical error
		}
		if i > start {
			p := &stmtParser{src: src, comments: lx.comments}
			st, err := p.statement(lx.toks[start:i])
			if err != nil {
				return nil, err // it precedes any lexical error
			}
			out = append(out, st)
		}
		start = i + 1
	}
	if lx.errOff >= 0 {
		return nil, lx.err(src, len(sql))
	}
	return out, nil
}

// invalidUTF8 returns the offset of the first byte of s that is not UTF-8,
// or -1.
func invalidUTF8(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	off := 0
	for off < len(s) {
		r, n := utf8.DecodeRuneInString(s[off:])
		if r == utf8.RuneError && n <= 1 {
			return off
		}
		off += n
	}
	return -1
}

// stmtParser parses one top-level statement (and the statement inside an
// EXPLAIN). It numbers the window placeholders of the statement.
type stmtParser struct {
	src      *source
	comments []span
	windows  int
	explains int // EXPLAINs around the current statement
	// inFunction is set while a CREATE FUNCTION's body is parsed: its $n
	// are the function's parameters, not the statement's (markParams).
	inFunction bool
}

// cursor walks the tokens of one statement (or of a part of one). end is
// the offset just after them: an error at the end of input points there.
// limit, when larger, is the end of the whole statement, where the near
// text of an error stops.
type cursor struct {
	p     *stmtParser
	toks  []token
	i     int
	end   int
	limit int
}

func (p *stmtParser) cursor(toks []token) *cursor {
	return &cursor{p: p, toks: toks, end: toks[len(toks)-1].end}
}

// peek returns the token n places ahead (0: the current one), or an EOF
// token at the end of the statement.
func (c *cursor) peek(n int) token {
	if c.i+n < len(c.toks) {
		return c.toks[c.i+n]
	}
	return token{kind: tEOF, off: c.end, end: c.end}
}

func (c *cursor) next() token {
	t := c.peek(0)
	if c.i < len(c.toks) {
		c.i++
	}
	return t
}

func (c *cursor) atEOF() bool { return c.i >= len(c.toks) }

// accept consumes the keywords kws if they come next, all of them.
func (c *cursor) accept(kws ...string) bool {
	for n, kw := range kws {
		if !c.peek(n).is(kw) {
			return false
		}
	}
	c.i += len(kws)
	return true
}

// acceptOp consumes op if it comes next.
func (c *cursor) acceptOp(op string) bool {
	if c.peek(0).isOp(op) {
		c.i++
		return true
	}
	return false
}

// errAt returns a syntax error at t.
func (c *cursor) errAt(t token, detail string) *sqlerr.Error {
	return c.p.src.syntaxErr(t.off, max(c.end, c.limit), detail)
}

// expect consumes keyword kw or fails.
func (c *cursor) expect(kw string) *sqlerr.Error {
	if c.accept(kw) {
		return nil
	}
	return c.errAt(c.peek(0), "expected "+kw)
}

// expectOp consumes op or fails.
func (c *cursor) expectOp(op string) *sqlerr.Error {
	if c.acceptOp(op) {
		return nil
	}
	return c.errAt(c.peek(0), "expected \""+op+"\"")
}

// name consumes an identifier, quoted or not.
func (c *cursor) name(what string) (string, token, *sqlerr.Error) {
	t := c.peek(0)
	if !t.isName() {
		return "", t, c.errAt(t, "expected "+what)
	}
	c.i++
	return t.val(), t, nil
}

// done fails unless the statement has ended.
func (c *cursor) done() *sqlerr.Error {
	if c.atEOF() {
		return nil
	}
	return c.errAt(c.peek(0), "unexpected text after the statement")
}

// base returns the StmtBase of the statement made of toks.
func (p *stmtParser) base(toks []token) StmtBase {
	first, last := toks[0], toks[len(toks)-1]
	return StmtBase{SQL: p.src.text[first.off:last.end], Start: p.src.pos(first.off)}
}

// statement dispatches on the leading keywords.
func (p *stmtParser) statement(toks []token) (Stmt, *sqlerr.Error) {
	c := p.cursor(toks)
	t := c.peek(0)
	switch {
	case t.is("CREATE"):
		switch {
		case c.peek(1).is("SOURCE") || c.peek(1).is("TABLE"):
			return p.createSource(c)
		case c.peek(1).is("MATERIALIZED") && c.peek(2).is("VIEW"):
			return p.createView(c)
		case c.peek(1).is("VIEW"):
			return p.createPlainView(c)
		case c.peek(1).is("SINK"):
			return p.createSink(c)
		case c.peek(1).is("FUNCTION") || c.peek(1).is("OR") && c.peek(2).is("REPLACE") && c.peek(3).is("FUNCTION"):
			return p.createFunction(c)
		}
	case t.is("DROP"):
		if c.peek(1).is("FUNCTION") {
			return p.dropFunction(c)
		}
		if k := c.peek(1); k.is("SOURCE") || k.is("TABLE") || k.is("SINK") || k.is("MATERIALIZED") || k.is("VIEW") {
			return p.drop(c)
		}
	case t.is("SHOW"):
		return p.show(c)
	case t.is("DESCRIBE") || t.is("DESC"):
		return p.describe(c)
	case t.is("EXPLAIN"):
		return p.explain(c)
	case t.is("FLUSH") && len(toks) == 1:
		return &FlushStmt{StmtBase: p.base(toks)}, nil
	case t.is("SET"):
		return p.set(c)
	case t.is("SELECT") || t.is("WITH") || t.is("TABLE") || t.is("VALUES") || t.isOp("("):
		return p.query(toks)
	case t.is("INSERT"):
		return p.insert(toks)
	case t.is("DELETE") || t.is("UPDATE"):
		return p.dml(toks)
	}
	return nil, p.other(toks)
}

// explain parses EXPLAIN stmt.
func (p *stmtParser) explain(c *cursor) (Stmt, *sqlerr.Error) {
	c.next()
	if c.atEOF() {
		return nil, c.errAt(c.peek(0), "expected a statement to explain")
	}
	if p.explains++; p.explains > sqlerr.MaxDepth {
		return nil, sqlerr.TooDeep(p.src.pos(c.peek(0).off), "EXPLAINs")
	}
	s := &ExplainStmt{StmtBase: p.base(c.toks)}
	if c.peek(0).is("ANALYZE") {
		s.Analyze = true
		c.next()
		if c.atEOF() {
			return nil, c.errAt(c.peek(0), "expected a view name or a query to explain")
		}
		if c.i == len(c.toks)-1 && c.peek(0).isName() {
			name, _, err := c.name("a view name")
			if err != nil {
				return nil, err
			}
			s.View = name
			return s, c.done()
		}
	}
	inner, err := p.statement(c.toks[c.i:])
	if err != nil {
		return nil, err
	}
	s.Stmt = inner
	return s, nil
}

// other handles a statement none of our forms start: TiDB decides whether
// it is a syntax error; if it parses, it is a statement we do not support.
func (p *stmtParser) other(toks []token) *sqlerr.Error {
	rw := p.newRewriter(toks)
	q := &queryRewrite{p: p, rw: rw, toks: toks, end: toks[len(toks)-1].end}
	var errs errList
	errs.add(q.run())
	if _, err := p.tidbParse(rw, toks[len(toks)-1].end); err != nil {
		errs.add(err)
	}
	if e := errs.first(); e != nil {
		return e
	}
	return p.src.unsupported(toks[0].off, stmtKind(toks))
}

// stmtKind names a statement by its leading keywords, e.g. "UPDATE" or
// "CREATE VIEW".
func stmtKind(toks []token) string {
	k := strings.ToUpper(toks[0].text)
	switch k {
	case "CREATE", "DROP", "ALTER", "SHOW":
		if len(toks) > 1 && toks[1].kind == tIdent {
			k += " " + strings.ToUpper(toks[1].text)
		}
	}
	return k
}
