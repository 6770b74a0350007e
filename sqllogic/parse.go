package sqllogic

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// parseError is a syntax error in an .slt file.
type parseError struct {
	line int
	msg  string
}

func (e *parseError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// resultSeparator separates a query's SQL from its expected result.
const resultSeparator = "----"

// parser walks the lines of one .slt file.
type parser struct {
	lines []string // right-trimmed lines
	i     int      // index of the next unread line
}

// parse splits an .slt file into records. It stops at the first syntax
// error, which it reports with its line.
func parse(src string) ([]record, error) {
	p := &parser{lines: strings.Split(src, "\n")}
	for i, l := range p.lines {
		p.lines[i] = strings.TrimRight(l, " \t\r")
	}
	var recs []record
	var conds []condition
	condLine := 0
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		lineNo := p.i + 1
		switch {
		case line == "":
			if conds != nil {
				return nil, &parseError{condLine, "skipif/onlyif must be followed by a record in the same block"}
			}
			p.i++
			continue
		case isComment(line):
			p.i++
			continue
		}
		fields := strings.Fields(line)
		var rec record
		var err error
		switch fields[0] {
		case "skipif", "onlyif":
			if len(fields) != 2 {
				return nil, &parseError{lineNo, fmt.Sprintf("want %q followed by one engine name", fields[0])}
			}
			if conds == nil {
				condLine = lineNo
			}
			conds = append(conds, condition{skip: fields[0] == "skipif", engine: fields[1]})
			p.i++
			continue
		case "statement":
			rec, err = p.statement(fields)
		case "query":
			rec, err = p.query(fields)
		default:
			rec, err = p.directive(fields)
		}
		if err != nil {
			return nil, err
		}
		h := rec.header()
		h.line, h.conds = lineNo, conds
		conds = nil
		recs = append(recs, rec)
	}
	if conds != nil {
		return nil, &parseError{condLine, "skipif/onlyif at end of file without a record"}
	}
	return recs, nil
}

func isComment(line string) bool { return strings.HasPrefix(strings.TrimSpace(line), "#") }

// restAfter returns line without its first n whitespace-separated fields,
// trimmed: the free text of `statement error <regex>`.
func restAfter(line string, n int) string {
	s := strings.TrimSpace(line)
	for range n {
		s = strings.TrimLeft(s, " \t")
		if j := strings.IndexAny(s, " \t"); j >= 0 {
			s = s[j:]
		} else {
			s = ""
		}
	}
	return strings.TrimSpace(s)
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &parseError{line, fmt.Sprintf(format, args...)}
}

// statement parses `statement ok|error <re>|count N` and its SQL.
func (p *parser) statement(fields []string) (record, error) {
	lineNo := p.i + 1
	st := &statement{}
	if len(fields) < 2 {
		return nil, p.errorf(lineNo, "want \"statement ok\", \"statement error <regex>\" or \"statement count <n>\"")
	}
	switch fields[1] {
	case "ok":
		if len(fields) != 2 {
			return nil, p.errorf(lineNo, "unexpected text after \"statement ok\"")
		}
	case "error":
		st.expect = expectError
		st.pattern = restAfter(p.lines[p.i], 2)
		re, err := compilePattern(st.pattern)
		if err != nil {
			return nil, p.errorf(lineNo, "%v", err)
		}
		st.re = re
	case "count":
		if len(fields) != 3 {
			return nil, p.errorf(lineNo, "want \"statement count <n>\"")
		}
		n, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil || n < 0 {
			return nil, p.errorf(lineNo, "statement count: %q is not a non-negative integer", fields[2])
		}
		st.expect, st.count = expectCount, n
	default:
		return nil, p.errorf(lineNo, "unknown statement kind %q (want ok, error or count)", fields[1])
	}
	p.i++
	sql, sep, err := p.sql(lineNo)
	if err != nil {
		return nil, err
	}
	if sep {
		return nil, p.errorf(p.i, "a statement record has no %q result section", resultSeparator)
	}
	st.sql = sql
	return st, nil
}

