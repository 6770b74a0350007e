package parser

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/sqlerr"
)

// maxNear bounds the text quoted after "near" in an error message.
const maxNear = 40

// source is the user's script with a table of line starts, so offsets turn
// into line/column positions without rescanning.
type source struct {
	text  string
	lines []int // byte offset at which each line starts
}

func newSource(text string) *source {
	s := &source{text: text, lines: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	return s
}

// pos returns the 1-based line and column of byte offset off.
func (s *source) pos(off int) sqlerr.Pos {
	off = max(0, min(off, len(s.text)))
	l := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	return sqlerr.Pos{Line: l + 1, Col: off - s.lines[l] + 1, Offset: off}
}

// near returns the text at off up to the end of its line or limit,
// whichever comes first, shortened to maxNear bytes.
func (s *source) near(off, limit int) string {
	off = max(0, min(off, len(s.text)))
	limit = max(off, min(limit, len(s.text)))
	t := s.text[off:limit]
	if i := strings.IndexAny(t, "\r\n"); i >= 0 {
		t = t[:i]
	}
	if len(t) > maxNear {
		t = t[:maxNear]
		for len(t) > 0 && !utf8.ValidString(t) {
			t = t[:len(t)-1]
		}
	}
	return strings.TrimRight(t, " \t")
}

// syntaxErr builds the syntax error at off. limit is the end of the
// statement: the near text does not run into the next one. detail, when
// set, says what was expected.
func (s *source) syntaxErr(off, limit int, detail string) *sqlerr.Error {
	p := s.pos(off)
	msg := fmt.Sprintf("syntax error at line %d, column %d near %q", p.Line, p.Col, s.near(off, limit))
	if detail != "" {
		msg += ": " + detail
	}
	return &sqlerr.Error{Code: sqlerr.SyntaxError, Msg: msg, Pos: p}
}

// unsupported builds a FeatureNotSupport error for what at off.
func (s *source) unsupported(off int, what string) *sqlerr.Error {
	p := s.pos(off)
	return &sqlerr.Error{
		Code: sqlerr.FeatureNotSupport,
		Msg:  fmt.Sprintf("%s is not supported (line %d, column %d)", what, p.Line, p.Col),
		Pos:  p,
	}
}

// errList collects the errors of one statement; first returns the one
// earliest in the text.
type errList []*sqlerr.Error

func (l *errList) add(e *sqlerr.Error) {
	if e != nil {
		*l = append(*l, e)
	}
}

func (l errList) first() *sqlerr.Error {
	if len(l) == 0 {
		return nil
	}
	sorted := append(errList(nil), l...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Pos.Offset < sorted[j].Pos.Offset })
	return sorted[0]
}
