package engine

import "regexp"

// Connection strings in DDL and options carry passwords; whatever the
// engine shows of an object (introspection over the wire, errors) goes
// through redact first.
var (
	// scheme://user:password@host → scheme://user:***@host
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s'"]*):[^@\s'"]*@`)
	// password=secret, password = 'secret', sasl.password = "x" (key=value DSNs and options)
	kvPassword = regexp.MustCompile(`(?i)((?:^|[\s,(;.])(?:[a-z_.]*password|secret|token)\s*=\s*)('[^']*'|"[^"]*"|[^\s,)']+)`)
)

// redact hides passwords in s.
func redact(s string) string {
	s = urlPassword.ReplaceAllString(s, "$1:***@")
	return kvPassword.ReplaceAllStringFunc(s, func(m string) string {
		sub := kvPassword.FindStringSubmatch(m)
		v := sub[2]
		switch {
		case len(v) > 0 && v[0] == '\'':
			return sub[1] + "'***'"
		case len(v) > 0 && v[0] == '"':
			return sub[1] + `"***"`
		}
		return sub[1] + "***"
	})
}

// redactedError shows err's text with passwords hidden; errors.Is and As
// still see err.
type redactedError struct{ err error }

func (r redactedError) Error() string { return redact(r.err.Error()) }
func (r redactedError) Unwrap() error { return r.err }

// Redact hides passwords in s as the engine does in what it shows: the
// password of a URL DSN (postgres://u:***@h) and the value of password,
// secret and token options (password=***). The CLI's log handler runs
// every logged string through it.
func Redact(s string) string { return redact(s) }
