package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/types"
)

// maxPointShapes bounds pointShapes; past it the cache starts over.
const maxPointShapes = 1024

// pointShape is a cached answer to "is this SELECT text, with its
// literals taken out, a point read?": the prepared query, or nil (not a
// point read while the catalog's Seq is seq).
type pointShape struct {
	p   *PointQuery
	seq uint64
}

// execPointText answers sql from the point-shape cache when it is a point
// read whose literals are its key values (`SELECT * FROM kv WHERE id =
// 42`): the text is parameterised (42 becomes $1), the shape looked up or
// prepared once, and the row read by key, without parsing sql. ok is
// false when sql is anything else or the fast path declines (a stale
// shape, an error): Exec then runs it as usual, which gives the same
// answer and the usual errors.
func (e *Engine) execPointText(ctx context.Context, sql string) (res *Result, ok bool, err error) {
	shape, args, ok := parameterize(sql)
	if !ok {
		return nil, false, nil
	}
	if err := e.mu.LockContext(ctx); err != nil {
		return nil, false, err
	}
	defer e.mu.Unlock()
	if e.closed {
		return nil, false, nil
	}
	e.sess = sessionOf(ctx)
	defer func() { e.sess = nil }()
	c, hit := e.pointShapes[shape]
	if !hit || (c.p == nil && c.seq != e.cat.Seq()) {
		c = pointShape{p: e.preparePointShape(shape, len(args)), seq: e.cat.Seq()}
		if len(e.pointShapes) >= maxPointShapes {
			clear(e.pointShapes)
		}
		e.pointShapes[shape] = c
	}
	if c.p == nil {
		return nil, false, nil
	}
	res, err = e.runPoint(c.p, args)
	if err != nil {
		if err == ErrStalePointQuery {
			delete(e.pointShapes, shape)
		}
		return nil, false, nil
	}
	return res, true, nil
}

// preparePointShape returns the point read shape is, when all of its n
// parameters are key values; e.mu is held.
func (e *Engine) preparePointShape(shape string, n int) *PointQuery {
	stmts, err := parser.Parse(shape)
	if err != nil || len(stmts) != 1 {
		return nil
	}
	q, ok := stmts[0].(*parser.QueryStmt)
	if !ok {
		return nil
	}
	p := e.matchPoint(q)
	if p == nil {
		return nil
	}
	used := 0
	for _, k := range p.params {
		if k > 0 {
			used++
		}
	}
	if used != n {
		return nil
	}
	return p
}

// parameterize replaces the literals of a SELECT's text with $1, $2, ...
// and returns them: integers as BIGINT, quoted strings as text, as the
// parser reads them. It declines (ok false) text without literals, not
// starting with SELECT, or holding anything whose reading it would have
// to guess: comments, parameters, dollar quotes, backslashes in strings,
// prefixed or typed strings (E'..', DATE '..', "t" '..'), adjacent
// literals ('a' 'b' is 'ab'), decimals and exponents.
func parameterize(sql string) (shape string, args []types.Value, ok bool) {
	t := strings.TrimLeft(sql, " \t\r\n")
	if len(t) < 6 || !strings.EqualFold(t[:6], "select") {
		return "", nil, false
	}
	l := shapeLexer{sql: sql}
	l.b.Grow(len(sql) + 8)
	for l.i < len(sql) {
		if !l.token() {
			return "", nil, false
		}
	}
	if len(l.args) == 0 {
		return "", nil, false
	}
	return l.b.String(), l.args, true
}

// shapeLexer is parameterize's state: the text read up to i, with its
// literals replaced, and what the last token was.
type shapeLexer struct {
	sql       string
	i         int
	b         strings.Builder
	args      []types.Value
	afterWord bool // the last token was a word: a literal after it is typed
	afterLit  bool // the last token was a literal: adjacent strings concatenate
}

// token reads the token at l.i; false declines the text.
func (l *shapeLexer) token() bool {
	sql, i := l.sql, l.i
	c := sql[i]
	switch {
	case isWordStart(c):
		j := i + 1
		for j < len(sql) && (isWordStart(sql[j]) || isDigit(sql[j])) {
			j++
		}
		l.keep(j)
	case isDigit(c):
		j := i + 1
		for j < len(sql) && isDigit(sql[j]) {
			j++
		}
		if l.afterWord || l.afterLit || (j < len(sql) && (sql[j] == '.' || isWordStart(sql[j]))) || (i > 0 && sql[i-1] == '.') {
			return false
		}
		n, err := strconv.ParseInt(sql[i:j], 10, 64)
		return err == nil && l.literal(types.IntValue(n), j)
	case c == '\'':
		s, j, ok := quoted(sql, i)
		return ok && !l.afterWord && !l.afterLit && l.literal(types.StringValue(s), j)
	case c == '"':
		j := strings.IndexByte(sql[i+1:], '"')
		if j < 0 {
			return false
		}
		l.keep(i + j + 2)
	case c == '$' || c == '?' || c == '\\' || c == '#' || c == '`' ||
		(c == '-' && strings.HasPrefix(sql[i:], "--")) || (c == '/' && strings.HasPrefix(sql[i:], "/*")):
		return false
	default:
		l.b.WriteByte(c)
		l.i++
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			l.afterWord, l.afterLit = false, false
		}
	}
	return true
}

// keep keeps the text up to j, a word or quoted name, as it is.
func (l *shapeLexer) keep(j int) {
	l.b.WriteString(l.sql[l.i:j])
	l.i, l.afterWord, l.afterLit = j, true, false
}

// literal replaces the text up to j, the literal v, with a parameter.
func (l *shapeLexer) literal(v types.Value, j int) bool {
	l.args = append(l.args, v)
	l.b.WriteString("$" + strconv.Itoa(len(l.args)))
	l.i, l.afterWord, l.afterLit = j, false, true
	return true
}

// quoted reads the string literal opening at sql[i] (” is a quote);
// it declines backslashes, whose meaning depends on the parser's mode.
func quoted(sql string, i int) (string, int, bool) {
	var s strings.Builder
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			return "", 0, false
		case '\'':
			if j+1 < len(sql) && sql[j+1] == '\'' {
				s.WriteByte('\'')
				j++
				continue
			}
			return s.String(), j + 1, true
		default:
			s.WriteByte(sql[j])
		}
	}
	return "", 0, false
}

func isWordStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
