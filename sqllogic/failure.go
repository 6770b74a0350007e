package sqllogic

import (
	"fmt"
	"strings"
)

// Failure is one record that did not behave as its file expects, or a
// file-level problem (unreadable file, syntax error, engine that fails to
// open or close).
type Failure struct {
	// Line is the 1-based line of the record's header (`statement ...`,
	// `query ...` or the directive); 0 for file-level problems.
	Line int
	// SQL is the record's SQL text, empty for directives.
	SQL string
	// Expected and Actual are the compared texts: result lines joined by
	// "\n" for queries, or a short description such as `ok` or
	// `error matching /re/` for statements.
	Expected, Actual string
	// Diff is a unified-style diff from Expected to Actual for result
	// mismatches, empty otherwise.
	Diff string
	// Err says what went wrong; it wraps the engine's error when there
	// was one, so errors.Is and errors.As see it.
	Err error
}

// Report formats the failure for a person: "path:line: what went wrong",
// then the SQL and the diff (or the expected and actual texts) indented.
func (f Failure) Report(path string) string {
	var b strings.Builder
	if f.Line > 0 {
		fmt.Fprintf(&b, "%s:%d: ", path, f.Line)
	} else {
		fmt.Fprintf(&b, "%s: ", path)
	}
	if f.Err != nil {
		b.WriteString(f.Err.Error())
	} else {
		b.WriteString("failed")
	}
	b.WriteByte('\n')
	indent(&b, f.SQL)
	switch {
	case f.Diff != "":
		indent(&b, strings.TrimSuffix(f.Diff, "\n"))
	case f.Expected != "" || f.Actual != "":
		indent(&b, "expected: "+f.Expected)
		indent(&b, "actual:   "+f.Actual)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// indent writes each line of s prefixed with four spaces.
func indent(b *strings.Builder, s string) {
	if s == "" {
		return
	}
	for _, l := range strings.Split(s, "\n") {
		b.WriteString("    ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
}
