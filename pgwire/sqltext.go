package pgwire

import (
	"fmt"
	"strconv"
	"strings"
)

// piece is one statement of a simple query: its text and its byte offset
// in the query (for error positions).
type piece struct {
	text string
	off  int
}

// scanSQL walks q and calls code for each run of text outside string
// literals, quoted identifiers, dollar quotes and comments ([start, end)
// byte ranges); it stops early when code returns false. The scanner is the
// one place that knows Postgres's lexical rules, so splitting at ';' and
// substituting $n agree on what is code.
func scanSQL(q string, code func(start, end int) bool) {
	i, start := 0, 0
	flush := func(end int) bool {
		if end > start {
			return code(start, end)
		}
		return true
	}
	for i < len(q) {
		c := q[i]
		skip := -1 // where the quoted/comment run ends
		switch {
		case c == '\'':
			escapes := i > 0 && (q[i-1] == 'E' || q[i-1] == 'e') && (i < 2 || !isIdent(q[i-2]))
			skip = endQuote(q, i+1, '\'', escapes)
		case c == '"':
			skip = endQuote(q, i+1, '"', false)
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			skip = strings.IndexByte(q[i:], '\n')
			if skip < 0 {
				skip = len(q)
			} else {
				skip += i + 1
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			skip = endComment(q, i+2)
		case c == '$' && (i == 0 || !isIdent(q[i-1])):
			if tag, ok := dollarTag(q[i:]); ok {
				j := strings.Index(q[i+len(tag):], tag)
				if j < 0 {
					skip = len(q)
				} else {
					skip = i + len(tag) + j + len(tag)
				}
			}
		}
		if skip < 0 {
			i++
			continue
		}
		if !flush(i) {
			return
		}
		i, start = skip, skip
	}
	flush(len(q))
}

func isIdent(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// endQuote returns the offset just past the quote closing a literal that
// starts at i; a doubled quote stays inside, and so does a
// backslash-escaped one in E'...' strings.
func endQuote(q string, i int, quote byte, escapes bool) int {
	for i < len(q) {
		switch q[i] {
		case '\\':
			if escapes {
				i += 2
				continue
			}
		case quote:
			if i+1 < len(q) && q[i+1] == quote {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	return len(q)
}

// endComment returns the offset past the */ closing a (nestable) block
// comment whose body starts at i.
func endComment(q string, i int) int {
	depth := 1
	for i < len(q) {
		switch {
		case strings.HasPrefix(q[i:], "/*"):
			depth++
			i += 2
		case strings.HasPrefix(q[i:], "*/"):
			depth--
			i += 2
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return len(q)
}

// dollarTag returns the $tag$ opening a dollar-quoted string at the start
// of s ($$ or $name$; a tag does not start with a digit, so $1 is a
// parameter).
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1], true
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || (j > 1 && c >= '0' && c <= '9')) {
			return "", false
		}
	}
	return "", false
}

// splitStatements splits a simple query at top-level semicolons; pieces
// that hold only blanks and comments are dropped.
func splitStatements(q string) []piece {
	var cuts []int
	scanSQL(q, func(s, e int) bool {
		for i := s; i < e; i++ {
			if q[i] == ';' {
				cuts = append(cuts, i)
			}
		}
		return true
	})
	cuts = append(cuts, len(q))
	var out []piece
	start := 0
	for _, c := range cuts {
		if p, ok := trimPiece(q, start, c); ok {
			out = append(out, p)
		}
		start = c + 1
	}
	return out
}

// trimPiece trims blanks (and leading comments) around q[s:e]; ok is false
// when nothing but blanks and comments is left.
func trimPiece(q string, s, e int) (piece, bool) {
	first, last := -1, -1
	scanSQL(q[s:e], func(a, b int) bool {
		for i := a; i < b; i++ {
			if !isSpace(q[s+i]) {
				if first < 0 {
					first = s + i
				}
				last = s + i
			}
		}
		return true
	})
	if first < 0 {
		return piece{}, false
	}
	// Keep a quoted run or comment that ends the statement.
	end := e
	for end > last+1 && isSpace(q[end-1]) {
		end--
	}
	return piece{text: q[first:end], off: first}, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// paramRefs calls fn for each $n parameter reference outside literals and
// comments, with its byte range and number. CREATE FUNCTION has none: a
// $n in its RETURN body is the function's own parameter, as in Postgres.
func paramRefs(q string, fn func(start, end, n int)) {
	if isCreateFunction(q) {
		return
	}
	scanSQL(q, func(s, e int) bool {
		for i := s; i < e; i++ {
			if q[i] != '$' || (i > 0 && isIdent(q[i-1])) {
				continue
			}
			j := i + 1
			for j < e && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j == i+1 || (j < e && isIdent(q[j])) {
				continue
			}
			n, err := strconv.Atoi(q[i+1 : j])
			if err != nil || n < 1 {
				continue
			}
			fn(i, j, n)
			i = j - 1
		}
		return true
	})
}

// isCreateFunction reports whether q is CREATE [OR REPLACE] FUNCTION.
func isCreateFunction(q string) bool {
	w := strings.Fields(strings.ToUpper(q[:min(len(q), 64)]))
	return len(w) >= 2 && w[0] == "CREATE" && (w[1] == "FUNCTION" ||
		len(w) >= 4 && w[1] == "OR" && w[2] == "REPLACE" && w[3] == "FUNCTION")
}

// maxParam returns the highest $n in q.
func maxParam(q string) int {
	m := 0
	paramRefs(q, func(_, _, n int) { m = max(m, n) })
	return m
}

// substitute replaces every $n in q by lits[n-1]. back maps a byte
// offset in the result to the offset in q it came from (an offset inside
// a substituted literal maps to its $n).
func substitute(q string, lits []string) (out string, back func(int) int, err error) {
	type edit struct{ from, to, newFrom, newTo int }
	var b strings.Builder
	var edits []edit
	last := 0
	paramRefs(q, func(s, e, n int) {
		if n > len(lits) {
			if err == nil {
				err = fmt.Errorf("there is no parameter $%d", n)
			}
			return
		}
		b.WriteString(q[last:s])
		start := b.Len()
		b.WriteString(lits[n-1])
		edits = append(edits, edit{s, e, start, b.Len()})
		last = e
	})
	if err != nil {
		return "", nil, err
	}
	if len(edits) == 0 {
		return q, func(off int) int { return off }, nil
	}
	b.WriteString(q[last:])
	back = func(off int) int {
		shift := 0
		for _, ed := range edits {
			switch {
			case off < ed.newFrom:
				return off - shift
			case off < ed.newTo:
				return ed.from
			}
			shift = ed.newTo - ed.to
		}
		return off - shift
	}
	return b.String(), back, nil
}

// words returns the first n words of q (lower-cased, outside comments),
// for classifying session statements.
func words(q string, n int) []string {
	var out []string
	scanSQL(q, func(s, e int) bool {
		for _, w := range strings.FieldsFunc(q[s:e], func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == ';' || r == '=' || r == ','
		}) {
			out = append(out, strings.ToLower(w))
			if len(out) == n {
				return false
			}
		}
		return false // a quoted run or comment ends the keyword prefix
	})
	return out
}
