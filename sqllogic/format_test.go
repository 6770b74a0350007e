package sqllogic

import (
	"math"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestFormatValue(t *testing.T) {
	tests := []struct {
		v    types.Value
		t    byte
		want string
	}{
		{types.NullValue, 'I', "NULL"},
		{types.NullValue, 'T', "NULL"},
		{types.NullValue, 'R', "NULL"},
		{types.NullValue, 'B', "NULL"},
		{vi(42), 'I', "42"},
		{vi(-7), 'I', "-7"},
		{vf(3.9), 'I', "3"},
		{vf(-3.9), 'I', "-3"},
		{vf(math.Inf(1)), 'I', "Infinity"},
		{vs("x"), 'I', "x"},
		{vi(2), 'R', "2.000"},
		{vf(1.23456), 'R', "1.235"},
		{vf(-0.5), 'R', "-0.500"},
		{vf(math.NaN()), 'R', "NaN"},
		{vf(math.Inf(-1)), 'R', "-Infinity"},
		{vs("abc"), 'T', "abc"},
		{vs(""), 'T', "(empty)"},
		{vs(""), 'I', "(empty)"},
		{vs("a b"), 'T', "a b"},
		{vs("a\nb\tc"), 'T', "a@b@c"},
		{vs("héllo"), 'T', "héllo"},
		{vi(5), 'T', "5"},
		{vf(1.5), 'T', "1.5"},
		{types.TimestampValue(1704067201 * types.Second), 'T', "2024-01-01 00:00:01"},
		{types.IntervalValue(10 * types.Second), 'T', "00:00:10"},
		{vb(true), 'B', "t"},
		{vb(false), 'B', "f"},
		{vb(true), 'T', "t"},
	}
	for _, tt := range tests {
		if got := formatValue(tt.v, tt.t); got != tt.want {
			t.Errorf("formatValue(%#v, %c) = %q, want %q", tt.v, tt.t, got, tt.want)
		}
	}
}

func TestSortValues(t *testing.T) {
	in := [][]string{{"2", "b"}, {"10", "c"}, {"1", "a z"}, {"1", "a"}}
	tests := []struct {
		mode       sortMode
		wantValues string
		wantLines  string
	}{
		{noSort, "2,b,10,c,1,a z,1,a", "2 b|10 c|1 a z|1 a"},
		// Rows sort as their space-joined text: "1 a" < "1 a z" < "10 c" < "2 b".
		{rowSort, "1,a,1,a z,10,c,2,b", "1 a|1 a z|10 c|2 b"},
		// All values sort as strings, then lay out two to a line.
		{valueSort, "1,1,10,2,a,a z,b,c", "1 1|10 2|a a z|b c"},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			values, lines := sortValues(in, tt.mode, 2)
			if got := strings.Join(values, ","); got != tt.wantValues {
				t.Errorf("values = %s, want %s", got, tt.wantValues)
			}
			if got := strings.Join(lines, "|"); got != tt.wantLines {
				t.Errorf("lines = %s, want %s", got, tt.wantLines)
			}
		})
	}
	if in[0][0] != "2" {
		t.Errorf("sortValues modified its input: %q", in)
	}
}

func TestHashLine(t *testing.T) {
	// Expected digests computed with: printf '1\n2\n3\n' | md5sum, etc.
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{"1", "2", "3"}, "3 values hashing to c0710d6b4f15dfa88f600b0e6b624077"},
		{[]string{"a", "b", "NULL", "(empty)"}, "4 values hashing to 8d2fa0f4e505e0dd19d7ca557b6dd9ee"},
		{nil, "0 values hashing to d41d8cd98f00b204e9800998ecf8427e"},
	}
	for _, tt := range tests {
		if got := hashLine(tt.values); got != tt.want {
			t.Errorf("hashLine(%q) = %q, want %q", tt.values, got, tt.want)
		}
	}
	if !isHashLine([]string{"3 values hashing to c0710d6b4f15dfa88f600b0e6b624077"}) {
		t.Error("isHashLine rejects a hash line")
	}
	if isHashLine([]string{"3 values hashing to xyz"}) || isHashLine([]string{"1", "2"}) {
		t.Error("isHashLine accepts a non-hash result")
	}
}
