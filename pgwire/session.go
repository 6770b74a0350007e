package pgwire

import (
	"sort"
	"strings"
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// ServerVersion is the server_version a session reports: a Postgres 15
// version string, so clients pick their Postgres 15 dialect.
const ServerVersion = "15.0 (streamsql)"

// param is a session parameter: its canonical spelling (as ParameterStatus
// sends it), its default and whether a change is reported to the client.
type param struct {
	name   string
	def    string
	report bool
	fixed  bool // read-only
	desc   string
}

var sessionParams = map[string]param{}

func init() {
	for _, p := range []param{
		{name: "server_version", def: ServerVersion, report: true, fixed: true, desc: "Shows the server version."},
		{name: "server_version_num", def: "150000", fixed: true, desc: "Shows the server version as an integer."},
		{name: "server_encoding", def: "UTF8", report: true, fixed: true, desc: "Shows the server (database) character set encoding."},
		{name: "client_encoding", def: "UTF8", report: true, desc: "Sets the client's character set encoding."},
		{name: "DateStyle", def: "ISO, MDY", report: true, desc: "Sets the display format for date and time values."},
		{name: "IntervalStyle", def: "postgres", report: true, desc: "Sets the display format for interval values."},
		{name: "TimeZone", def: "UTC", report: true, desc: "Sets the time zone for displaying and interpreting time stamps."},
		{name: "integer_datetimes", def: "on", report: true, fixed: true, desc: "Shows whether datetimes are integer based."},
		{name: "standard_conforming_strings", def: "on", report: true, desc: "Causes '...' strings to treat backslashes literally."},
		{name: "application_name", def: "", report: true, desc: "Sets the application name to be reported in statistics and logs."},
		{name: "is_superuser", def: "on", report: true, fixed: true, desc: "Shows whether the current user is a superuser."},
		{name: "session_authorization", def: "", report: true, fixed: true, desc: "Sets the session user name."},
		{name: "search_path", def: `"$user", public`, desc: "Sets the schema search order for names that are not schema-qualified."},
		{name: "extra_float_digits", def: "1", desc: "Sets the number of digits displayed for floating-point values."},
		{name: "statement_timeout", def: "0", desc: "Sets the maximum allowed duration of any statement (ms; 0 turns it off)."},
		{name: "lock_timeout", def: "0", desc: "Accepted and ignored."},
		{name: "idle_in_transaction_session_timeout", def: "0", desc: "Accepted and ignored."},
		{name: "transaction_isolation", def: "read committed", desc: "Shows the current transaction's isolation level."},
		{name: "default_transaction_isolation", def: "read committed", desc: "Accepted and ignored."},
		{name: "transaction_read_only", def: "off", desc: "Accepted and ignored."},
		{name: "default_transaction_read_only", def: "off", desc: "Accepted and ignored."},
		{name: "max_identifier_length", def: "63", fixed: true, desc: "Shows the maximum identifier length."},
		{name: "client_min_messages", def: "notice", desc: "Accepted and ignored."},
		{name: "lc_messages", def: "C", desc: "Accepted and ignored."},
		{name: "lc_monetary", def: "C", desc: "Accepted and ignored."},
		{name: "lc_numeric", def: "C", desc: "Accepted and ignored."},
		{name: "lc_time", def: "C", desc: "Accepted and ignored."},
		{name: "bytea_output", def: "hex", desc: "Accepted and ignored."},
		{name: "row_security", def: "on", desc: "Accepted and ignored."},
	} {
		sessionParams[strings.ToLower(p.name)] = p
	}
}

// engineSettings are the names SET and SHOW hand to the engine.
var engineSettings = map[string]bool{
	"strict": true, "parallelism": true, "checkpoint_interval": true, "state_cache_size": true, "flush_limit_rows": true,
	"memory_limit": true, "metrics": true,
}

// customSetting reports whether name is a custom ("placeholder") setting:
// as in Postgres, a dotted name such as app.user_id may be SET and SHOWn
// by any session, while an unknown name without a dot is an error.
func customSetting(name string) bool {
	i := strings.IndexByte(name, '.')
	return i > 0 && i < len(name)-1
}

// errUnknownSetting is Postgres' error for a setting it does not know.
func errUnknownSetting(name string) error {
	return pgError(sqlerr.UndefinedObject, "unrecognized configuration parameter \""+name+"\"")
}

// canonical returns a parameter's spelling for ParameterStatus and SHOW.
func canonical(name string) string {
	if p, ok := sessionParams[strings.ToLower(name)]; ok {
		return p.name
	}
	return strings.ToLower(name)
}

// setStmt is a parsed SET / RESET.
type setStmt struct {
	name  string // lower-case; "" for no-op forms
	value string
	reset bool // RESET name or SET name TO DEFAULT
	all   bool // RESET ALL
}

// parseSet reads SET [SESSION|LOCAL] name {TO|=} value[, ...], SET TIME
// ZONE v, SET NAMES v, SET {SESSION CHARACTERISTICS AS} TRANSACTION ...
// and RESET name|ALL.
func parseSet(q string) (setStmt, error) {
	q = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(q), ";"))
	low := strings.ToLower(q)
	if strings.HasPrefix(low, "reset") {
		name := strings.TrimSpace(q[len("reset"):])
		if strings.EqualFold(name, "all") {
			return setStmt{all: true, reset: true}, nil
		}
		return setStmt{name: unquoteIdent(name), reset: true}, nil
	}
	rest := strings.TrimSpace(q[len("set"):])
	for _, scope := range []string{"session ", "local "} {
		if l := strings.ToLower(rest); strings.HasPrefix(l, scope) && !strings.HasPrefix(l, "session characteristics") {
			rest = strings.TrimSpace(rest[len(scope):])
		}
	}
	l := strings.ToLower(rest)
	switch {
	case strings.HasPrefix(l, "session characteristics"), strings.HasPrefix(l, "transaction"), strings.HasPrefix(l, "constraints"):
		return setStmt{}, nil
	case strings.HasPrefix(l, "time zone"):
		return setStmt{name: "timezone", value: setValue(rest[len("time zone"):])}, nil
	case strings.HasPrefix(l, "names"):
		return setStmt{name: "client_encoding", value: setValue(rest[len("names"):])}, nil
	}
	i := strings.IndexAny(rest, " \t\n=")
	if i < 0 {
		return setStmt{}, sqlerr.New(sqlerr.SyntaxError, "syntax error at end of input").WithHint("SET name TO value")
	}
	name := unquoteIdent(rest[:i])
	v := strings.TrimSpace(rest[i:])
	switch {
	case strings.HasPrefix(v, "="):
		v = v[1:]
	case strings.HasPrefix(strings.ToLower(v), "to"):
		v = v[2:]
	default:
		return setStmt{}, sqlerr.New(sqlerr.SyntaxError, "syntax error at or near %q", firstWord(v)).WithHint("SET name TO value")
	}
	st := setStmt{name: strings.ToLower(name), value: setValue(v)}
	if strings.EqualFold(strings.TrimSpace(v), "default") {
		st.reset = true
	}
	return st, nil
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func unquoteIdent(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

// setValue turns the value list of a SET into the setting's text: quoted
// items unquoted, items joined by ", ".
func setValue(v string) string {
	var items []string
	var cur strings.Builder
	inQ := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\'' && inQ && i+1 < len(v) && v[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case c == '\'':
			inQ = !inQ
		case c == ',' && !inQ:
			items = append(items, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	items = append(items, strings.TrimSpace(cur.String()))
	return strings.Join(items, ", ")
}

// settingsResult is SHOW name's answer.
func settingsResult(name, value string) *result {
	return &result{cols: []column{{name: canonical(name), oid: types.OIDText}}, rows: []types.Row{{types.StringValue(value)}}, tag: "SHOW"}
}

// showAll lists every session parameter and the engine's settings.
func (s *session) showAll(engineVals map[string]string) *result {
	res := &result{cols: []column{{name: "name", oid: types.OIDText}, {name: "setting", oid: types.OIDText}, {name: "description", oid: types.OIDText}}, tag: "SHOW"}
	var names []string
	for k := range sessionParams {
		names = append(names, k)
	}
	for k := range engineVals {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if v, ok := engineVals[k]; ok {
			res.rows = append(res.rows, types.Row{types.StringValue(k), types.StringValue(v), types.StringValue("streamsql engine setting")})
			continue
		}
		p := sessionParams[k]
		res.rows = append(res.rows, types.Row{types.StringValue(p.name), types.StringValue(s.params[k]), types.StringValue(p.desc)})
	}
	return res
}

// zone is the session's TimeZone, which TIMESTAMPTZ values print in.
func (s *session) zone() *time.Location {
	if loc, err := types.LoadZone(s.params["timezone"]); err == nil {
		return loc
	}
	return time.UTC
}

// setZone makes z (a canonical zone name) the session's TimeZone, for
// printing and for the engine, which binds the session's statements in it.
func (s *session) setZone(z string) {
	s.params["timezone"] = z
	s.engineSettings["timezone"] = z
}
