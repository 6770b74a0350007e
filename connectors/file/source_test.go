package file

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

var testSchema = types.Schema{
	{Name: "id", Type: types.Int},
	{Name: "name", Type: types.String},
	{Name: "ts", Type: types.Timestamp},
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, name, content string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// openSource creates and opens a file source over opts (connector and
// defaults filled in) at offsets.
func openSource(t *testing.T, opts map[string]string, stateDir string, offsets []int64) *source {
	t.Helper()
	full := map[string]string{"connector": "file"}
	for k, v := range opts {
		full[k] = v
	}
	src, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "src", Schema: testSchema, Options: full, StateDir: stateDir})
	if err != nil {
		t.Fatalf("new: %v", err)
	}
	if err := src.Open(context.Background(), offsets); err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	return src.(*source)
}

// result is what reading a source produced: rows as "p:text" and errors
// as "p@offset:raw".
type result struct {
	rows  []string
	errs  []string
	offs  []int64
	ended bool
}

// read reads up to maxReads batches of at most max rows; it stops at the
// end of a bounded source or at the first empty batch of a following one.
func read(t *testing.T, s *source, max, maxReads int, offs []int64) *result {
	t.Helper()
	r := &result{offs: append([]int64(nil), offs...)}
	if r.offs == nil {
		r.offs = make([]int64, s.Partitions())
	}
	for range maxReads {
		b, err := s.Read(context.Background(), max)
		if errors.Is(err, connectors.ErrEndOfInput) {
			r.ended = true
			return r
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if len(b.Rows) > max {
			t.Fatalf("read(%d) returned %d rows", max, len(b.Rows))
		}
		for _, row := range b.Rows {
			r.rows = append(r.rows, fmt.Sprintf("%d:%s", b.Partition, row))
		}
		for _, e := range b.Errors {
			r.errs = append(r.errs, fmt.Sprintf("%d@%d:%s", e.Partition, e.Offset, e.Raw))
		}
		if b.Next == r.offs[b.Partition] && len(b.Rows) == 0 {
			return r // nothing new
		}
		r.offs[b.Partition] = b.Next
	}
	return r
}

func jsonLine(id int, name string) string {
	return fmt.Sprintf(`{"id":%d,"name":%q,"ts":"2024-01-01 00:00:%02d"}`, id, name, id%60)
}

func TestSourceBounded(t *testing.T) {
	row := func(p, id int, name string) string {
		return fmt.Sprintf("%d:%d %s 2024-01-01 00:00:%02d", p, id, name, id%60)
	}
	tests := []struct {
		name  string
		files map[string]string // relative to the temp dir
		path  string            // relative to the temp dir
		opts  map[string]string
		parts int
		rows  []string
		errs  []string
	}{
		{
			name:  "one file",
			files: map[string]string{"a.jsonl": jsonLine(1, "x") + "\n" + jsonLine(2, "y") + "\n"},
			path:  "a.jsonl", parts: 1,
			rows: []string{row(0, 1, "x"), row(0, 2, "y")},
		},
		{
			name:  "crlf, blank lines and a last line without newline",
			files: map[string]string{"a.jsonl": jsonLine(1, "x") + "\r\n\r\n  \n" + jsonLine(2, "y")},
			path:  "a.jsonl", parts: 1,
			rows: []string{row(0, 1, "x"), row(0, 2, "y")},
		},
		{
			name: "glob: one partition per file in path order",
			files: map[string]string{
				"d/b.jsonl": jsonLine(2, "b") + "\n",
				"d/a.jsonl": jsonLine(1, "a") + "\n",
				"d/c.txt":   jsonLine(3, "c") + "\n",
			},
			path: "d/*.jsonl", parts: 2,
			rows: []string{row(0, 1, "a"), row(1, 2, "b")},
		},
		{
			name: "directory: regular files, hidden ones skipped",
			files: map[string]string{
				"d/b.jsonl":    jsonLine(2, "b") + "\n",
				"d/a.jsonl":    jsonLine(1, "a") + "\n",
				"d/.hidden":    "garbage\n",
				"d/sub/x.json": jsonLine(9, "x") + "\n",
			},
			path: "d", parts: 2,
			rows: []string{row(0, 1, "a"), row(1, 2, "b")},
		},
		{
			name:  "csv in column order",
			files: map[string]string{"a.csv": "1,x,2024-01-01 00:00:01\r\n2,\"y,z\",2024-01-01 00:00:02\n"},
			path:  "a.csv", opts: map[string]string{"format": "csv"}, parts: 1,
			rows: []string{row(0, 1, "x"), row(0, 2, "y,z")},
		},
		{
			name:  "csv with a header naming the columns",
			files: map[string]string{"a.csv": "ts,extra,ID,name\n2024-01-01 00:00:01,q,1,x\n2024-01-01 00:00:02,r,2,y\n"},
			path:  "a.csv", opts: map[string]string{"format": "csv", "csv.header": "true"}, parts: 1,
			rows: []string{row(0, 1, "x"), row(0, 2, "y")},
		},
		{
			name: "csv header per file",
			files: map[string]string{
				"d/1.csv": "id,name,ts\n1,x,2024-01-01 00:00:01\n",
				"d/2.csv": "name,ts,id\ny,2024-01-01 00:00:02,2\n",
			},
			path: "d", opts: map[string]string{"format": "csv", "csv.header": "true"}, parts: 2,
			rows: []string{row(0, 1, "x"), row(1, 2, "y")},
		},
		{
			name: "poison lines are reported with their byte offset",
			files: map[string]string{"a.jsonl": jsonLine(1, "x") + "\n" + "{bad\n" +
				`{"id":"abc","name":"n","ts":"2024-01-01 00:00:01"}` + "\n" +
				`{"id":3,"name":"n","ts":"yesterday"}` + "\n" + jsonLine(2, "y") + "\n"},
			path: "a.jsonl", parts: 1,
			rows: []string{row(0, 1, "x"), row(0, 2, "y")},
			errs: []string{"0@47:{bad", `0@52:{"id":"abc","name":"n","ts":"2024-01-01 00:00:01"}`, `0@103:{"id":3,"name":"n","ts":"yesterday"}`},
		},
		{
			name:  "csv with the wrong field count",
			files: map[string]string{"a.csv": "1,x,2024-01-01 00:00:01\n2,y\n3,z,2024-01-01 00:00:03\n"},
			path:  "a.csv", opts: map[string]string{"format": "csv"}, parts: 1,
			rows: []string{row(0, 1, "x"), row(0, 3, "z")},
			errs: []string{"0@24:2,y"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			opts := map[string]string{"path": filepath.Join(dir, tc.path)}
			for k, v := range tc.opts {
				opts[k] = v
			}
			for _, max := range []int{1, 2, 100} {
				s := openSource(t, opts, "", nil)
				if s.Partitions() != tc.parts {
					t.Fatalf("partitions = %d, want %d", s.Partitions(), tc.parts)
				}
				r := read(t, s, max, 100, nil)
				if !r.ended {
					t.Fatalf("max %d: bounded source did not end", max)
				}
				if got, want := sorted(r.rows), sorted(tc.rows); got != want {
					t.Fatalf("max %d: rows\n%s\nwant\n%s", max, got, want)
				}
				if got, want := strings.Join(r.errs, "\n"), strings.Join(tc.errs, "\n"); got != want {
					t.Fatalf("max %d: errors\n%s\nwant\n%s", max, got, want)
				}
			}
		})
	}
}

// sorted joins lines after sorting them (partitions interleave freely).
func sorted(lines []string) string {
	s := append([]string(nil), lines...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return strings.Join(s, "\n")
}

func TestSourceOptionErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), "")
	tests := []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{}, "needs option 'path'"},
		{map[string]string{"path": filepath.Join(dir, "a.jsonl"), "fromat": "csv"}, "did you mean 'format'"},
		{map[string]string{"path": filepath.Join(dir, "a.jsonl"), "format": "xml"}, "must be one of"},
		{map[string]string{"path": filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{map[string]string{"path": filepath.Join(dir, "*.csv")}, "matches no file"},
		{map[string]string{"path": filepath.Join(dir, "a.jsonl"), "follow": "true", "poll_interval": "0"}, "must be positive"},
	}
	for _, tc := range tests {
		opts := map[string]string{"connector": "file"}
		for k, v := range tc.opts {
			opts[k] = v
		}
		_, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "s", Schema: testSchema, Options: opts})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}

