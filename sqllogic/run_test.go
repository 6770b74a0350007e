package sqllogic

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

func TestQueryFormattingAndSortModes(t *testing.T) {
	s := &scripted{answers: map[string]answer{
		"SELECT mixed": {res: rows(4, vi(1), vs(""), vf(2.5), vb(true), types.NullValue, vs("a b"), vi(3), vb(false))},
		"SELECT pairs": {res: rows(2, vi(2), vs("b"), vi(10), vs("c"), vi(1), vs("a"))},
		"SELECT vals":  {res: rows(2, vi(4), vi(3), vi(2), vi(1))},
		"SELECT float": {res: rows(1, vf(7.9))},
	}}
	res := runText(t, s, `query ITRB
SELECT mixed
----
1 (empty) 2.500 t
NULL a b 3.000 f

# Expected rows may be written in any order under rowsort.
query IT rowsort
SELECT pairs
----
2 b
1 a
10 c

query IT nosort
SELECT pairs
----
2 b
10 c
1 a

query II valuesort
SELECT vals
----
1 2
3 4

query I
SELECT float
----
7
`)
	mustPass(t, res)
	if res.Records != 5 {
		t.Errorf("Records = %d, want 5", res.Records)
	}
}

func TestNosortOrderMatters(t *testing.T) {
	s := &scripted{answers: map[string]answer{"SELECT pairs": {res: rows(2, vi(2), vs("b"), vi(1), vs("a"))}}}
	f := mustFailOnce(t, runText(t, s, "query IT\nSELECT pairs\n----\n1 a\n2 b\n"))
	if f.Err.Error() != "query result mismatch" || f.Expected != "1 a\n2 b" || f.Actual != "2 b\n1 a" {
		t.Errorf("got %v expected=%q actual=%q", f.Err, f.Expected, f.Actual)
	}
}

func TestFailureReportsLineAndDiff(t *testing.T) {
	s := &scripted{answers: map[string]answer{"SELECT a, b\nFROM t": {res: rows(2, vi(1), vs("a"), vi(2), vs("c"), vi(3), vs("d"))}}}
	res := runText(t, s, `statement ok
CREATE TABLE t (a BIGINT, b VARCHAR)

# the engine gets row 2 wrong
query IT rowsort
SELECT a, b
FROM t
----
1 a
2 b
3 d
`)
	f := mustFailOnce(t, res)
	if f.Line != 5 {
		t.Errorf("Line = %d, want 5 (the query header)", f.Line)
	}
	want := res.Path + `:5: query result mismatch
    SELECT a, b
    FROM t
    --- expected
    +++ actual
    @@ -1,3 +1,3 @@
     1 a
    -2 b
    +2 c
     3 d`
	if got := f.Report(res.Path); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}

func TestWrongColumnCount(t *testing.T) {
	s := &scripted{answers: map[string]answer{
		"SELECT one": {res: rows(1, vi(1))},
		"SELECT bad": {res: &Result{Rows: []types.Row{{vi(1), vi(2)}, {vi(3)}}}},
	}}
	res := runText(t, s, "query II\nSELECT one\n----\n1\n\nquery II\nSELECT bad\n----\n1 2\n3\n")
	if len(res.Failures) != 2 {
		t.Fatalf("want 2 failures, got:\n%s", reports(res))
	}
	if msg := res.Failures[0].Err.Error(); res.Failures[0].Line != 1 ||
		!strings.Contains(msg, "wrong column count: query declares 2 columns (II) but the result has 1 (c1)") {
		t.Errorf("first: line %d: %s", res.Failures[0].Line, msg)
	}
	if msg := res.Failures[1].Err.Error(); res.Failures[1].Line != 6 ||
		!strings.Contains(msg, "result row 2 has 1 values (3)") {
		t.Errorf("second: line %d: %s", res.Failures[1].Line, msg)
	}
}

