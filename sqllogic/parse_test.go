package sqllogic

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// describe prints a record compactly for comparison.
func describe(rec record) string {
	h := rec.header()
	var b strings.Builder
	fmt.Fprintf(&b, "%d:", h.line)
	for _, c := range h.conds {
		if c.skip {
			b.WriteString(" skipif " + c.engine + ";")
		} else {
			b.WriteString(" onlyif " + c.engine + ";")
		}
	}
	switch r := rec.(type) {
	case *statement:
		switch r.expect {
		case expectOK:
			b.WriteString(" statement ok")
		case expectError:
			fmt.Fprintf(&b, " statement error /%s/", r.pattern)
		case expectCount:
			fmt.Fprintf(&b, " statement count %d", r.count)
		}
		fmt.Fprintf(&b, " %q", r.sql)
	case *query:
		if r.isError {
			fmt.Fprintf(&b, " query error /%s/ %q", r.pattern, r.sql)
		} else {
			fmt.Fprintf(&b, " query %s %s label=%s %q => %q", r.types, r.sort, r.label, r.sql, strings.Join(r.expected, "|"))
		}
	case *directive:
		b.WriteString(" " + r.kind.String())
		if r.kind == dirHashThreshold {
			fmt.Fprintf(&b, " %d", r.n)
		}
	}
	return b.String()
}

func TestParseRecords(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"statement ok multi-line with comments", `# leading comment
statement ok
CREATE SOURCE bids (a BIGINT,
# inside
  b BIGINT);

# between records
statement ok
FLUSH;
`, []string{
			`2: statement ok "CREATE SOURCE bids (a BIGINT,\n  b BIGINT);"`,
			`8: statement ok "FLUSH;"`,
		}},
		{"statement error with spaces and empty regex", "statement error unbounded state.*GROUP BY\nSELECT 1\n\nstatement error\nSELECT 2\n", []string{
			`1: statement error /unbounded state.*GROUP BY/ "SELECT 1"`,
			`4: statement error // "SELECT 2"`,
		}},
		{"statement count", "statement count 3\nINSERT INTO t VALUES (1), (2), (3)", []string{
			`1: statement count 3 "INSERT INTO t VALUES (1), (2), (3)"`,
		}},
		{"query with types sort label and results", "query ITRB rowsort q7\nSELECT a,\n  b, c, d FROM t\n----\n1 x 1.500 t\n2 (empty) NULL f\n", []string{
			`1: query ITRB rowsort label=q7 "SELECT a,\n  b, c, d FROM t" => "1 x 1.500 t|2 (empty) NULL f"`,
		}},
		{"query default nosort, valuesort, no result section", "query I\nSELECT 1\n----\n1\n\nquery II valuesort\nSELECT 1, 2\n----\n1 2\n\nquery T nosort\nSELECT 'x' WHERE false\n", []string{
			`1: query I nosort label= "SELECT 1" => "1"`,
			`6: query II valuesort label= "SELECT 1, 2" => "1 2"`,
			`11: query T nosort label= "SELECT 'x' WHERE false" => ""`,
		}},
		{"result lines are verbatim", "query T\nSELECT s\n----\n# not a comment\n", []string{
			`1: query T nosort label= "SELECT s" => "# not a comment"`,
		}},
		{"query error", "query error division by zero\nSELECT 1/0", []string{
			`1: query error /division by zero/ "SELECT 1/0"`,
		}},
		{"skipif and onlyif stack", "skipif postgres\nonlyif streamsql\nquery I\nSELECT 1\n----\n1\n", []string{
			`3: skipif postgres; onlyif streamsql; query I nosort label= "SELECT 1" => "1"`,
		}},
		{"directives", "hash-threshold 10\n\nrestart\n\ncrash\ncheckpoint\nstatement ok\nFLUSH\n\nonlyif sqlite\nhalt\n\nhalt\n", []string{
			`1: hash-threshold 10`,
			`3: restart`,
			`5: crash`,
			`6: checkpoint`,
			`7: statement ok "FLUSH"`,
			`11: onlyif sqlite; halt`,
			`13: halt`,
		}},
		{"CRLF and trailing spaces", "statement ok  \r\nSELECT 1\r\n\r\nquery I  \r\nSELECT 1\r\n----\r\n1  \r\n", []string{
			`1: statement ok "SELECT 1"`,
			`4: query I nosort label= "SELECT 1" => "1"`,
		}},
		{"empty file", "# only comments\n\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := parse(tt.src)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var got []string
			for _, r := range recs {
				got = append(got, describe(r))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src  string
		line int
		msg  string
	}{
		{"statement maybe\nSELECT 1", 1, "unknown statement kind"},
		{"statement\nSELECT 1", 1, "want \"statement ok\""},
		{"statement ok extra\nSELECT 1", 1, "unexpected text"},
		{"\n\nstatement ok\n", 3, "record has no SQL"},
		{"statement ok\n# only a comment\n", 1, "record has no SQL"},
		{"statement count -1\nINSERT", 1, "not a non-negative integer"},
		{"statement error (\nSELECT 1", 1, "invalid error regex"},
		{"statement ok\nSELECT 1\n----\n1", 3, "no \"----\" result section"},
		{"query X\nSELECT 1", 1, "unknown column type"},
		{"query\nSELECT 1", 1, "want \"query <types>"},
		{"query I sortof\nSELECT 1", 1, "unknown sort mode"},
		{"query I nosort lbl extra\nSELECT 1", 1, "unexpected text"},
		{"query I\n----\n1", 1, "record has no SQL"},
		{"query error x\nSELECT 1\n----\n1", 3, "no \"----\" result section"},
		{"skipif\nstatement ok\nX", 1, "followed by one engine name"},
		{"skipif pg\n\nstatement ok\nX", 1, "must be followed by a record"},
		{"statement ok\nX\n\nonlyif pg\n", 4, "must be followed by a record"},
		{"statement ok\nX\n\nonlyif pg", 4, "at end of file"},
		{"frobnicate\n", 1, "unknown record \"frobnicate\""},
		{"hash-threshold x\n", 1, "hash-threshold"},
		{"hash-threshold\n", 1, "want \"hash-threshold <n>\""},
		{"restart now\n", 1, "unexpected text after \"restart\""},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := parse(tt.src)
			var pe *parseError
			if !errors.As(err, &pe) {
				t.Fatalf("want a parse error, got %v", err)
			}
			if pe.line != tt.line || !strings.Contains(pe.msg, tt.msg) {
				t.Errorf("got line %d %q, want line %d containing %q", pe.line, pe.msg, tt.line, tt.msg)
			}
		})
	}
}

func TestSyntaxErrorFailsFileWithLine(t *testing.T) {
	s := &scripted{}
	res := runText(t, s, "statement ok\nSELECT 1\n\nquery Q\nSELECT 2\n")
	f := mustFailOnce(t, res)
	if f.Line != 4 || !strings.Contains(f.Err.Error(), "syntax error: unknown column type") {
		t.Errorf("got line %d: %v", f.Line, f.Err)
	}
	if len(s.log) != 0 {
		t.Errorf("a file with a syntax error must not run; engine log: %q", s.log)
	}
}
