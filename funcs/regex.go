package funcs

import (
	"regexp"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Regular expression functions, with Go's RE2 syntax and semantics
// (docs/sql.md lists where they differ from Postgres's): no
// backreferences or lookaround, and matching is linear in the input.
// Flags are Postgres's letters: 'i' case-insensitive, 'c' case-sensitive,
// 'n' newline-sensitive ('.' and bracket expressions stop at a newline,
// '^' and '$' match at lines), 's' the default, and for REGEXP_REPLACE
// 'g' to replace every match rather than the first. A constant pattern is
// compiled once per query; a bad one fails the statement (2201B). The
// `~`, `~*`, `!~` and `!~*` operators are REGEXP_LIKE with and without
// 'i', negated for the `!` forms.
var regexFuncs = []*Func{
	{Name: "regexp_like", Doc: "whether s matches the pattern (`s ~ p`, `s ~* p`)", Strict: true, Sigs: sigs(
		sig(types.String, types.String, types.Bool),
		sig(types.String, types.String, types.String, types.Bool)),
		Prepare: prepareRegex("regexp_like", func(re *regexp.Regexp, _ bool, a []types.Value) types.Value {
			return types.BoolValue(re.MatchString(a[0].S))
		})},
	{Name: "regexp_count", Doc: "the number of non-overlapping matches of the pattern in s", Strict: true, Sigs: sigs(
		sig(types.String, types.String, types.Int)),
		Prepare: prepareRegex("regexp_count", func(re *regexp.Regexp, _ bool, a []types.Value) types.Value {
			return types.IntValue(int64(len(re.FindAllStringIndex(a[0].S, -1))))
		})},
	{Name: "regexp_replace", Doc: "s with the first (every, with flag 'g') match replaced; `\\1`–`\\9` and `\\&` in the replacement are groups", Strict: true, Sigs: sigs(
		sig(types.String, types.String, types.String, types.String),
		sig(types.String, types.String, types.String, types.String, types.String)),
		Prepare: prepareRegex("regexp_replace", func(re *regexp.Regexp, global bool, a []types.Value) types.Value {
			return types.StringValue(regexReplace(re, a[0].S, a[2].S, global))
		})},
}

// regexArgs says where a regex function's pattern and flags are.
func regexArgs(fn string) (pattern, flags int) {
	if fn == "regexp_replace" {
		return 1, 3
	}
	return 1, 2
}

// CompileRegex compiles a Postgres regular expression with its flags
// into RE2. global reports the 'g' flag, which only fn regexp_replace
// accepts.
func CompileRegex(fn, pattern, flags string) (re *regexp.Regexp, global bool, err *sqlerr.Error) {
	prefix := "(?s)"
	for _, f := range flags {
		switch f {
		case 'g':
			if fn != "regexp_replace" {
				return nil, false, sqlerr.New(sqlerr.InvalidParameter, "%s() does not support the \"global\" option", fn)
			}
			global = true
		case 'i':
			prefix = strings.Replace(prefix, "(?", "(?i", 1)
		case 'c':
			prefix = strings.Replace(prefix, "i", "", 1)
		case 'n', 'm':
			prefix = strings.Replace(prefix, "s", "m", 1)
		case 's':
			prefix = strings.Replace(prefix, "m", "s", 1)
		default:
			return nil, false, sqlerr.New(sqlerr.InvalidParameter, "invalid regular expression option: \"%c\"", f)
		}
	}
	r, cerr := regexp.Compile(prefix + unicodeClasses(pattern))
	if cerr != nil {
		return nil, false, &sqlerr.Error{Code: CodeInvalidRegex, Msg: "invalid regular expression: " + strings.TrimPrefix(cerr.Error(), "error parsing regexp: "), Err: cerr}
	}
	return r, global, nil
}

// posixClasses are the bracket classes whose RE2 meaning (ASCII only)
// differs from Postgres's under a UTF-8 LC_CTYPE, with the Unicode
// categories that stand for them there.
var posixClasses = map[string]string{
	"[:alpha:]": `\p{L}`, "[:alnum:]": `\p{L}\p{Nd}`, "[:upper:]": `\p{Lu}\p{Lt}`, "[:lower:]": `\p{Ll}`,
}

// wordClass is \w under a UTF-8 LC_CTYPE: letters, decimal digits and _.
const wordClass = `\p{L}\p{Nd}_`

// unicodeClasses rewrites a pattern's letter classes to their Unicode
// meaning, as Postgres reads them under LC_CTYPE C.UTF-8 (what the engine
// reports): [[:alpha:]], [[:alnum:]], [[:upper:]], [[:lower:]], \w and
// \W, in and out of bracket expressions. Everything else is kept.
func unicodeClasses(p string) string {
	if !strings.Contains(p, "[:") && !strings.Contains(p, `\w`) && !strings.Contains(p, `\W`) {
		return p
	}
	var b strings.Builder
	inBracket := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(wordEscape(p[i], inBracket))
		case inBracket && c == '[' && strings.HasPrefix(p[i:], "[:"):
			end := strings.Index(p[i:], ":]")
			if end < 0 {
				b.WriteString(p[i:])
				return b.String()
			}
			name := p[i : i+end+2]
			if u, ok := posixClasses[name]; ok {
				name = u
			}
			b.WriteString(name)
			i += end + 1
		case inBracket && c == ']':
			inBracket = false
			b.WriteByte(c)
		case !inBracket && c == '[':
			inBracket = true
			b.WriteByte(c)
			// a leading ^ and a leading ] are part of the bracket
			if i+1 < len(p) && p[i+1] == '^' {
				i++
				b.WriteByte('^')
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
				b.WriteByte(']')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// wordEscape is the escape \c of a pattern, \w and \W rewritten.
func wordEscape(c byte, inBracket bool) string {
	switch {
	case c == 'w' && inBracket:
		return wordClass
	case c == 'w':
		return "[" + wordClass + "]"
	case c == 'W' && !inBracket:
		return "[^" + wordClass + "]"
	}
	return "\\" + string(c)
}

// prepareRegex builds a regex function: with a constant pattern and flags
// the expression is compiled once, otherwise per row.
func prepareRegex(fn string, eval func(re *regexp.Regexp, global bool, a []types.Value) types.Value) func([]*types.Value) (Impl, *sqlerr.Error) {
	return func(consts []*types.Value) (Impl, *sqlerr.Error) {
		pi, fi := regexArgs(fn)
		flagsOf := func(a []types.Value) string {
			if fi < len(a) {
				return a[fi].S
			}
			return ""
		}
		constFlags := fi >= len(consts) || consts[fi] != nil
		if consts[pi] != nil && constFlags {
			flags := ""
			if fi < len(consts) {
				flags = consts[fi].S
			}
			re, global, err := CompileRegex(fn, consts[pi].S, flags)
			if err != nil {
				return Impl{}, err
			}
			return Impl{FN: func(a []types.Value) (types.Value, *sqlerr.Error) { return okv(eval(re, global, a)) }}, nil
		}
		return Impl{FN: func(a []types.Value) (types.Value, *sqlerr.Error) {
			re, global, err := CompileRegex(fn, a[pi].S, flagsOf(a))
			if err != nil {
				return types.NullValue, err
			}
			return okv(eval(re, global, a))
		}}, nil
	}
}

// regexReplace replaces the first match of re in s (every match when
// global) with repl, where \1 to \9 stand for the groups, \& for the
// whole match and \\ for a backslash, as in Postgres.
func regexReplace(re *regexp.Regexp, s, repl string, global bool) string {
	n := 1
	if global {
		n = -1
	}
	matches := re.FindAllStringSubmatchIndex(s, n)
	if len(matches) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, m := range matches {
		b.WriteString(s[at:m[0]])
		expandRepl(&b, s, repl, m)
		at = m[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

func expandRepl(b *strings.Builder, s, repl string, m []int) {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 == len(repl) {
			b.WriteByte(c)
			continue
		}
		next := repl[i+1]
		switch {
		case next >= '1' && next <= '9':
			if g := int(next - '0'); 2*g+1 < len(m) && m[2*g] >= 0 {
				b.WriteString(s[m[2*g]:m[2*g+1]])
			}
			i++
		case next == '&':
			b.WriteString(s[m[0]:m[1]])
			i++
		case next == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
}