// TestSourceResumeAtEveryOffset reads one row per batch, reopens a fresh
// source at every offset it reported and checks the rest is exactly what
// follows: no line repeated or lost, including past CRLF, blank and poison
// lines and (for CSV) the header.
func TestSourceResumeAtEveryOffset(t *testing.T) {
	tests := []struct {
		name    string
		content string
		opts    map[string]string
		rows    int
	}{
		{"json", jsonLine(1, "a") + "\r\n\n{bad\n" + jsonLine(2, "b") + "\n" + jsonLine(3, "c") + "\n" + jsonLine(4, "d"), nil, 4},
		{"csv header", "name,id,ts\r\na,1,2024-01-01 00:00:01\r\n\r\nb,2,2024-01-01 00:00:02\nc,x,2024-01-01\nd,4,2024-01-01 00:00:04\n",
			map[string]string{"format": "csv", "csv.header": "true"}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), "in")
			writeFile(t, name, tc.content)
			opts := map[string]string{"path": name}
			for k, v := range tc.opts {
				opts[k] = v
			}
			full := read(t, openSource(t, opts, "", nil), 1000, 10, nil)
			// Walk with one row per Read, recording the offsets.
			s := openSource(t, opts, "", nil)
			var offs []int64
			var seen []string
			var seenAt []int // rows seen up to each offset
			for {
				b, err := s.Read(context.Background(), 1)
				if errors.Is(err, connectors.ErrEndOfInput) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, row := range b.Rows {
					seen = append(seen, fmt.Sprintf("0:%s", row))
				}
				offs = append(offs, b.Next)
				seenAt = append(seenAt, len(seen))
			}
			if strings.Join(seen, "\n") != strings.Join(full.rows, "\n") || len(full.rows) != tc.rows {
				t.Fatalf("row by row read %q, whole read %q", seen, full.rows)
			}
			for i, off := range offs {
				rest := read(t, openSource(t, opts, "", []int64{off}), 1000, 10, []int64{off})
				done := seenAt[i]
				if i > 0 && offs[i-1] >= off {
					t.Fatalf("offsets do not increase: %v", offs)
				}
				if got, want := strings.Join(rest.rows, "\n"), strings.Join(seen[done:], "\n"); got != want {
					t.Fatalf("resume at %d: rows %q, want %q", off, got, want)
				}
			}
		})
	}
}

