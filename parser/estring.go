package parser

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// scanEString returns the end of the escape string whose quote is at i
// (after its E): a backslash escapes the next character, a doubled quote
// stands for itself.
func scanEString(src string, i int) (int, bool) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\'':
			if j+1 < len(src) && src[j+1] == '\'' {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return 0, false
}

// unescapeE returns the value of the body of E'...' as Postgres reads it:
// \b \f \n \r \t, octal \ooo, hexadecimal \xhh, Unicode \uXXXX and
// \UXXXXXXXX, a doubled quote for a quote, and any other escaped
// character as itself. A malformed Unicode escape is kept as written.
func unescapeE(s string) string {
	if !strings.ContainsAny(s, `\'`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == '\\' && i+1 < len(s):
			i = unescapeOne(&b, s, i+1)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// simpleEscapes are the one-letter escapes of E'...'.
var simpleEscapes = map[byte]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeOne writes the escape whose letter is at i and returns the
// index of its last byte.
func unescapeOne(b *strings.Builder, s string, i int) int {
	c := s[i]
	if r, ok := simpleEscapes[c]; ok {
		b.WriteByte(r)
		return i
	}
	switch {
	case c >= '0' && c <= '7':
		n := digitsAt(s, i, 3, 8)
		v, _ := strconv.ParseUint(s[i:i+n], 8, 16)
		b.WriteByte(byte(v))
		return i + n - 1
	case c == 'x' && digitsAt(s, i+1, 2, 16) > 0:
		n := digitsAt(s, i+1, 2, 16)
		v, _ := strconv.ParseUint(s[i+1:i+1+n], 16, 8)
		b.WriteByte(byte(v))
		return i + n
	case c == 'u' || c == 'U':
		want := 4
		if c == 'U' {
			want = 8
		}
		if digitsAt(s, i+1, want, 16) == want {
			v, _ := strconv.ParseUint(s[i+1:i+1+want], 16, 32)
			if r := rune(v); utf8.ValidRune(r) {
				b.WriteRune(r)
				return i + want
			}
		}
		b.WriteByte('\\')
		b.WriteByte(c)
		return i
	}
	b.WriteByte(c)
	return i
}

// digitsAt counts the digits of base (8 or 16) at s[i:], at most max.
func digitsAt(s string, i, limit, base int) int {
	n := 0
	for i+n < len(s) && n < limit {
		c := s[i+n] | 0x20
		ok := c >= '0' && c <= '7' || base == 16 && (c >= '0' && c <= '9' || c >= 'a' && c <= 'f')
		if !ok {
			break
		}
		n++
	}
	return n
}

// eString rewrites the escape string at i into a standard string TiDB
// reads as the same value.
// (A dollar-quoted string is handed over the same way.)
func (q *queryRewrite) eString(i int) {
	t := q.toks[i]
	q.rw.replace(t.off, t.end, quoteString(t.val()))
}