func TestHashThreshold(t *testing.T) {
	s := &scripted{answers: map[string]answer{"SELECT three": {res: rows(1, vi(3), vi(1), vi(2))}}}
	const hashed = "3 values hashing to c0710d6b4f15dfa88f600b0e6b624077" // md5 of "1\n2\n3\n"
	t.Run("over threshold compares the hash", func(t *testing.T) {
		mustPass(t, runText(t, s, "hash-threshold 2\n\nquery I rowsort\nSELECT three\n----\n"+hashed+"\n"))
	})
	t.Run("at threshold compares values", func(t *testing.T) {
		mustPass(t, runText(t, s, "hash-threshold 3\n\nquery I rowsort\nSELECT three\n----\n1\n2\n3\n"))
	})
	t.Run("hash form is accepted without a threshold", func(t *testing.T) {
		mustPass(t, runText(t, s, "query I valuesort\nSELECT three\n----\n"+hashed+"\n"))
	})
	t.Run("over threshold with listed values fails showing the hash", func(t *testing.T) {
		f := mustFailOnce(t, runText(t, s, "hash-threshold 2\n\nquery I rowsort\nSELECT three\n----\n1\n2\n3\n"))
		if !strings.Contains(f.Diff, "+"+hashed) {
			t.Errorf("diff does not show the actual hash:\n%s", f.Diff)
		}
	})
	t.Run("nosort hashes in engine order", func(t *testing.T) {
		f := mustFailOnce(t, runText(t, s, "query I nosort\nSELECT three\n----\n"+hashed+"\n"))
		if f.Actual != "3 values hashing to "+md5Of("3\n1\n2\n") {
			t.Errorf("actual = %q", f.Actual)
		}
	})
}

func TestLabels(t *testing.T) {
	s := &scripted{answers: map[string]answer{
		"SELECT a": {res: rows(1, vi(1))},
		"SELECT b": {res: rows(1, vi(1))},
		"SELECT c": {res: rows(1, vi(2))},
	}}
	mustPass(t, runText(t, s, "query I nosort same\nSELECT a\n----\n1\n\nquery I nosort same\nSELECT b\n----\n1\n"))
	f := mustFailOnce(t, runText(t, s, "query I nosort same\nSELECT a\n----\n1\n\nquery I nosort same\nSELECT c\n----\n2\n"))
	if f.Line != 6 || !strings.Contains(f.Err.Error(), `label "same": result differs from the query at line 1`) {
		t.Errorf("line %d: %v", f.Line, f.Err)
	}
}

func TestErrorExpectations(t *testing.T) {
	unbounded := sqlerr.New(sqlerr.InvalidObjectDef, "unbounded state: GROUP BY auction has no window").WithHint("add a window")
	s := &scripted{answers: map[string]answer{
		"CREATE bad": {err: unbounded},
		"SELECT 1/0": {err: sqlerr.New(sqlerr.DivisionByZero, "division by zero")},
		"SELECT ok":  {res: rows(1, vi(1))},
	}}
	tests := []struct {
		name    string
		src     string
		wantErr string // "" means the file passes
	}{
		{"statement error matches", "statement error unbounded state.*no window\nCREATE bad\n", ""},
		{"regex is unanchored and sees the hint", "statement error hint: add a\nCREATE bad\n", ""},
		{"empty regex is any error", "statement error\nCREATE bad\n", ""},
		{"query error matches", "query error division by (zero|nil)\nSELECT 1/0\n", ""},
		{"statement error mismatch", "statement error late data\nCREATE bad\n", "error does not match /late data/: unbounded state"},
		{"statement error but success", "statement error boom\nSELECT ok\n", "expected an error matching /boom/, but it succeeded"},
		{"query error but success", "query error\nSELECT ok\n", "expected an error, but it succeeded"},
		{"statement ok gets an error", "statement ok\nCREATE bad\n", "statement failed: unbounded state"},
		{"query gets an error", "query I\nSELECT 1/0\n----\n1\n", "query failed: division by zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runText(t, s, tt.src)
			if tt.wantErr == "" {
				mustPass(t, res)
				return
			}
			f := mustFailOnce(t, res)
			if f.Line != 1 || !strings.Contains(f.Err.Error(), tt.wantErr) {
				t.Errorf("line %d: %v; want %q", f.Line, f.Err, tt.wantErr)
			}
		})
	}
	t.Run("engine error stays inspectable", func(t *testing.T) {
		f := mustFailOnce(t, runText(t, s, "statement ok\nCREATE bad\n"))
		if !errors.Is(f.Err, unbounded) || sqlerr.Code(f.Err) != sqlerr.InvalidObjectDef {
			t.Errorf("failure error %v does not wrap the engine error", f.Err)
		}
	})
}

