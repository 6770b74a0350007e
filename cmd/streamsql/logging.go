package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/streamsql/streamsql/engine"
)

// logger is the process's one logger: the engine, the wire server and
// the connectors log through it. The root command replaces it from
// --log-level and --log-format before any command runs; the default (a
// text handler at info) serves code that runs without the root command.
var logger = newLogger(stderrLog, slog.LevelInfo, "text")

// logFlags are the root command's --log-level and --log-format.
type logFlags struct{ level, format string }

// levels are the --log-level values.
var levels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// logger builds the logger the flags describe, writing to w.
func (f logFlags) logger(w io.Writer) (*slog.Logger, error) {
	level, ok := levels[strings.ToLower(f.level)]
	if !ok {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", f.level)
	}
	format := strings.ToLower(f.format)
	if format != "text" && format != "json" {
		return nil, fmt.Errorf("--log-format %q: want text or json", f.format)
	}
	return newLogger(w, level, format), nil
}

// newLogger returns a text or JSON logger at level whose records have
// their passwords redacted.
func newLogger(w io.Writer, level slog.Level, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: redactAttr}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// redactAttr hides passwords (engine.Redact) in every string a record
// carries: its message, string fields, and errors and other values shown
// as text. Numbers, durations and times pass unchanged.
func redactAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey) {
		return a
	}
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(a.Key, engine.Redact(a.Value.String()))
	case slog.KindAny:
		switch v := a.Value.Any().(type) {
		case error:
			return slog.String(a.Key, engine.Redact(v.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, engine.Redact(v.String()))
		case []byte:
			return slog.String(a.Key, engine.Redact(string(v)))
		default:
			return slog.String(a.Key, engine.Redact(fmt.Sprint(v)))
		}
	}
	return a
}

// stderrLog is where logger writes: stderr, erasing run's status line
// first (see statusLine) while one is shown.
var stderrLog = &logDest{w: os.Stderr}

// logDest is a log destination that erases a status line before each
// record.
type logDest struct {
	mu     sync.Mutex
	w      io.Writer
	status *statusLine
}

func (d *logDest) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.status != nil {
		d.status.clear()
	}
	return d.w.Write(p)
}

// under makes d erase s before each record until the returned func runs.
func (d *logDest) under(s *statusLine) (restore func()) {
	d.mu.Lock()
	d.status = s
	d.mu.Unlock()
	return func() {
		d.mu.Lock()
		d.status = nil
		d.mu.Unlock()
	}
}
