package parser

import "strings"

// tokKind is the kind of a token of our small tokenizer.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // an unquoted word: keyword or identifier
	tQIdent         // a "quoted" (or `quoted`) identifier
	tString         // a '...' string literal
	tNumber         // a numeric literal
	tOp             // punctuation and operators, including '::' and '||'
	tDollar         // a dollar-quoted string: $$...$$ or $tag$...$tag$
)

// token is one token of the user's text. off and end are byte offsets into
// the script.
type token struct {
	kind     tokKind
	text     string
	off, end int
}

// is reports whether t is the unquoted keyword kw (case-insensitive).
func (t token) is(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// isOp reports whether t is the operator or punctuation op.
func (t token) isOp(op string) bool { return t.kind == tOp && t.text == op }

// isName reports whether t can be an identifier.
func (t token) isName() bool { return t.kind == tIdent || t.kind == tQIdent }

// val returns the value of a token: quoted identifiers and strings without
// their quotes and with doubled quotes undone; anything else as written.
func (t token) val() string {
	switch t.kind {
	case tQIdent:
		q := t.text[:1]
		return strings.ReplaceAll(t.text[1:len(t.text)-1], q+q, q)
	case tString:
		if t.text[0] != '\'' {
			return unescapeE(t.text[2 : len(t.text)-1])
		}
		return strings.ReplaceAll(t.text[1:len(t.text)-1], "''", "'")
	case tDollar:
		n := len(dollarOpen(t.text))
		return t.text[n : len(t.text)-n]
	}
	return t.text
}

// isEString reports whether t is an escape string E'...'.
func (t token) isEString() bool { return t.kind == tString && t.text[0] != '\'' }

// span is a half-open byte range [off, end) of the script.
type span struct{ off, end int }

// lexResult is the tokenized script.
type lexResult struct {
	toks     []token
	comments []span
	errOff   int // offset of a lexical error, or -1
	errMsg   string
	tooDeep  bool // the error is nesting beyond sqlerr.MaxDepth
	depth    int  // open parentheses and CASEs of the current statement
}

// lex tokenizes src. It stops at the first lexical error (an unterminated
// string, identifier or comment, a character SQL does not use, or
// parentheses and CASEs nested beyond sqlerr.MaxDepth) and records it; the
// tokens before it are kept.
func lex(src string) lexResult {
	r := lexResult{errOff: -1}
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			r.comments = append(r.comments, span{i, i + j})
			i += j
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				r.errOff, r.errMsg = i, "unterminated comment"
				return r
			}
			r.comments = append(r.comments, span{i, i + j + 4})
			i += j + 4
		case c == '\'' || c == '"' || c == '`':
			j, ok := scanQuoted(src, i)
			if !ok {
				r.errOff = i
				r.errMsg = "unterminated quoted identifier"
				if c == '\'' {
					r.errMsg = "unterminated string literal"
				}
				return r
			}
			k := tString
			if c != '\'' {
				k = tQIdent
			}
			r.add(token{kind: k, text: src[i:j], off: i, end: j})
			i = j
		case (c == 'E' || c == 'e') && i+1 < len(src) && src[i+1] == '\'':
			j, ok := scanEString(src, i+1)
			if !ok {
				r.errOff, r.errMsg = i, "unterminated string literal"
				return r
			}
			r.add(token{kind: tString, text: src[i:j], off: i, end: j})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
			j := scanNumber(src, i)
			r.add(token{kind: tNumber, text: src[i:j], off: i, end: j})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			if !r.add(token{kind: tIdent, text: src[i:j], off: i, end: j}) {
				return r
			}
			i = j
		case c == '$' && dollarOpen(src[i:]) != "":
			tag := dollarOpen(src[i:])
			j := strings.Index(src[i+len(tag):], tag)
			if j < 0 {
				r.errOff, r.errMsg = i, "unterminated dollar-quoted string"
				return r
			}
			j += i + 2*len(tag)
			r.add(token{kind: tDollar, text: src[i:j], off: i, end: j})
			i = j
		case (c == '#' && !strings.HasPrefix(src[i:], "#>")) || c < ' ' || c == 0x7f:
			r.errOff, r.errMsg = i, "unexpected character"
			return r
		default:
			n := opLen(src[i:])
			if !r.add(token{kind: tOp, text: src[i : i+n], off: i, end: i + n}) {
				return r
			}
			i += n
		}
	}
	return r
}

// scanQuoted returns the end of the quoted token starting at i; a doubled
// quote character inside stands for itself.
func scanQuoted(src string, i int) (int, bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		if src[j] != q {
			continue
		}
		if j+1 < len(src) && src[j+1] == q {
			j++
			continue
		}
		return j + 1, true
	}
	return len(src), false
}

// dollarOpen returns the $tag$ that opens a dollar-quoted string at the
// start of s ($$ or $name$), or "". A tag does not start with a digit,
// so $1 stays a parameter reference.
func dollarOpen(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1]
		}
		if !isIdentStart(c) && (j == 1 || !isDigit(c)) {
			return ""
		}
	}
	return ""
}

func scanNumber(src string, i int) int {
	j := i
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	if j < len(src) && src[j] == '.' {
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j+1 < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			j = k
			for j < len(src) && isDigit(src[j]) {
				j++
			}
		}
	}
	// 0x1F, 1abc: the letters stay with the number, as TiDB scans them.
	for j < len(src) && isIdentChar(src[j]) {
		j++
	}
	return j
}

var multiOps = []string{"<=>", "->>", "#>>", "::", "#>", "@>", "||", "<>", "!=", "<=", ">=", ":=", "->", "&&", "<<", ">>"}

func opLen(s string) int {
	for _, op := range multiOps {
		if strings.HasPrefix(s, op) {
			return len(op)
		}
	}
	return 1
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) || c == '$' }