// query parses `query <types> [sort] [label]` or `query error <re>`, its
// SQL and its expected result lines.
func (p *parser) query(fields []string) (record, error) {
	lineNo := p.i + 1
	q := &query{}
	if len(fields) < 2 {
		return nil, p.errorf(lineNo, "want \"query <types> [nosort|rowsort|valuesort] [label]\" or \"query error <regex>\"")
	}
	if fields[1] == "error" {
		q.isError = true
		q.pattern = restAfter(p.lines[p.i], 2)
		re, err := compilePattern(q.pattern)
		if err != nil {
			return nil, p.errorf(lineNo, "%v", err)
		}
		q.re = re
	} else if err := q.parseShape(fields[1:]); err != nil {
		return nil, p.errorf(lineNo, "%v", err)
	}
	p.i++
	sql, sep, err := p.sql(lineNo)
	if err != nil {
		return nil, err
	}
	q.sql = sql
	if !sep {
		return q, nil
	}
	if q.isError {
		return nil, p.errorf(p.i, "\"query error\" has no %q result section", resultSeparator)
	}
	q.expected = []string{}
	for p.i < len(p.lines) && p.lines[p.i] != "" {
		q.expected = append(q.expected, p.lines[p.i])
		p.i++
	}
	return q, nil
}

// parseShape reads the type letters, sort mode and label of a query header.
func (q *query) parseShape(args []string) error {
	q.types = args[0]
	for _, c := range q.types {
		if !strings.ContainsRune("ITRB", c) {
			return fmt.Errorf("unknown column type %q in %q (want I, T, R or B)", c, q.types)
		}
	}
	if len(args) > 1 {
		switch args[1] {
		case "nosort":
			q.sort = noSort
		case "rowsort":
			q.sort = rowSort
		case "valuesort":
			q.sort = valueSort
		default:
			return fmt.Errorf("unknown sort mode %q (want nosort, rowsort or valuesort)", args[1])
		}
	}
	if len(args) > 2 {
		q.label = args[2]
	}
	if len(args) > 3 {
		return fmt.Errorf("unexpected text %q after the label", strings.Join(args[3:], " "))
	}
	return nil
}

// sql reads SQL lines up to a blank line, the end of the file or the
// result separator (consumed; sep reports it). Comment lines are skipped.
func (p *parser) sql(header int) (sql string, sep bool, err error) {
	var b []string
	for p.i < len(p.lines) && p.lines[p.i] != "" {
		l := p.lines[p.i]
		p.i++
		if strings.TrimSpace(l) == resultSeparator {
			sep = true
			break
		}
		if !isComment(l) {
			b = append(b, l)
		}
	}
	if len(b) == 0 {
		return "", false, p.errorf(header, "record has no SQL")
	}
	return strings.Join(b, "\n"), sep, nil
}

// directive parses a single-line control record. The record ends with its
// line: a following record may start on the next line.
func (p *parser) directive(fields []string) (record, error) {
	lineNo := p.i + 1
	d := &directive{}
	switch fields[0] {
	case "halt":
		d.kind = dirHalt
	case "restart":
		d.kind = dirRestart
	case "crash":
		d.kind = dirCrash
	case "checkpoint":
		d.kind = dirCheckpoint
	case "hash-threshold":
		d.kind = dirHashThreshold
		if len(fields) != 2 {
			return nil, p.errorf(lineNo, "want \"hash-threshold <n>\"")
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil || n < 0 {
			return nil, p.errorf(lineNo, "hash-threshold: %q is not a non-negative integer", fields[1])
		}
		d.n = n
	default:
		return nil, p.errorf(lineNo, "unknown record %q (want statement, query, skipif, onlyif, halt, hash-threshold, restart, crash or checkpoint)", fields[0])
	}
	if d.kind != dirHashThreshold && len(fields) != 1 {
		return nil, p.errorf(lineNo, "unexpected text after %q", fields[0])
	}
	p.i++
	return d, nil
}

// compilePattern compiles an expected-error regex; empty means any error.
func compilePattern(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid error regex %q: %w", pattern, err)
	}
	return re, nil
}
