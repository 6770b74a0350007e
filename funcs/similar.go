package funcs

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// CodeInvalidEscape is SQLSTATE invalid_escape_sequence.
const CodeInvalidEscape = "22025"

var similarFuncs = []*Func{
	{Name: "similar_to", Doc: "`s SIMILAR TO p [ESCAPE e]`: s matches the SQL regular expression p as a whole (`%` any text, `_` one character, `|`, `*`, `+`, `?`, `{m,n}`, `()`, `[...]`)", Strict: true,
		Sigs:    sigs(sig(types.String, types.String, types.Bool), sig(types.String, types.String, types.String, types.Bool)),
		Prepare: prepareSimilar},
}

// prepareSimilar compiles a constant pattern (and escape) once, others
// per row.
func prepareSimilar(consts []*types.Value) (Impl, *sqlerr.Error) {
	escOf := func(a []*types.Value) (string, bool) {
		if len(a) < 3 {
			return `\`, true
		}
		if a[2] == nil {
			return "", false
		}
		return a[2].S, true
	}
	if esc, ok := escOf(consts); ok && consts[1] != nil {
		re, err := CompileSimilar(consts[1].S, esc)
		if err != nil {
			return Impl{}, err
		}
		return Impl{FN: func(a []types.Value) (types.Value, *sqlerr.Error) {
			return okv(types.BoolValue(re.MatchString(a[0].S)))
		}}, nil
	}
	return Impl{FN: func(a []types.Value) (types.Value, *sqlerr.Error) {
		esc := `\`
		if len(a) > 2 {
			esc = a[2].S
		}
		re, err := CompileSimilar(a[1].S, esc)
		if err != nil {
			return types.NullValue, err
		}
		return okv(types.BoolValue(re.MatchString(a[0].S)))
	}}, nil
}

// CompileSimilar translates a SIMILAR TO pattern into an RE2 expression
// matched against the whole string, as Postgres's similar_to_escape
// translates it into its own regex: `%` is `.*`, `_` is `.`, the escape
// character (default backslash, none when escape is empty) makes the next
// character literal, `.`, `^`, `$` are literal, bracket expressions and
// the other regex operators pass through. Escaped double quotes (which
// mark SUBSTRING's match) are refused.
func CompileSimilar(pattern, escape string) (*regexp.Regexp, *sqlerr.Error) {
	if utf8.RuneCountInString(escape) > 1 {
		return nil, sqlerr.New(CodeInvalidEscape, "invalid escape string").WithHint("Escape string must be empty or one character.")
	}
	esc, _ := utf8.DecodeRuneInString(escape)
	if escape == "" {
		esc = -1
	}
	var b strings.Builder
	b.WriteString("^(?s:")
	afterEscape, inClass := false, false
	for _, c := range pattern {
		switch {
		case afterEscape:
			if c == '"' {
				return nil, sqlerr.New(sqlerr.FeatureNotSupport, "escaped double quotes in SIMILAR TO are not supported")
			}
			b.WriteString(regexp.QuoteMeta(string(c)))
			afterEscape = false
		case c == esc:
			afterEscape = true
		case inClass:
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			if c == ']' {
				inClass = false
			}
		case c == '[':
			b.WriteRune(c)
			inClass = true
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteByte('.')
		case c == '(':
			b.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	if afterEscape {
		return nil, sqlerr.New(CodeInvalidEscape, "invalid escape sequence: SIMILAR TO pattern ends with the escape character")
	}
	b.WriteString(")$")
	re, err := regexp.Compile(unicodeClasses(b.String()))
	if err != nil {
		return nil, &sqlerr.Error{Code: CodeInvalidRegex, Msg: "invalid regular expression: " + strings.TrimPrefix(err.Error(), "error parsing regexp: "), Err: err}
	}
	return re, nil
}
