package state

import "testing"

// TestTrimDue: the trimmer trims at every trimStep of file-backed growth,
// and at every trimStepTight once the whole RSS reached the ceiling,
// which only a memory limit sets.
func TestTrimDue(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name                     string
		rss, file, last, ceiling int64
		want                     bool
	}{
		{"little growth, far from the ceiling", 300 * mib, 40 * mib, 30 * mib, 448 * mib, false},
		{"a step of growth", 300 * mib, 62 * mib, 30 * mib, 448 * mib, true},
		{"a step of growth, no limit", 300 * mib, 62 * mib, 30 * mib, 0, true},
		{"a tight step at the ceiling", 448 * mib, 38 * mib, 30 * mib, 448 * mib, true},
		{"a tight step under the ceiling", 447 * mib, 38 * mib, 30 * mib, 448 * mib, false},
		{"a tight step, no limit", 900 * mib, 38 * mib, 30 * mib, 0, false},
		{"over the ceiling without growth", 500 * mib, 37 * mib, 30 * mib, 448 * mib, false},
	} {
		if got := trimDue(c.rss, c.file, c.last, c.ceiling); got != c.want {
			t.Errorf("%s: trimDue = %v, want %v", c.name, got, c.want)
		}
	}
}
