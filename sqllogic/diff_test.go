package sqllogic

import (
	"strconv"
	"strings"
	"testing"
)

func lines(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

func TestUnifiedDiff(t *testing.T) {
	changed := lines(1, 20)
	changed[4] = "five"                             // line 5 replaced
	changed = append(changed[:15], changed[16:]...) // line 16 removed
	changed = append(changed, "21")                 // line 21 added
	tests := []struct {
		name     string
		exp, act []string
		want     string
	}{
		{"equal", lines(1, 3), lines(1, 3), ""},
		{"both empty", nil, nil, ""},
		{"empty expected", nil, []string{"1 a"}, "--- expected\n+++ actual\n@@ -0,0 +1,1 @@\n+1 a\n"},
		{"empty actual", []string{"1 a"}, nil, "--- expected\n+++ actual\n@@ -1,1 +0,0 @@\n-1 a\n"},
		{"two hunks", lines(1, 20), changed, `--- expected
+++ actual
@@ -2,7 +2,7 @@
 2
 3
 4
-5
+five
 6
 7
 8
@@ -13,8 +13,8 @@
 13
 14
 15
-16
 17
 18
 19
 20
+21
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unifiedDiff(tt.exp, tt.act); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestUnifiedDiffLargeFallsBack(t *testing.T) {
	a, b := lines(1, 3000), lines(1, 3000)
	a[0], b[0] = "x", "y"
	a[2999], b[2999] = "x", "y"
	d := unifiedDiff(a, b)
	if !strings.Contains(d, "-x\n") || !strings.Contains(d, "+y\n") {
		t.Errorf("diff of large inputs lost the change:\n%.300s", d)
	}
}