func TestStatementCount(t *testing.T) {
	affected := &Result{Schema: types.Schema{{Name: RowsAffectedColumn, Type: types.Int}}, Rows: []types.Row{{vi(3)}}}
	s := &scripted{answers: map[string]answer{
		"INSERT three": {res: affected},
		"SELECT two":   {res: rows(1, vi(1), vi(2))},
	}}
	mustPass(t, runText(t, s, "statement count 3\nINSERT three\n\nstatement count 2\nSELECT two\n\nstatement count 0\nCREATE x\n"))
	f := mustFailOnce(t, runText(t, s, "statement count 2\nINSERT three\n"))
	if f.Expected != "2" || f.Actual != "3" || !strings.Contains(f.Err.Error(), "got 3 rows, want 2") {
		t.Errorf("got %v expected=%q actual=%q", f.Err, f.Expected, f.Actual)
	}
}

func TestSkipifOnlyifHalt(t *testing.T) {
	s := &scripted{answers: map[string]answer{"FAILS": {err: errors.New("nope")}}}
	src := `skipif streamsql
statement ok
FAILS

onlyif postgres
statement ok
FAILS

onlyif StreamSQL
statement ok
RUNS 1

skipif postgres
statement ok
RUNS 2

onlyif sqlite
halt

statement ok
RUNS 3

halt

statement ok
FAILS
`
	res := runText(t, s, src)
	mustPass(t, res)
	want := "open|exec RUNS 1|exec RUNS 2|exec RUNS 3|close"
	if got := strings.Join(s.log, "|"); got != want {
		t.Errorf("engine log %s, want %s", got, want)
	}
	if res.Records != 3 {
		t.Errorf("Records = %d, want 3", res.Records)
	}

	other := &scripted{answers: s.answers}
	res = runText(t, other, src, func(o *Options) { o.Engine = "postgres" })
	if len(res.Failures) != 2 || res.Failures[0].Line != 2 || res.Failures[1].Line != 6 {
		t.Errorf("with Engine=postgres the records at lines 2 and 6 must run and fail; got:\n%s", reports(res))
	}
	if got := strings.Join(other.log, "|"); got != "open|exec FAILS|exec FAILS|exec RUNS 3|close" {
		t.Errorf("engine log with Engine=postgres: %s", got)
	}
}

func TestRestartCrashCheckpoint(t *testing.T) {
	s := &scripted{}
	res := runText(t, s, `statement ok
INSERT 1

checkpoint

restart

statement ok
INSERT 2

crash
statement ok
FLUSH
`, func(o *Options) { o.Settings = map[string]string{"parallelism": "4"} })
	mustPass(t, res)
	want := "open|exec INSERT 1|checkpoint|close|open|exec INSERT 2|crash|open|exec FLUSH|close"
	if got := strings.Join(s.log, "|"); got != want {
		t.Errorf("engine log:\n%s\nwant:\n%s", got, want)
	}
	if len(s.dirs) != 3 || s.dirs[0] != s.dirs[1] || s.dirs[1] != s.dirs[2] {
		t.Fatalf("reopens must use the same state dir, got %q", s.dirs)
	}
	for i, st := range s.settings {
		if st["parallelism"] != "4" || len(st) != 1 {
			t.Errorf("open %d got settings %v", i+1, st)
		}
	}
	if _, err := os.Stat(s.dirs[0]); !os.IsNotExist(err) {
		t.Errorf("state dir %s not removed after the file: %v", s.dirs[0], err)
	}
	if res.Records != 6 {
		t.Errorf("Records = %d, want 6", res.Records)
	}

	fresh := &scripted{}
	mustPass(t, runText(t, fresh, "statement ok\nX\n"))
	if fresh.dirs[0] == s.dirs[0] {
		t.Error("each file must get a fresh state dir")
	}
}

