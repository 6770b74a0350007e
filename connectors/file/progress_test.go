package file

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSourceProgress: a bounded source's progress counts the bytes of its
// files from the positions at Open, reaches its total at the end, and
// starts from the resumed position after a restart; a followed source
// does not know its total.
func TestSourceProgress(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	for i := range 10 {
		a.WriteString(jsonLine(i, "a") + "\n")
		b.WriteString(jsonLine(100+i, "b") + "\n")
	}
	writeFile(t, filepath.Join(dir, "a.jsonl"), a.String())
	writeFile(t, filepath.Join(dir, "b.jsonl"), b.String())
	size := int64(a.Len() + b.Len())
	s := openSource(t, map[string]string{"path": filepath.Join(dir, "*.jsonl")}, "", nil)
	if done, total := s.Progress(); done != 0 || total != size {
		t.Fatalf("at Open: progress %d/%d, want 0/%d", done, total, size)
	}
	r := read(t, s, 3, 1, nil)
	if done, total := s.Progress(); done <= 0 || done >= total {
		t.Fatalf("after one batch: progress %d/%d, want between", done, total)
	}
	if r = read(t, s, 3, 100, r.offs); !r.ended {
		t.Fatal("source did not end")
	}
	if done, total := s.Progress(); done != size || total != size {
		t.Fatalf("at the end: progress %d/%d, want %d/%d", done, total, size, size)
	}
	half := int64(len(jsonLine(0, "a")) + 1)
	s = openSource(t, map[string]string{"path": filepath.Join(dir, "*.jsonl")}, "", []int64{half, 0})
	if done, total := s.Progress(); done != 0 || total != size-half {
		t.Fatalf("resumed: progress %d/%d, want 0/%d", done, total, size-half)
	}
	f := openSource(t, map[string]string{"path": filepath.Join(dir, "a.jsonl"), "follow": "true"}, t.TempDir(), nil)
	if _, total := f.Progress(); total != 0 {
		t.Fatalf("followed: total %d, want 0 (unknown)", total)
	}
}
