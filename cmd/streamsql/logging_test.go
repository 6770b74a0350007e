package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// dsnText is a Postgres DSN in both of its forms, with the password
// "hunter2" the log must never show.
type dsnText struct{}

func (dsnText) String() string { return "host=db password=hunter2 dbname=app" }

// TestLogRedactsPasswords: whatever carries a DSN into a record (the
// message, a string field, an error, a Stringer, a field in a group, a
// logger's With fields), the text and JSON output show *** instead of
// its password, and keep the rest.
func TestLogRedactsPasswords(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var buf bytes.Buffer
		l, err := logFlags{level: "debug", format: format}.logger(&buf)
		if err != nil {
			t.Fatal(err)
		}
		url := "postgres://app:hunter2@db:5432/app"
		wrapped := fmt.Errorf("sink pg: connect %s: %w", url, errors.New("refused"))
		l.With("dsn", url).Debug("postgres sink unreachable: "+url, "error", wrapped, "options", dsnText{},
			slog.Group("sink", "dsn", "password='hunter2'"), "rows", 3)
		out := buf.String()
		if strings.Contains(out, "hunter2") {
			t.Fatalf("%s log shows the password:\n%s", format, out)
		}
		for _, want := range []string{"postgres://app:***@db:5432/app", "password=***", "refused", "rows"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s log lacks %q:\n%s", format, want, out)
			}
		}
		if format == "json" {
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("json log is not one object: %v\n%s", err, out)
			}
			if rec["level"] != "DEBUG" || rec["rows"] != 3.0 {
				t.Errorf("json record: level %v rows %v, want DEBUG and 3", rec["level"], rec["rows"])
			}
		}
	}
}

// TestLogLevel: records below --log-level are not written; a level or
// format the flags do not know is a command-line mistake (exit 2).
func TestLogLevel(t *testing.T) {
	var buf bytes.Buffer
	l, err := logFlags{level: "WARN", format: "text"}.logger(&buf)
	if err != nil {
		t.Fatal(err)
	}
	l.Info("hidden")
	l.Warn("shown", "k", 1)
	if out := buf.String(); strings.Contains(out, "hidden") || !strings.Contains(out, `level=WARN msg=shown k=1`) {
		t.Fatalf("warn-level log:\n%s", out)
	}
	for _, args := range [][]string{{"--log-level", "verbose", "version"}, {"--log-format", "xml", "version"}} {
		var stderr bytes.Buffer
		if code := execute(rootCmd(), args, &stderr); code != 2 || !strings.Contains(stderr.String(), "ERROR: --log-") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the flag named", args, code, stderr.String())
		}
	}
}