func TestSourceOpenRejectsBadOffsets(t *testing.T) {
	name := filepath.Join(t.TempDir(), "a.jsonl")
	writeFile(t, name, jsonLine(1, "a")+"\n")
	s, err := SourceFactory().New(context.Background(), connectors.SourceSpec{Name: "s", Schema: testSchema, Options: map[string]string{"connector": "file", "path": name}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, offs := range [][]int64{{1, 2}, {offsetOf(1, 0)}} {
		if err := s.Open(context.Background(), offs); err == nil {
			t.Errorf("Open(%v) accepted offsets of another input", offs)
		}
	}
	if err := s.Open(context.Background(), []int64{1000}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(context.Background(), 10); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("offset past the end: %v", err)
	}
}

// rowText is how read renders a testSchema row of partition 0 for id.
func rowText(id int, name string) string {
	return fmt.Sprintf("0:%d %s 2024-01-01 00:00:%02d", id, name, id%60)
}

func TestSourceFollowFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "later.jsonl")
	s := openSource(t, map[string]string{"path": name, "follow": "true", "poll_interval": "5ms"}, "", nil)
	steps := []struct {
		add  string
		want []string
	}{
		{"", nil}, // the file does not exist yet
		{jsonLine(1, "a") + "\n" + jsonLine(2, "b")[:10], []string{rowText(1, "a")}},
		{jsonLine(2, "b")[10:] + "\r", nil}, // still no newline
		{"\n", []string{rowText(2, "b")}},
		{jsonLine(3, "c") + "\n{oops\n", []string{rowText(3, "c")}},
	}
	var offs []int64
	for i, st := range steps {
		if st.add != "" {
			appendFile(t, name, st.add)
		}
		r := read(t, s, 100, 10, offs)
		if r.ended {
			t.Fatalf("step %d: a following source ended", i)
		}
		if got, want := strings.Join(r.rows, "|"), strings.Join(st.want, "|"); got != want {
			t.Fatalf("step %d: rows %q, want %q", i, got, want)
		}
		offs = r.offs
	}
	fi, _ := os.Stat(name)
	if offs[0] != fi.Size() {
		t.Fatalf("offset %d after reading everything, file has %d bytes", offs[0], fi.Size())
	}
}

