package types

import "testing"

// TestParseBool checks Postgres's boolean input: prefixes of the words,
// on/off, 1/0, any case and surrounding spaces; anything else refused.
func TestParseBool(t *testing.T) {
	for _, c := range []struct {
		in        string
		value, ok bool
	}{
		{"t", true, true}, {"TRUE", true, true}, {" tru ", true, true}, {"y", true, true}, {"Yes", true, true},
		{"on", true, true}, {"ON", true, true}, {"1", true, true},
		{"f", false, true}, {"fal", false, true}, {"no", false, true}, {"n", false, true}, {"off", false, true},
		{"of", false, true}, {"0", false, true}, {"\tfalse\n", false, true},
		{"", false, false}, {"o", false, false}, {"truex", false, false}, {"onn", false, false},
		{"10", false, false}, {"00", false, false}, {"2", false, false}, {"yess", false, false}, {"nope", false, false},
	} {
		if v, ok := ParseBool(c.in); v != c.value || ok != c.ok {
			t.Errorf("ParseBool(%q) = %v, %v; want %v, %v", c.in, v, ok, c.value, c.ok)
		}
	}
}
