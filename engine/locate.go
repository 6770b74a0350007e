package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
)

// Errors the planner finds (an unknown relation, column or function) name
// the offending token but not where it stands; the parser's positions end
// at the statement. locate finds that token in the statement's text and
// adds its line and column, so every SQL error names line, column and
// token, as syntax errors do.

// reQuotedName is the first "name" in an error message; reFuncName the
// function of "function f(args) does not exist" or "function f does not
// exist".
var (
	reQuotedName = regexp.MustCompile(`"([^"]+)"`)
	reFuncName   = regexp.MustCompile(`^function ([A-Za-z_][A-Za-z0-9_]*)[( ]`)
)

// locate returns err with the position of the token it names within
// statement st of script, when it has none yet and the token is found.
func locate(err error, script string, st parser.Stmt) error {
	se, ok := err.(*sqlerr.Error)
	if !ok || se.Pos.IsValid() || st == nil {
		return err
	}
	name := ""
	if m := reQuotedName.FindStringSubmatch(se.Msg); m != nil {
		name = m[1]
	} else if m := reFuncName.FindStringSubmatch(se.Msg); m != nil {
		name = m[1]
	}
	if name == "" {
		return err
	}
	text, start := st.Text(), st.Pos().Offset
	if start < 0 || start+len(text) > len(script) || script[start:start+len(text)] != text {
		return err // not this script's text: nowhere to point
	}
	i := findToken(text, name)
	if i < 0 {
		return err
	}
	p := sqlerr.PosAt(script, start+i)
	out := *se
	out.Pos = p
	out.Msg = fmt.Sprintf("%s (line %d, column %d)", se.Msg, p.Line, p.Col)
	return &out
}

// findToken returns the offset of the first identifier token equal to
// name (case-insensitively; "quoted" as written) in the statement's query
// part (from its SELECT on, when it has one), outside string literals and
// comments, or -1.
func findToken(text, name string) int {
	from := 0
	if i := indexKeyword(text, "select"); i >= 0 {
		from = i
	}
	lower := strings.ToLower(name)
	for i := from; i < len(text); {
		c := text[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return -1
			}
			i += j + 2
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return -1
			}
			i += j + 1
		case c == '"':
			j := strings.IndexByte(text[i+1:], '"')
			if j < 0 {
				return -1
			}
			if text[i+1:i+1+j] == name {
				return i
			}
			i += j + 2
		case isIdentByte(c):
			j := i
			for j < len(text) && isIdentByte(text[j]) {
				j++
			}
			if strings.ToLower(text[i:j]) == lower {
				return i
			}
			i = j
		default:
			i++
		}
	}
	return -1
}

// indexKeyword is the offset of keyword kw as a whole word, or -1.
func indexKeyword(text, kw string) int {
	lower := strings.ToLower(text)
	for off := 0; ; {
		i := strings.Index(lower[off:], kw)
		if i < 0 {
			return -1
		}
		i += off
		before := i == 0 || !isIdentByte(lower[i-1])
		after := i+len(kw) == len(lower) || !isIdentByte(lower[i+len(kw)])
		if before && after {
			return i
		}
		off = i + len(kw)
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