// TestSourceFollowGlob follows a directory of rotated files: bytes appended
// to the current file, a partial last line of a file that was rotated
// away, new files (including one sorting before the current one), and a
// restart at the stored offset that continues in the same file order.
func TestSourceFollowGlob(t *testing.T) {
	for _, withState := range []bool{true, false} {
		t.Run(fmt.Sprintf("state dir %v", withState), func(t *testing.T) {
			dir := t.TempDir()
			state := ""
			if withState {
				state = t.TempDir()
			}
			f := func(n string) string { return filepath.Join(dir, n) }
			writeFile(t, f("2.jsonl"), jsonLine(2, "b")+"\n")
			writeFile(t, f("1.jsonl"), jsonLine(1, "a")+"\n")
			writeFile(t, f("skip.csv"), "not matched\n")
			opts := map[string]string{"path": f("*.jsonl"), "follow": "true", "poll_interval": "1ms"}
			s := openSource(t, opts, state, nil)
			if s.Partitions() != 1 {
				t.Fatalf("partitions = %d, want 1", s.Partitions())
			}
			var offs []int64
			expect := func(what string, want ...string) {
				t.Helper()
				r := read(t, s, 100, 20, offs)
				if got := strings.Join(r.rows, "|"); got != strings.Join(want, "|") {
					t.Fatalf("%s: rows %q, want %q", what, got, want)
				}
				offs = r.offs
			}
			expect("files present at the start", rowText(1, "a"), rowText(2, "b"))
			appendFile(t, f("2.jsonl"), jsonLine(3, "c")+"\n"+jsonLine(4, "d"))
			expect("appended to the current file; partial line waits", rowText(3, "c"))
			writeFile(t, f("3.jsonl"), jsonLine(5, "e")+"\n")
			expect("rotated: the old file's partial last line, then the new file", rowText(4, "d"), rowText(5, "e"))
			if !withState {
				// Without a manifest the order is the sorted listing; late
				// files must sort after earlier ones.
				writeFile(t, f("4.jsonl"), jsonLine(6, "f")+"\n")
				expect("a new file", rowText(6, "f"))
				s.Close()
				writeFile(t, f("5.jsonl"), jsonLine(7, "g")+"\n")
				s = openSource(t, opts, state, offs)
				expect("after a restart", rowText(7, "g"))
				return
			}
			writeFile(t, f("0.jsonl"), jsonLine(6, "f")+"\n")
			expect("a late file that sorts first", rowText(6, "f"))
			ord, _ := splitOffset(offs[0])
			if ord != 3 {
				t.Fatalf("the late file has ordinal %d, want 3 (manifest order)", ord)
			}
			s.Close()
			appendFile(t, f("0.jsonl"), jsonLine(7, "g")+"\n")
			writeFile(t, f("00.jsonl"), jsonLine(8, "h")+"\n")
			s = openSource(t, opts, state, offs)
			expect("after a restart: rest of the late file, then a newer one", rowText(7, "g"), rowText(8, "h"))
			// From the start, the manifest is rebuilt in sorted order.
			s.Close()
			s = openSource(t, opts, state, nil)
			offs = nil
			expect("from the start", rowText(6, "f"), rowText(7, "g"), rowText(8, "h"), rowText(1, "a"),
				rowText(2, "b"), rowText(3, "c"), rowText(4, "d"), rowText(5, "e"))
		})
	}
}

