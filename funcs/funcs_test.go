package funcs

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestRegistryEntries checks that every entry is complete: a doc line,
// signatures, and an implementation unless exec compiles it itself.
func TestRegistryEntries(t *testing.T) {
	compiled := map[string]bool{}
	for _, fam := range []([]*Func){arithmeticFuncs, logicFuncs, conditionalFuncs} {
		for _, f := range fam {
			compiled[f.Name] = true
		}
	}
	compiled["now"] = true      // a clock: folded ad hoc, a temporal filter's bound in views
	compiled["proctime"] = true // likewise
	compiled["array"] = true    // needs the call's element kind
	for _, n := range Names() {
		f, ok := Lookup(n)
		if !ok || f.Name != n || len(f.Sigs) == 0 || f.Doc == "" || f.Family == "" {
			t.Errorf("%s: incomplete entry", n)
		}
		if f.Evaluated() == compiled[n] {
			t.Errorf("%s: evaluated %v, but compiled by exec %v", n, f.Evaluated(), compiled[n])
		}
	}
	for a, c := range Aliases() {
		if f, ok := Lookup(strings.ToUpper(a)); !ok || f.Name != c {
			t.Errorf("alias %s does not resolve to %s", a, c)
		}
	}
}

func call(t *testing.T, name string, args ...types.Value) (types.Value, string) {
	t.Helper()
	f, ok := Lookup(name)
	if !ok {
		t.Fatalf("no function %s", name)
	}
	impl := f.Impl
	if f.Prepare != nil {
		consts := make([]*types.Value, len(args))
		for i := range args {
			consts[i] = &args[i]
		}
		p, perr := f.Prepare(consts)
		if perr != nil {
			return types.NullValue, perr.Code
		}
		impl = p
	}
	v, err := impl.Call(args)
	if err != nil {
		return v, err.Code
	}
	return v, ""
}

func TestFunctionEdges(t *testing.T) {
	s, i, f := types.StringValue, types.IntValue, types.FloatValue
	tests := []struct {
		fn   string
		args []types.Value
		want string // the value's text, or the SQLSTATE of the error
	}{
		{"regexp_replace", []types.Value{s("abcabc"), s("(b)(c)"), s(`<\2\1\&\\>`)}, `a<cbbc\>abc`},
		{"regexp_replace", []types.Value{s("abcabc"), s("B"), s("x"), s("gi")}, "axcaxc"},
		{"regexp_like", []types.Value{s("a\nb"), s("a.b")}, "true"},
		{"regexp_like", []types.Value{s("a\nb"), s("a.b"), s("n")}, "false"},
		{"regexp_like", []types.Value{s("x"), s("(")}, "2201B"},
		{"regexp_like", []types.Value{s("x"), s("x"), s("q")}, "22023"},
		{"regexp_count", []types.Value{s("aaaa"), s("aa")}, "2"},
		{"lpad", []types.Value{s("héllo"), i(3)}, "hél"},
		{"lpad", []types.Value{s("x"), i(1 << 40)}, "54000"},
		{"initcap", []types.Value{s("hELLO wORLD-x9y z")}, "Hello World-X9y Z"},
		{"mod", []types.Value{i(-7), i(3)}, "-1"},
		{"mod", []types.Value{i(1), i(0)}, "22012"},
		{"trunc", []types.Value{types.DecimalValue(-12345, 3), i(1)}, "-12.3"},
		{"trunc", []types.Value{types.DecimalValue(12345, 3), i(-1)}, "10"},
		{"exp", []types.Value{f(1000)}, "22003"},
		{"power", []types.Value{f(-8), f(1.0 / 3)}, "2201F"},
		{"date_bin", []types.Value{types.IntervalValue(-1), types.TimestampValue(0), types.TimestampValue(0)}, "22008"},
		{"date_bin", []types.Value{types.IntervalValue(10 * types.Second), types.TimestampValue(-1), types.TimestampValue(0)}, "1969-12-31 23:59:50"},
		{"make_timestamp", []types.Value{i(2024), i(2), i(30), i(0), i(0), f(0)}, "22008"},
		{"make_timestamp", []types.Value{i(2024), i(1), i(1), i(0), i(0), f(60)}, "22008"},
		{"extract", []types.Value{s("century"), types.TimestampValue(0)}, "20"},
		{"extract", []types.Value{s("millennium"), types.TimestampValue(978307200 * types.Second)}, "3"},
		{"extract", []types.Value{s("decade"), types.TimestampValue(0)}, "197"},
		{"extract", []types.Value{s("fortnight"), types.TimestampValue(0)}, "22023"},
		{"date_trunc", []types.Value{s("century"), types.TimestampValue(978307200 * types.Second)}, "2001-01-01 00:00:00"},
	}
	for _, tt := range tests {
		v, code := call(t, tt.fn, tt.args...)
		got := code
		if code == "" {
			got = Text(v)
		}
		if got != tt.want {
			t.Errorf("%s%v = %q, want %q", tt.fn, tt.args, got, tt.want)
		}
	}
}

