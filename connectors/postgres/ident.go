package postgres

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// parseQualifiedName reads "table" or "schema.table" the way Postgres
// reads an identifier chain: unquoted parts fold to lower case, "quoted"
// parts keep their case and may contain dots ("" is a quote).
func parseQualifiedName(s string) ([]string, error) {
	parts, err := splitIdents(s, '.')
	if err != nil {
		return nil, err
	}
	if len(parts) > 2 {
		return nil, fmt.Errorf("%q has %d parts; want table or schema.table", s, len(parts))
	}
	return parts, nil
}

// parseIdentList reads a comma-separated list of column names.
func parseIdentList(s string) ([]string, error) {
	return splitIdents(s, ',')
}

var errEmptyIdent = errors.New("empty name")

func splitIdents(s string, sep byte) ([]string, error) {
	var out []string
	var cur strings.Builder
	quoted, sawQuote := false, false
	flush := func() error {
		name := cur.String()
		if !sawQuote {
			name = strings.ToLower(strings.TrimSpace(name))
		}
		if name == "" {
			return fmt.Errorf("%q: %w", s, errEmptyIdent)
		}
		out = append(out, name)
		cur.Reset()
		sawQuote = false
		return nil
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quoted && ch == '"' && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case ch == '"':
			if !quoted && (sawQuote || strings.TrimSpace(cur.String()) != "") {
				return nil, fmt.Errorf("%q: a quote in the middle of a name", s)
			}
			quoted = !quoted
			if quoted {
				cur.Reset()
				sawQuote = true
			}
		case quoted:
			cur.WriteByte(ch)
		case ch == sep:
			if err := flush(); err != nil {
				return nil, err
			}
		case sawQuote && ch != ' ' && ch != '\t':
			return nil, fmt.Errorf("%q: text after a quoted name", s)
		case !sawQuote:
			cur.WriteByte(ch)
		}
	}
	if quoted {
		return nil, fmt.Errorf("%q: unterminated quote", s)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// quoteIdent quotes one identifier for SQL text.
func quoteIdent(name string) string { return pgx.Identifier{name}.Sanitize() }

// quoteIdents quotes a list of column names, comma-separated.
func quoteIdents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// displayName is a qualified name as people write it, for messages.
func displayName(parts []string) string { return strings.Join(parts, ".") }
