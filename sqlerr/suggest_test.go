package sqlerr

import "testing"

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"k", "", 1}, {"", "kk", 2}, {"kk", "k", 1},
		{"topc", "topic", 1}, {"tpoic", "topic", 1}, // a swap costs one
		{"cnt", "count", 2}, {"kitten", "sitting", 3},
		{"prïce", "price", 1}, // runes, not bytes
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := EditDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
