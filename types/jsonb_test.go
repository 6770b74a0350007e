package types

import (
	"errors"
	"testing"
)

func TestParseJSONBCanonical(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":[1,2],"a":1}`, `{"a": 1, "b": [1, 2]}`},
		{`{"bb":1,"a":2,"a":3}`, `{"a": 3, "bb": 1}`},
		{` [ 1e2, -0, 1.50, 1E-2 ] `, `[100, 0, 1.50, 0.01]`},
		{`"a\"b\\c\n\u0001\u00e9\/"`, `"a\"b\\c\n\u0001é/"`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`null`, `null`},
		{`true`, `true`},
		{`{"a":{"c":null,"b":false}}`, `{"a": {"b": false, "c": null}}`},
	}
	for _, c := range cases {
		v, err := ParseJSONB(c.in)
		if err != nil {
			t.Fatalf("ParseJSONB(%q): %v", c.in, err)
		}
		if v.K != JSONB || v.String() != c.want {
			t.Errorf("ParseJSONB(%q) = %q, want %q", c.in, v.String(), c.want)
		}
	}
}

func TestParseJSONBErrors(t *testing.T) {
	cases := map[string]string{
		`{"a":}`: "22P02", `[1,]`: "22P02", `01`: "22P02", `1 2`: "22P02", `"\u0000"`: "22P05",
		`'a'`: "22P02", ``: "22P02", `"\ud800"`: "22P02", `{"a" 1}`: "22P02", "\"a\tb\"": "22P02",
	}
	for in, code := range cases {
		_, err := ParseJSONB(in)
		var je *JSONError
		if !errors.As(err, &je) || je.Code != code {
			t.Errorf("ParseJSONB(%q) = %v, want SQLSTATE %s", in, err, code)
		}
	}
}

func TestCompareJSONB(t *testing.T) {
	// Each is less than the next, as Postgres's jsonb ordering has them.
	order := []string{`[]`, `null`, `""`, `"a"`, `"b"`, `-1`, `1`, `false`, `true`, `[1]`, `[2]`, `[1, 2]`, `{}`, `{"b": 1}`, `{"a": 1, "b": 1}`}
	for i := range order {
		for j := range order {
			a, _ := ParseJSONB(order[i])
			b, _ := ParseJSONB(order[j])
			want := cmpInt(int64(i), int64(j))
			if got := Compare(a, b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
	a, _ := ParseJSONB(`{"a": [1.0]}`)
	b, _ := ParseJSONB(`{"a": [1]}`)
	if !Equal(a, b) || HashValues(Row{a}, []int{0}) != HashValues(Row{b}, []int{0}) {
		t.Errorf("%s and %s must be one key", a, b)
	}
}

func TestContainsAndExists(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{`{"a": 1, "b": [1, 2, {"c": 3}]}`, `{"b": [{"c": 3}]}`, true},
		{`{"a": 1}`, `{"a": 1.0}`, true},
		{`{"a": [1, 2]}`, `{"a": 1}`, false},
		{`[1, 2]`, `1`, true},
		{`1`, `[1]`, false},
		{`[[1]]`, `[1]`, false},
		{`[1, 1]`, `[1, 1, 1]`, true},
		{`{"a": 1}`, `{}`, true},
		{`"a"`, `"a"`, true},
	}
	for _, c := range cases {
		a, _ := ParseJSON(c.a)
		b, _ := ParseJSON(c.b)
		if got := Contains(a, b); got != c.want {
			t.Errorf("%s @> %s = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	for in, want := range map[string]bool{`{"k": 1}`: true, `["k"]`: true, `"k"`: true, `[["k"]]`: false, `{"a": "k"}`: false} {
		j, _ := ParseJSON(in)
		if Exists(j, "k") != want {
			t.Errorf("%s ? 'k' = %v, want %v", in, !want, want)
		}
	}
}

// TestJSONBFastPath checks the text scanner against the parsed document
// for every field and index of a few documents.
func TestJSONBFastPath(t *testing.T) {
	docs := []string{
		`{"a": {"b": [1, "x,]}"]}, "s": "q\"uo,te", "n": null, "e\u00e9": true, "arr": [[], {}, [1, [2]]], "k\"ey": 1}`,
		`[1, "a", [2, 3], {"k": "v"}, null, "\\"]`, `[]`, `{}`, `"x"`, `1.50`,
	}
	for _, d := range docs {
		v, err := ParseJSONB(d)
		if err != nil {
			t.Fatal(err)
		}
		j := JSONOf(v)
		for _, k := range append(append([]string(nil), j.Keys...), "zz", "") {
			got, ok := JSONBField(v, k)
			want := j.Field(k)
			if ok != (want != nil) || (ok && got != string(want.AppendText(nil))) {
				t.Errorf("%s -> %q = %q, %v; want %v", d, k, got, ok, want)
			}
			if ok {
				txt, tok := JSONBText(got)
				wtxt, wok := want.Text()
				if txt != wtxt || tok != wok {
					t.Errorf("%s ->> %q = %q, %v; want %q, %v", d, k, txt, tok, wtxt, wok)
				}
			}
		}
		for i := int64(-7); i <= 7; i++ {
			got, ok := JSONBIndex(v, i)
			want := j.Index(i)
			if ok != (want != nil) || (ok && got != string(want.AppendText(nil))) {
				t.Errorf("%s -> %d = %q, %v; want %v", d, i, got, ok, want)
			}
		}
	}
}
