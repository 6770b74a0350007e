package postgres

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

const redacted = "xxxxx"

// parseDSN parses a connection string; its error never quotes the DSN.
func parseDSN(dsn string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's parse errors can quote the string; say what is wrong
		// without it.
		return nil, fmt.Errorf("option 'dsn' is not a valid Postgres connection string (%s)", redactDSN(dsn))
	}
	return cfg, nil
}

var (
	kvPassword  = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'?|[^\s]*)`)
	urlUserinfo = regexp.MustCompile(`(://[^:/@?#]*:)[^@/?#]*@`)
)

// redactDSN returns dsn with its password replaced by xxxxx, in URL form
// (the userinfo and a password query parameter) and in key=value form.
func redactDSN(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), redacted)
			}
			q := u.Query()
			for k := range q {
				if strings.EqualFold(k, "password") {
					q.Set(k, redacted)
				}
			}
			u.RawQuery = q.Encode()
			return u.String()
		}
		dsn = urlUserinfo.ReplaceAllString(dsn, "${1}"+redacted+"@")
	}
	return kvPassword.ReplaceAllString(dsn, "${1}"+redacted)
}

// redactor removes a known password from error messages (a belt to
// pgx's braces: its errors do not quote passwords today).
type redactor struct{ password string }

// redactedError carries a message with the password removed; Unwrap keeps
// errors.Is/As working.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (r redactor) error(err error) error {
	if err == nil || len(r.password) < 3 {
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, r.password) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(msg, r.password, redacted), err: err}
}