func TestReopenFailureStopsFile(t *testing.T) {
	s := &scripted{failOpen: 2}
	res := runText(t, s, "statement ok\nA\n\ncrash\n\nstatement ok\nB\n")
	f := mustFailOnce(t, res)
	if f.Line != 4 || !strings.Contains(f.Err.Error(), "open engine on") || !strings.Contains(f.Err.Error(), "disk on fire") {
		t.Errorf("line %d: %v", f.Line, f.Err)
	}
	if got := strings.Join(s.log, "|"); got != "open|exec A|crash|open failed" {
		t.Errorf("engine log %s", got)
	}
}

func TestEnginePanicStopsFile(t *testing.T) {
	s := &scripted{answers: map[string]answer{"BOOM": {panic: true}}}
	res := runText(t, s, "statement ok\nA\n\nstatement ok\nBOOM\n\nstatement ok\nC\n")
	f := mustFailOnce(t, res)
	if f.Line != 4 || !strings.Contains(f.Err.Error(), "engine panicked") || !strings.Contains(f.Err.Error(), "boom") {
		t.Errorf("line %d: %v", f.Line, f.Err)
	}
	if got := strings.Join(s.log, "|"); got != "open|exec A|exec BOOM|crash" {
		t.Errorf("engine log %s", got)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s := &scripted{}
	path := writeSLT(t, t.TempDir(), "c.slt", "statement ok\nA\n")
	res := RunFile(ctx, path, Options{Opener: s.opener()})
	f := mustFailOnce(t, res)
	if !errors.Is(f.Err, context.Canceled) {
		t.Errorf("got %v", f.Err)
	}
}

func TestRunPaths(t *testing.T) {
	dir := t.TempDir()
	writeSLT(t, dir, "b/pass.slt", "statement ok\nA\n\nquery I\nSELECT one\n----\n1\n")
	writeSLT(t, dir, "a/deep/fail.slt", "statement ok\nA\n\nquery I\nSELECT one\n----\n2\n")
	writeSLT(t, dir, "a/notes.txt", "not a test")
	single := writeSLT(t, t.TempDir(), "single.slt", "statement ok\nA\n")
	s := &scripted{answers: map[string]answer{"SELECT one": {res: rows(1, vi(1))}}}
	var out bytes.Buffer
	ok, err := RunPaths(t.Context(), []string{dir, single}, Options{Opener: s.opener()}, &out)
	if err != nil || ok {
		t.Fatalf("RunPaths = %v, %v; want false, nil", ok, err)
	}
	fail := filepath.Join(dir, "a/deep/fail.slt")
	want := "FAIL " + fail + `
  ` + fail + `:4: query result mismatch
      SELECT one
      --- expected
      +++ actual
      @@ -1,1 +1,1 @@
      -2
      +1
PASS ` + filepath.Join(dir, "b/pass.slt") + ` (2 records)
PASS ` + single + ` (1 records)
FAIL: 1 of 3 files failed
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	ok, err = RunPaths(t.Context(), []string{single}, Options{Opener: s.opener()}, &out)
	if err != nil || !ok || !strings.HasSuffix(out.String(), "ok: 1 files passed\n") {
		t.Errorf("RunPaths = %v, %v:\n%s", ok, err, out.String())
	}
	if _, err := RunPaths(t.Context(), []string{filepath.Join(dir, "missing")}, Options{Opener: s.opener()}, &out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing path: err = %v", err)
	}
	if _, err := RunPaths(t.Context(), []string{t.TempDir()}, Options{Opener: s.opener()}, &out); err == nil {
		t.Error("a folder without .slt files must be an error")
	}
}

// md5Of returns the hex md5 of s, for hash expectations.
func md5Of(s string) string {
	return strings.TrimPrefix(hashLine([]string{strings.TrimSuffix(s, "\n")}), "1 values hashing to ")
}
