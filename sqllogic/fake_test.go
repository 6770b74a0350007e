package sqllogic

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// answer is what the scripted engine returns for one SQL text.
type answer struct {
	res   *Result
	err   error
	panic bool
}

// scripted is a test double for the engine: it answers each SQL text from
// a table (unknown SQL succeeds with no rows) and logs every call, so the
// tests check the runner's own logic.
type scripted struct {
	answers  map[string]answer
	failOpen int // the n-th open (1-based) fails; 0 never

	mu       sync.Mutex
	log      []string
	dirs     []string
	settings []map[string]string
}

func (s *scripted) record(event string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, event)
}

func (s *scripted) opener() Opener {
	return func(dir string, settings map[string]string) (DB, error) {
		s.mu.Lock()
		s.dirs = append(s.dirs, dir)
		s.settings = append(s.settings, maps.Clone(settings))
		n := len(s.dirs)
		s.mu.Unlock()
		if n == s.failOpen {
			s.record("open failed")
			return nil, fmt.Errorf("disk on fire")
		}
		s.record("open")
		return &scriptDB{s: s}, nil
	}
}

type scriptDB struct{ s *scripted }

func (d *scriptDB) Exec(_ context.Context, sql string) (*Result, error) {
	d.s.record("exec " + sql)
	a := d.s.answers[sql]
	if a.panic {
		panic("boom")
	}
	return a.res, a.err
}

func (d *scriptDB) Close() error      { d.s.record("close"); return nil }
func (d *scriptDB) Crash() error      { d.s.record("crash"); return nil }
func (d *scriptDB) Checkpoint() error { d.s.record("checkpoint"); return nil }

// rows builds a Result of ncols columns (named c1, c2, ...) from vals.
func rows(ncols int, vals ...types.Value) *Result {
	res := &Result{}
	for i := range ncols {
		res.Schema = append(res.Schema, types.Column{Name: fmt.Sprintf("c%d", i+1)})
	}
	for i := 0; i < len(vals); i += ncols {
		res.Rows = append(res.Rows, types.Row(vals[i:i+ncols]))
	}
	return res
}

var (
	vi = types.IntValue
	vs = types.StringValue
	vf = types.FloatValue
	vb = types.BoolValue
)

// writeSLT writes text to dir/name, creating folders, and returns the path.
func writeSLT(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runText runs text as the file test.slt against s.
func runText(t *testing.T, s *scripted, text string, opts ...func(*Options)) FileResult {
	t.Helper()
	o := Options{Opener: s.opener()}
	for _, f := range opts {
		f(&o)
	}
	return RunFile(t.Context(), writeSLT(t, t.TempDir(), "test.slt", text), o)
}

// reports joins the failure reports of res for error messages.
func reports(res FileResult) string {
	var b []string
	for _, f := range res.Failures {
		b = append(b, f.Report(res.Path))
	}
	return strings.Join(b, "\n")
}

// mustPass fails the test when res has failures.
func mustPass(t *testing.T, res FileResult) {
	t.Helper()
	if !res.Passed || len(res.Failures) > 0 {
		t.Fatalf("want pass, got failures:\n%s", reports(res))
	}
}

// mustFailOnce returns the single failure of res.
func mustFailOnce(t *testing.T, res FileResult) Failure {
	t.Helper()
	if res.Passed || len(res.Failures) != 1 {
		t.Fatalf("want exactly one failure, got passed=%v:\n%s", res.Passed, reports(res))
	}
	return res.Failures[0]
}