func TestNormalizeUnit(t *testing.T) {
	for in, want := range map[string]string{"Seconds": "second", " ms ": "milliseconds", "millennia": "millennium", "j": "julian", "dow": "dow", "fortnight": ""} {
		if got := NormalizeUnit(in); got != want {
			t.Errorf("NormalizeUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownListsEveryFunction(t *testing.T) {
	md := Markdown()
	for _, n := range Names() {
		if !strings.Contains(md, "| `"+n+"`") {
			t.Errorf("the table lacks %s", n)
		}
	}
}

func TestArrayFuncs(t *testing.T) {
	arr := func(vs ...string) types.Value {
		out := make([]types.Value, len(vs))
		for i, v := range vs {
			if v != "NULL" {
				out[i] = types.StringValue(v)
			}
		}
		return types.ArrayValue(types.String, out)
	}
	s := types.StringValue
	tests := []struct {
		fn   string
		args []types.Value
		want string
	}{
		{"[]", []types.Value{arr("a", "b"), types.IntValue(2)}, "b"},
		{"[]", []types.Value{arr("a", "b"), types.IntValue(3)}, "NULL"},
		{"array_length", []types.Value{arr(), types.IntValue(1)}, "NULL"},
		{"cardinality", []types.Value{arr("a", "NULL")}, "2"},
		{"array_to_string", []types.Value{arr("a", "NULL", "c"), s(",")}, "a,c"},
		{"array_to_string", []types.Value{arr("a", "NULL", "c"), s(","), s("?")}, "a,?,c"},
		{"string_to_array", []types.Value{s("abc"), {}}, "{a,b,c}"},
		{"string_to_array", []types.Value{s("a b"), s("")}, `{"a b"}`},
		{"regexp_match", []types.Value{s("xay"), s("(a)|(b)")}, "{a,NULL}"},
		{"regexp_split_to_array", []types.Value{s("a, b,c"), s(",\\s*")}, "{a,b,c}"},
		{"regexp_split_to_array", []types.Value{s("abc"), s("x*")}, "{a,b,c}"},
		{"regexp_split_to_array", []types.Value{s(",a,"), s(",")}, `{"",a,""}`},
	}
	for _, tt := range tests {
		got, code := call(t, tt.fn, tt.args...)
		if code != "" || got.String() != tt.want {
			t.Errorf("%s%v = %v (%s), want %s", tt.fn, tt.args, got, code, tt.want)
		}
	}
}

func TestSimilarTo(t *testing.T) {
	tests := []struct {
		s, p, esc string
		want      bool
	}{
		{"abc", "a%", `\`, true},
		{"abc", "a_", `\`, false},
		{"a.c", "a.c", `\`, true},
		{"abc", "a.c", `\`, false},
		{"a%c", `a\%c`, `\`, true},
		{"abc", `a\%c`, `\`, false},
		{"a%c", "a#%c", "#", true},
		{`a\c`, `a\c`, "", true},
		{"abab", "(ab)+", `\`, true},
		{"b", "a|b", `\`, true},
		{"xb", "a|b", `\`, false},
		{"^$", "^$", `\`, true},
		{"a]", "[]a]+", `\`, true},
	}
	for _, tt := range tests {
		re, err := CompileSimilar(tt.p, tt.esc)
		if err != nil || re.MatchString(tt.s) != tt.want {
			t.Errorf("%q SIMILAR TO %q ESCAPE %q = %v (%v), want %v", tt.s, tt.p, tt.esc, err == nil && re.MatchString(tt.s), err, tt.want)
		}
	}
	for _, bad := range [][2]string{{"a", "##"}, {`a\`, `\`}, {`\"a\"`, `\`}, {"(a", `\`}} {
		if _, err := CompileSimilar(bad[0], bad[1]); err == nil {
			t.Errorf("CompileSimilar(%q, %q) succeeded", bad[0], bad[1])
		}
	}
}

// TestRegexUnicodeClasses: letter classes mean what Postgres's mean under
// LC_CTYPE C.UTF-8 (é is a letter and a word character, ٣ an alnum and a
// word character but not a digit, ² neither), in and out of brackets.
func TestRegexUnicodeClasses(t *testing.T) {
	for _, c := range []struct {
		s, pattern string
		want       bool
	}{
		{"é", `^[[:alpha:]]$`, true}, {"É", `^[[:upper:]]$`, true}, {"é", `^[[:lower:]]$`, true},
		{"ǅ", `^[[:upper:]]$`, true}, {"٣", `^[[:digit:]]$`, false}, {"٣", `^[[:alnum:]]$`, true},
		{"٣", `^\w$`, true}, {"²", `^\w$`, false}, {"é", `^[\w]$`, true}, {"é", `^\W$`, false},
		{"a-b", `^[^[:alpha:]]$`, false}, {"-", `^[^[:alpha:]]$`, true}, {"]", `^[]a]$`, true},
		{`\`, `^[\\]$`, true}, {"w", `^\w$`, true}, {"5", `^[[:alpha:]]$`, false},
	} {
		re, _, err := CompileRegex("regexp_like", c.pattern, "")
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if got := re.MatchString(c.s); got != c.want {
			t.Errorf("%q ~ %q = %v, want %v (RE2 %s)", c.s, c.pattern, got, c.want, re)
		}
	}
}
