package engine

import (
	"context"
	"maps"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// The engine's SET parameters. strict, parallelism, checkpoint_interval,
// flush_limit_rows and timezone (SET TIME ZONE) shape the statements that
// follow, so they belong to the session that sets them (see WithSession); state_cache_size sizes a
// resource all views share and memory_limit the process's memory, so SET
// changes them for the whole engine.
var settingChecks = map[string]struct {
	valid func(v string) bool
	hint  string // what a valid value looks like
}{
	"strict": {func(v string) bool {
		_, ok := types.ParseBool(v)
		return ok
	}, "on or off"},
	"parallelism": {func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && n >= 1 && n <= 1024
	}, "an integer from 1 to 1024"},
	"checkpoint_interval": {func(v string) bool {
		d, err := connectors.ParseDuration(v)
		return err == nil && d > 0
	}, "a duration such as '10s' or '10 seconds'"},
	"state_cache_size": {func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && n >= 0
	}, "a non-negative integer (0: no limit)"},
	"memory_limit": {func(v string) bool {
		_, err := parseMemorySize(v)
		return err == nil
	}, "a size such as '512MB' or '2GB' (0: no limit)"},
	"watermark_stall_timeout": {func(v string) bool {
		d, err := connectors.ParseDuration(v)
		return err == nil && d >= 0
	}, "a duration such as '1m' or '1 minute' (0: never warn)"},
	"flush_limit_rows": {func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && n > 0
	}, "a positive integer"},
	"timezone": {func(v string) bool {
		_, err := types.LoadZone(v)
		return err == nil
	}, "an IANA time zone name such as 'UTC' or 'Europe/Berlin'"},
}

// engineWide are the settings SET changes for every session.
var engineWide = map[string]bool{"state_cache_size": true, "watermark_stall_timeout": true, "memory_limit": true}

// timeZone is the running statement's TimeZone in its canonical spelling
// (UTC unless SET). e.mu is held.
func (e *Engine) timeZone() string {
	v, _ := e.setting("timezone")
	if z := types.ZoneName(v); z != "" {
		return z
	}
	return "UTC"
}

// checkSetting validates SET name = value.
func checkSetting(name, value string) error {
	check, ok := settingChecks[name]
	if !ok {
		return sqlerr.New(sqlerr.UndefinedObject, "unrecognized configuration parameter %q (the engine's are strict, parallelism, checkpoint_interval, state_cache_size, memory_limit, flush_limit_rows, watermark_stall_timeout and timezone)", name)
	}
	if !check.valid(value) {
		return sqlerr.New(sqlerr.InvalidParameter, "invalid value for parameter %q: %q (want %s)", name, value, check.hint)
	}
	return nil
}

type sessionKey struct{}

// WithSession returns ctx carrying one client session's settings (the wire
// server keeps one map per connection): SET under it changes the map
// instead of the engine's defaults, and statements run under it read the
// map first. The engine reads and writes the map only while it runs that
// session's statement.
func WithSession(ctx context.Context, settings map[string]string) context.Context {
	return context.WithValue(ctx, sessionKey{}, settings)
}

func sessionOf(ctx context.Context) map[string]string {
	m, _ := ctx.Value(sessionKey{}).(map[string]string)
	return m
}

// setting is the value a statement sees: its session's, else the
// engine's. e.mu is held.
func (e *Engine) setting(name string) (string, bool) {
	if v, ok := e.sess[name]; ok && !engineWide[name] {
		return v, true
	}
	v, ok := e.settings[name]
	return v, ok
}

// set runs SET name = value for the running statement's session, or for
// the engine when there is none (a script, the engine-wide settings).
func (e *Engine) set(name, value string) error {
	name = strings.ToLower(name)
	if err := checkSetting(name, value); err != nil {
		return err
	}
	if name == "timezone" {
		value = types.ZoneName(value)
	}
	if e.sess != nil && !engineWide[name] {
		e.sess[name] = value
		return nil
	}
	e.settings[name] = value
	if name == "memory_limit" {
		e.applyMemoryLimit(value)
	}
	return nil
}

// scriptSettings runs through script's SET statements as Exec does and
// returns, by lower-case name of each view and query sink the script
// creates, the settings those SETs give at its CREATE: what a fresh run
// of the script starts it with. Invalid SETs are passed over and a script
// that does not parse gives nothing; Exec reports both.
func scriptSettings(script string) map[string]map[string]string {
	stmts, err := parser.Parse(script)
	if err != nil {
		return nil
	}
	cur := map[string]string{}
	at := map[string]map[string]string{}
	for _, st := range stmts {
		switch st := st.(type) {
		case *parser.SetStmt:
			if name := strings.ToLower(st.Name); checkSetting(name, st.Value) == nil {
				cur[name] = st.Value
			}
		case *parser.CreateViewStmt:
			at[strings.ToLower(st.Name)] = maps.Clone(cur)
		case *parser.CreateSinkStmt:
			if st.Query != nil {
				at[strings.ToLower(st.Name)] = maps.Clone(cur)
			}
		}
	}
	return at
}

// withSettings lays over on the engine's settings until undo runs: for
// recovery, which starts an object with its script's settings (see
// Options.Script). e.mu is held or the engine is not yet shared.
func (e *Engine) withSettings(over map[string]string) (undo func()) {
	old := maps.Clone(e.settings)
	maps.Copy(e.settings, over)
	return func() { e.settings = old }
}
