package pgcatalog

import (
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tQIdent // "quoted"
	tStr
	tNum
	tOp
	tParam
)

type token struct {
	k   tokKind
	s   string // identifiers lower-cased; strings unescaped
	pos int
}

// lex splits a query into tokens. Comments are skipped. It stops at a
// bracket or CASE nested beyond sqlerr.MaxDepth (a parseError with
// tooDeep), so a huge nested query is refused before its tokens are built.
func lex(q string) ([]token, error) {
	var out []token
	depth := 0
	i := 0
	for i < len(q) {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment at %d", i)
			}
			i += end + 4
		case (c == 'E' || c == 'e') && i+1 < len(q) && q[i+1] == '\'':
			s, n, err := lexString(q[i+1:], true)
			if err != nil {
				return nil, err
			}
			out = append(out, token{tStr, s, i})
			i += 1 + n
		case c == '\'':
			s, n, err := lexString(q[i:], false)
			if err != nil {
				return nil, err
			}
			out = append(out, token{tStr, s, i})
			i += n
		case c == '"':
			j := i + 1
			var b strings.Builder
			for {
				if j >= len(q) {
					return nil, fmt.Errorf("unterminated quoted identifier at %d", i)
				}
				if q[j] == '"' {
					if j+1 < len(q) && q[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(q[j])
				j++
			}
			out = append(out, token{tQIdent, b.String(), i})
			i = j + 1
		case c == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			out = append(out, token{tParam, q[i+1 : j], i})
			i = j
		case c == '$':
			// dollar-quoted string: $tag$ ... $tag$
			j := strings.IndexByte(q[i+1:], '$')
			if j < 0 {
				return nil, fmt.Errorf("unexpected $ at %d", i)
			}
			tag := q[i : i+j+2]
			end := strings.Index(q[i+len(tag):], tag)
			if end < 0 {
				return nil, fmt.Errorf("unterminated dollar-quoted string at %d", i)
			}
			out = append(out, token{tStr, q[i+len(tag) : i+len(tag)+end], i})
			i += len(tag) + end + len(tag)
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i
			for j < len(q) && (q[j] >= '0' && q[j] <= '9' || q[j] == '.' || q[j] == 'e' || q[j] == 'E' ||
				(q[j] == '-' || q[j] == '+') && (q[j-1] == 'e' || q[j-1] == 'E')) {
				j++
			}
			out = append(out, token{tNum, q[i:j], i})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
			j := i
			for j < len(q) && (q[j] == '_' || q[j] == '$' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || q[j] >= '0' && q[j] <= '9' || q[j] >= 0x80) {
				j++
			}
			w := strings.ToLower(q[i:j])
			if depth = nest(depth, w); depth > sqlerr.MaxDepth {
				return nil, parseError{msg: "parentheses and CASE expressions", tooDeep: true, off: i}
			}
			out = append(out, token{tIdent, w, i})
			i = j
		default:
			// operators: the longest of the multi-character ones, else one byte
			op := string(c)
			for _, m := range []string{"!~~*", "!~~", "!~*", "~~*", "::", "<=", ">=", "<>", "!=", "||", "!~", "~*", "~~", "->>", "->", "@>", "<@", "&&"} {
				if strings.HasPrefix(q[i:], m) {
					op = m
					break
				}
			}
			if !strings.Contains("!~*::<=>=<>||+-/%^()[],;.@&#", string(c)) {
				return nil, fmt.Errorf("unexpected character %q at %d", c, i)
			}
			if depth = nest(depth, op); depth > sqlerr.MaxDepth {
				return nil, parseError{msg: "parentheses and CASE expressions", tooDeep: true, off: i}
			}
			out = append(out, token{tOp, op, i})
			i += len(op)
		}
	}
	out = append(out, token{tEOF, "", len(q)})
	return out, nil
}

// nest returns the bracket depth after token text t (an operator or a
// lower-cased word).
func nest(depth int, t string) int {
	switch t {
	case "(", "[", "case":
		return depth + 1
	case ")", "]", "end":
		return max(0, depth-1)
	case ";":
		return 0
	}
	return depth
}

// lexString reads a quoted string starting at s[0] == '\”; it returns the
// value and the number of bytes consumed.
func lexString(s string, escapes bool) (string, int, error) {
	var b strings.Builder
	i := 1
	for {
		if i >= len(s) {
			return "", 0, fmt.Errorf("unterminated string")
		}
		c := s[i]
		if c == '\'' {
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			return b.String(), i + 1, nil
		}
		if escapes && c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(s[i])
			}
			i++
			continue
		}
		b.WriteByte(c)
		i++
	}
}
