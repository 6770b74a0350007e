package funcs

import (
	"testing"

	"github.com/streamsql/streamsql/types"
)

func js(t *testing.T, s string) types.Value {
	t.Helper()
	v, err := types.ParseJSONB(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestJSONFuncs checks each JSONB operator and function against the
// answers Postgres gives (NULL printed as NULL, errors as SQLSTATE).
func TestJSONFuncs(t *testing.T) {
	doc := js(t, `{"a": {"b": [10, "x", null]}, "n": null, "s": "str"}`)
	s, i := types.StringValue, types.IntValue
	cases := []struct {
		fn   string
		args []types.Value
		want string
	}{
		{"->", []types.Value{doc, s("a")}, `{"b": [10, "x", null]}`},
		{"->", []types.Value{doc, s("zz")}, "NULL"},
		{"->", []types.Value{doc, i(0)}, "NULL"},
		{"->>", []types.Value{doc, s("s")}, "str"},
		{"->>", []types.Value{doc, s("n")}, "NULL"},
		{"->", []types.Value{doc, s("n")}, "null"},
		{"->>", []types.Value{js(t, `[1, [2]]`), i(-1)}, "[2]"},
		{"->>", []types.Value{js(t, `[1, [2]]`), i(2)}, "NULL"},
		{"->", []types.Value{js(t, `"a"`), i(0)}, `"a"`},
		{"->>", []types.Value{js(t, `"a"`), i(-1)}, "a"},
		{"->", []types.Value{js(t, `"a"`), i(1)}, "NULL"},
		{"#>", []types.Value{js(t, `"a"`), s("{0}")}, "NULL"},
		{"#>", []types.Value{js(t, `{"a": "x"}`), s("{a,0}")}, "NULL"},
		{"#>", []types.Value{doc, s("{a,b,1}")}, `"x"`},
		{"#>>", []types.Value{doc, s("{a, b, -3}")}, "10"},
		{"#>>", []types.Value{doc, s("{}")}, doc.S},
		{"#>", []types.Value{doc, s("{a,b,x}")}, "NULL"},
		{"#>", []types.Value{doc, s(`{"a",NULL}`)}, "NULL"},
		{"#>", []types.Value{doc, s("a,b")}, "22P02"},
		{"@>", []types.Value{doc, js(t, `{"a": {"b": [10]}}`)}, "t"},
		{"@>", []types.Value{doc, js(t, `{"a": {"b": 10}}`)}, "f"},
		{"?", []types.Value{doc, s("n")}, "t"},
		{"?", []types.Value{doc, s("b")}, "f"},
		{"jsonb_typeof", []types.Value{doc}, "object"},
		{"jsonb_typeof", []types.Value{js(t, "1.5")}, "number"},
		{"jsonb_array_length", []types.Value{js(t, "[1, [2, 3]]")}, "2"},
		{"jsonb_array_length", []types.Value{js(t, `"a"`)}, "22023"},
		{"jsonb_array_length", []types.Value{doc}, "22023"},
		{"jsonb_build_object", nil, "{}"},
		{"jsonb_build_object", []types.Value{s("b"), i(1), s("a"), types.FloatValue(2.5), s("c"), types.NullValue, s("d"), types.BoolValue(true)},
			`{"a": 2.5, "b": 1, "c": null, "d": true}`},
		{"jsonb_build_object", []types.Value{s("t"), types.TimestampValue(1_500_000), s("j"), doc, i(7), types.FloatValue(1e20)},
			`{"7": 100000000000000000000, "j": ` + doc.S + `, "t": "1970-01-01T00:00:01.5"}`},
		{"jsonb_build_object", []types.Value{s("a")}, "22023"},
		{"jsonb_build_object", []types.Value{types.NullValue, i(1)}, "22004"},
	}
	for _, c := range cases {
		v, code := call(t, c.fn, c.args...)
		got := code
		if code == "" {
			got = v.String()
		}
		if got != c.want {
			t.Errorf("%s%v = %s, want %s", c.fn, c.args, got, c.want)
		}
	}
}

func TestParseTextArray(t *testing.T) {
	got, err := ParseTextArray(` { a , "b,\"c" ,NULL, "NULL" } `)
	if err != nil || len(got) != 4 || *got[0] != "a" || *got[1] != `b,"c` || got[2] != nil || *got[3] != "NULL" {
		t.Fatalf("ParseTextArray = %v, %v", got, err)
	}
	for _, bad := range []string{"{a", "{a,,b}", `{"a}`, "a", "{a{b}"} {
		if _, err := ParseTextArray(bad); err == nil {
			t.Errorf("ParseTextArray(%q) accepted", bad)
		}
	}
}
