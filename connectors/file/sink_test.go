package file

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
)

// readChangelog decodes every line of a sink file into its op and row.
func readChangelog(t *testing.T, path string, schema types.Schema) []connectors.Change {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := format.NewDecoder("json", schema, connectors.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	var out []connectors.Change
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("sink line %q is not JSON: %v", sc.Text(), err)
		}
		op := connectors.Upsert
		switch m[OpField] {
		case "upsert":
		case "delete":
			op = connectors.Delete
		default:
			t.Fatalf("sink line %q has %s = %v", sc.Text(), OpField, m[OpField])
		}
		row, err := dec.Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("sink line %q does not decode: %v", sc.Text(), err)
		}
		out = append(out, connectors.Change{Op: op, Row: row})
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("sink file does not end with a newline: %q", b)
	}
	return out
}

// applyChangelog applies a sink file's changes by key (column 0).
func applyChangelog(t *testing.T, path string, schema types.Schema) []types.Row {
	t.Helper()
	byKey := map[string]types.Row{}
	var order []string
	for _, c := range readChangelog(t, path, schema) {
		k := c.Row[0].String()
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		if c.Op == connectors.Delete {
			byKey[k] = nil
			continue
		}
		byKey[k] = c.Row
	}
	var out []types.Row
	for _, k := range order {
		if byKey[k] != nil {
			out = append(out, byKey[k])
		}
	}
	return out
}

func newTestSink(t *testing.T, path, delivery string) connectors.Sink {
	t.Helper()
	s, err := SinkFactory().New(connectors.SinkSpec{Name: "out", Schema: testSchema, Key: []int{0},
		Options: map[string]string{"connector": "file", "path": path, "delivery": delivery}})
	if err != nil {
		t.Fatalf("new sink: %v", err)
	}
	return s
}

func change(op connectors.Op, id int64, name string) connectors.Change {
	return connectors.Change{Op: op, Row: types.Row{types.IntValue(id), types.StringValue(name), types.TimestampValue(1704067200_000000 + id)}}
}

func TestSinkLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "dir", "out.jsonl")
	s := newTestSink(t, path, "at_least_once")
	ctx := context.Background()
	if err := s.Write(ctx, []connectors.Change{change(connectors.Upsert, 1, `a "quoted"`), change(connectors.Delete, 2, "b")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PreCommit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := `{"id":1,"name":"a \"quoted\"","ts":"2024-01-01 00:00:00.000001","__op":"upsert"}` + "\n" +
		`{"id":2,"name":"b","ts":"2024-01-01 00:00:00.000002","__op":"delete"}` + "\n"
	if string(b) != want {
		t.Fatalf("file:\n%s\nwant\n%s", b, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := s.(connectors.Delivery).Delivery(); !strings.HasPrefix(d, "at-least-once") {
		t.Fatalf("delivery %q", d)
	}
	if _, ok := s.(connectors.Recoverer); ok {
		t.Fatal("an at-least-once sink implements Recoverer")
	}
}

func TestSinkRejectsOpColumn(t *testing.T) {
	_, err := SinkFactory().New(connectors.SinkSpec{Name: "out", Schema: types.Schema{{Name: "__OP", Type: types.Int}},
		Options: map[string]string{"connector": "file", "path": filepath.Join(t.TempDir(), "x")}})
	if err == nil || !strings.Contains(err.Error(), "clashes") {
		t.Fatalf("error %v", err)
	}
}

// TestSinkExactlyOnceCrash: a crash between PreCommit and Commit leaves
// nothing in the file; Recover appends once however often it runs; a torn
// append (bytes written, progress not) is cut on open.
func TestSinkExactlyOnceCrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	ctx := context.Background()
	s := newTestSink(t, path, "exactly_once")
	if d := s.(connectors.Delivery).Delivery(); !strings.HasPrefix(d, "exactly-once") {
		t.Fatalf("delivery %q", d)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Write(ctx, []connectors.Change{change(connectors.Upsert, 1, "a"), change(connectors.Upsert, 1, "a2")}))
	if _, err := s.PreCommit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if n := len(readChangelog(t, path, testSchema)); n != 0 {
		t.Fatalf("%d lines visible before Commit", n)
	}
	must(s.Commit(ctx, 1))
	if got := readChangelog(t, path, testSchema); len(got) != 1 || got[0].Row[1].S != "a2" {
		t.Fatalf("after commit 1 (collapsed per key): %v", got)
	}
	must(s.Write(ctx, []connectors.Change{change(connectors.Upsert, 2, "b"), change(connectors.Delete, 1, "")}))
	staged, err := s.PreCommit(ctx, 2)
	must(err)
	must(s.Close()) // crash: Commit(2) never runs
	committed, _ := os.ReadFile(path)

	// A torn append: part of checkpoint 2's bytes reached the file.
	appendFile(t, path, `{"id":2,"na`)
	for i := range 2 {
		s = newTestSink(t, path, "exactly_once")
		if b, _ := os.ReadFile(path); i == 0 && string(b) != string(committed) {
			t.Fatalf("open %d: the torn tail was not cut: %q", i, b)
		}
		must(s.(connectors.Recoverer).Recover(ctx, 2, staged))
		rows := applyChangelog(t, path, testSchema)
		if len(rows) != 1 || rows[0][0].I != 2 || len(readChangelog(t, path, testSchema)) != 3 {
			t.Fatalf("after recovery %d: %v", i, readChangelog(t, path, testSchema))
		}
		must(s.Close())
	}
	// Later checkpoints go on after the recovered one.
	s = newTestSink(t, path, "exactly_once")
	must(s.Write(ctx, []connectors.Change{change(connectors.Upsert, 3, "c")}))
	_, err = s.PreCommit(ctx, 3)
	must(err)
	must(s.Commit(ctx, 3))
	must(s.Close())
	if n := len(readChangelog(t, path, testSchema)); n != 4 {
		t.Fatalf("%d lines after checkpoint 3, want 4", n)
	}
	b, _ := os.ReadFile(path + ".progress")
	var p progress
	must(json.Unmarshal(b, &p))
	if fi, _ := os.Stat(path); p.ID != 3 || p.Size != fi.Size() {
		t.Fatalf("progress %+v, file size %d", p, fi.Size())
	}
}

// TestSinkExactlyOnceKeepsExistingFile: a sink pointed at an existing
// file without a progress file appends after its contents.
func TestSinkExactlyOnceKeepsExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	writeFile(t, path, jsonLine(9, "old")+"\n")
	ctx := context.Background()
	s := newTestSink(t, path, "exactly_once")
	if err := s.Write(ctx, []connectors.Change{change(connectors.Upsert, 1, "a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PreCommit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), jsonLine(9, "old")+"\n{\"id\":1,") {
		t.Fatalf("file %q", b)
	}
}

// TestSinkExactlyOnceShrunkFile: a data file shorter than its progress
// says is an error, not silent data loss.
func TestSinkExactlyOnceShrunkFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	ctx := context.Background()
	s := newTestSink(t, path, "exactly_once")
	_ = s.Write(ctx, []connectors.Change{change(connectors.Upsert, 1, "a")})
	_, _ = s.PreCommit(ctx, 1)
	if err := s.Commit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	s.Close()
	writeFile(t, path, "")
	_, err := SinkFactory().New(connectors.SinkSpec{Name: "out", Schema: testSchema, Key: []int{0},
		Options: map[string]string{"connector": "file", "path": path, "delivery": "exactly_once"}})
	if err == nil || !strings.Contains(err.Error(), "committed") {
		t.Fatalf("error %v", err)
	}
}

// TestSinkExactlyOnceCommitRetries: a commit whose progress update keeps
// failing returns an error after its retries and leaves the progress
// where it was; once the cause is gone the next Commit writes the
// checkpoint exactly once.
func TestSinkExactlyOnceCommitRetries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	ctx := context.Background()
	es := newTestSink(t, path, "exactly_once")
	es.(exactSink).retry = time.Millisecond
	if err := es.Write(ctx, []connectors.Change{change(connectors.Upsert, 1, "a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := es.PreCommit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// A directory where the progress file's temp file goes makes every
	// progress update fail.
	block := path + ".progress.tmp"
	if err := os.Mkdir(block, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := es.Commit(ctx, 1); err == nil || !strings.Contains(err.Error(), "checkpoint 1") {
		t.Fatalf("commit with a broken progress file: %v", err)
	}
	if err := os.Remove(block); err != nil {
		t.Fatal(err)
	}
	if err := es.Commit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := es.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(readChangelog(t, path, testSchema)); n != 1 {
		t.Fatalf("%d lines, want 1", n)
	}
}
