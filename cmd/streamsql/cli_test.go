package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// runCLI runs the built binary with args and returns its exit code,
// stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(streamsqlBinary(t), args...)
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("streamsql %s: %v", strings.Join(args, " "), err)
	return 0, "", ""
}

// TestCLIErrorsSayWhatWentWrong: every failure prints one ERROR line on
// stderr; a mistake in the command line also prints the command's usage
// and exits 2, a command that fails exits 1.
func TestCLIErrorsSayWhatWentWrong(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.sql")
	comments := filepath.Join(dir, "comments.sql")
	set := filepath.Join(dir, "set.sql")
	for f, text := range map[string]string{empty: "", comments: "-- a pipeline, some day\n/* not yet */\n", set: "SET strict = on;\n"} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	typo, emptyState := filepath.Join(dir, "TYPO"), filepath.Join(dir, "emptystate")
	if err := os.Mkdir(emptyState, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		code  int
		line  string // the first line of stderr
		usage string // "" when no usage may follow
	}{
		{[]string{"nosuch"}, 2, `ERROR: unknown command "nosuch" for "streamsql"`, "streamsql [command]"},
		{[]string{"rn", "x.sql"}, 2, `ERROR: unknown command "rn" for "streamsql" (did you mean run?)`, "streamsql [command]"},
		{[]string{"dev", "nosuch"}, 2, `ERROR: unknown command "nosuch" for "streamsql dev"`, "streamsql dev [flags]"},
		{[]string{"run"}, 2, "ERROR: run needs one FILE.sql argument", "streamsql run FILE.sql [flags]"},
		{[]string{"run", "--bogus", "x.sql"}, 2, "ERROR: unknown flag: --bogus", "streamsql run FILE.sql [flags]"},
		{[]string{"explain", "a.sql", "b.sql"}, 2, "ERROR: explain takes one FILE.sql argument, got 2 arguments: a.sql b.sql", "streamsql explain FILE.sql [flags]"},
		{[]string{"explain", "/nonexistent.sql"}, 1, "ERROR: open /nonexistent.sql: no such file or directory", ""},
		{[]string{"check", "/nonexistent.sql"}, 1, "ERROR: open /nonexistent.sql: no such file or directory", ""},
		{[]string{"run", "/nonexistent.sql"}, 1, "ERROR: open /nonexistent.sql: no such file or directory", ""},
		{[]string{"run", "--state-dir", filepath.Join(dir, "state"), empty}, 1, "ERROR: " + empty + " holds no statements", ""},
		{[]string{"check", comments}, 1, "ERROR: " + comments + " holds no statements", ""},
		{[]string{"run", "--state-dir", filepath.Join(dir, "state"), "--memory-limit", "lots", set}, 1, `ERROR: invalid value for parameter "memory_limit": "lots" (want a size such as '512MB' or '2GB' (0: no limit))`, ""},
		{[]string{"explain", comments}, 1, "ERROR: " + comments + " holds no statements", ""},
		{[]string{"query", "--state-dir", typo, "SELECT 1"}, 1, "ERROR: state directory " + typo + " does not exist (give the --state-dir of a pipeline that ran)", ""},
		{[]string{"query", "--state-dir", emptyState, "SELECT 1"}, 1, "ERROR: state directory " + emptyState + " is empty (give the --state-dir of a pipeline that ran)", ""},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		name := strings.Join(tc.args, " ")
		first, rest, _ := strings.Cut(stderr, "\n")
		if code != tc.code || first != tc.line || stdout != "" {
			t.Errorf("streamsql %s: exit %d, stderr %q, stdout %q; want exit %d, first line %q, no stdout", name, code, stderr, stdout, tc.code, tc.line)
		}
		if tc.usage == "" && rest != "" {
			t.Errorf("streamsql %s: more than one line on stderr: %q", name, stderr)
		}
		if tc.usage != "" && !strings.HasPrefix(rest, "Usage:\n  "+tc.usage) {
			t.Errorf("streamsql %s: no usage of %q after the error: %q", name, tc.usage, stderr)
		}
	}
	if _, err := os.Stat(typo); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("query --state-dir TYPO created the directory (stat: %v)", err)
	}
}

// TestVersion: `version` and `--version` print the version line of the
// binary's build information, which `go version -m` reads independently.
func TestVersion(t *testing.T) {
	code, byCmd, stderr := runCLI(t, "version")
	if code != 0 || stderr != "" {
		t.Fatalf("version: exit %d, stderr %q", code, stderr)
	}
	code, byFlag, stderr := runCLI(t, "--version")
	if code != 0 || stderr != "" || byFlag != byCmd {
		t.Fatalf("--version: exit %d, stdout %q (version printed %q), stderr %q", code, byFlag, byCmd, stderr)
	}
	out, err := exec.Command("go", "version", "-m", streamsqlBinary(t)).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	want := "streamsql (devel) "
	rev := ""
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod" && f[1] == "github.com/streamsql/streamsql":
			want = "streamsql " + f[2] + " "
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			rev = strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	if rev != "" {
		want += "revision " + rev
	} else {
		want += "revision unknown"
	}
	if !strings.HasPrefix(byCmd, want) || !strings.HasSuffix(byCmd, " go"+strings.TrimPrefix(strings.Fields(string(out))[1], "go")+"\n") {
		t.Fatalf("version printed %q, want %q... and the Go version (go version -m says:\n%s)", byCmd, want, out)
	}
}

// TestVersionString: the revision, its time and a dirty tree are shown
// when the go command stamped them.
func TestVersionString(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/streamsql/streamsql", Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "39f81857bf81"}, {Key: "vcs.time", Value: "2026-12-01T15:21:52Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	if got, want := versionString(bi, true), "streamsql v0.3.0 revision 39f81857bf81 (2026-12-01T15:21:52Z) modified go1.26.0"; got != want {
		t.Errorf("versionString = %q, want %q", got, want)
	}
	bi.Settings, bi.Main.Version = nil, ""
	if got, want := versionString(bi, true), "streamsql (devel) revision unknown go1.26.0"; got != want {
		t.Errorf("versionString without VCS = %q, want %q", got, want)
	}
}

// TestRunPrintsRestore: a run on a state directory that holds a pipeline
// prints one stderr line with the restored state's size and time; a fresh
// run prints none.
func TestRunPrintsRestore(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.sql")
	src := `CREATE SOURCE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
  date_time TIMESTAMP, extra VARCHAR) WITH (connector = 'datagen', table = 'bid', events = 1000, seed = 1);
CREATE MATERIALIZED VIEW b AS SELECT auction, price FROM bid;`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "state")
	code, _, stderr := runCLI(t, "run", "--state-dir", st, file)
	if code != 0 || strings.Contains(stderr, "restored") {
		t.Fatalf("first run: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "run", "--state-dir", st, file)
	if code != 0 || !strings.Contains(stderr, "restored ") || !strings.Contains(stderr, " MB of state in ") {
		t.Fatalf("restart: exit %d, stderr %q; want a 'restored … MB of state in … s' line", code, stderr)
	}
}