// TestSourceFollowSkipsVanishedFiles: a rotated file deleted before the
// source reached it is skipped.
func TestSourceFollowSkipsVanishedFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "1.jsonl"), jsonLine(1, "a")+"\n")
	writeFile(t, filepath.Join(dir, "2.jsonl"), jsonLine(2, "b")+"\n")
	writeFile(t, filepath.Join(dir, "3.jsonl"), jsonLine(3, "c")+"\n")
	opts := map[string]string{"path": dir, "follow": "true", "poll_interval": "1ms"}
	s := openSource(t, opts, t.TempDir(), nil)
	r := read(t, s, 1, 1, nil)
	if len(r.rows) != 1 {
		t.Fatalf("rows %q", r.rows)
	}
	if err := os.Remove(filepath.Join(dir, "2.jsonl")); err != nil {
		t.Fatal(err)
	}
	r = read(t, s, 100, 10, r.offs)
	if got := strings.Join(r.rows, "|"); got != rowText(3, "c") {
		t.Fatalf("rows %q, want only the third file's", got)
	}
}

// TestSourceManyFiles reads a directory of more files than the source
// keeps open, in small batches, so files are closed and reopened at their
// offsets between turns.
func TestSourceManyFiles(t *testing.T) {
	dir := t.TempDir()
	n := maxOpen + 8
	var want []string
	for i := range n {
		var b strings.Builder
		for j := range 3 {
			id := i*10 + j
			b.WriteString(jsonLine(id, "x") + "\n")
			want = append(want, fmt.Sprintf("%d:%d x 2024-01-01 00:00:%02d", i, id, id%60))
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%03d.jsonl", i)), b.String())
	}
	s := openSource(t, map[string]string{"path": dir}, "", nil)
	r := read(t, s, 1, 10*n, nil)
	if !r.ended {
		t.Fatal("did not end")
	}
	if got := sorted(r.rows); got != sorted(want) {
		t.Fatalf("rows:\n%s\nwant\n%s", got, sorted(want))
	}
	open := 0
	for _, p := range s.parts {
		if p.f != nil {
			open++
		}
	}
	if open > maxOpen {
		t.Fatalf("%d files open", open)
	}
}

// TestSourceFollowDetectsTruncationAndReplacement: a followed file that
// shrinks below the read position, or is replaced by a new file of the
// same name, stops the source with an error instead of a silent stall.
func TestSourceFollowDetectsTruncationAndReplacement(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
		want   string
	}{
		{"truncated", func(t *testing.T, path string) {
			if err := os.Truncate(path, 3); err != nil {
				t.Fatal(err)
			}
		}, "shrank"},
		{"replaced", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, jsonLine(9, "new")+"\n")
		}, "replaced"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.jsonl")
			writeFile(t, path, jsonLine(1, "a")+"\n")
			s := openSource(t, map[string]string{"path": path, "follow": "true", "poll_interval": "1ms"}, "", nil)
			if r := read(t, s, 10, 5, nil); len(r.rows) != 1 {
				t.Fatalf("rows %q", r.rows)
			}
			tc.change(t, path)
			var err error
			for range 20 {
				if _, err = s.Read(context.Background(), 10); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestSourcePoisonRunIsBatched: poison lines count toward a batch's size,
// so a long run of garbage comes in bounded batches.
func TestSourcePoisonRunIsBatched(t *testing.T) {
	name := filepath.Join(t.TempDir(), "bad.jsonl")
	writeFile(t, name, strings.Repeat("garbage\n", 10)+jsonLine(1, "a")+"\n")
	s := openSource(t, map[string]string{"path": name}, "", nil)
	errs, rows := 0, 0
	for {
		b, err := s.Read(context.Background(), 3)
		if errors.Is(err, connectors.ErrEndOfInput) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Rows)+len(b.Errors) > 3 {
			t.Fatalf("batch of %d rows and %d errors for max 3", len(b.Rows), len(b.Errors))
		}
		errs, rows = errs+len(b.Errors), rows+len(b.Rows)
	}
	if errs != 10 || rows != 1 {
		t.Fatalf("%d errors, %d rows", errs, rows)
	}
}
