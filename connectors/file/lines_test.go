package file

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readLines drains a lineReader, rendering each line as "off:text".
func readLines(t *testing.T, lr *lineReader, final bool) []string {
	t.Helper()
	var out []string
	for {
		line, off, ok, err := lr.next(final)
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		if !ok {
			return out
		}
		out = append(out, fmt.Sprintf("%d:%s", off, line))
	}
}

func TestLineReaderSplits(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		final bool
		want  []string
		end   int64 // offset after the last consumed line
	}{
		{"lf", "a\nbb\nccc\n", false, []string{"0:a", "2:bb", "5:ccc"}, 9},
		{"crlf", "a\r\nbb\r\n", false, []string{"0:a", "3:bb"}, 7},
		{"mixed", "a\r\nb\nc\r\n", false, []string{"0:a", "3:b", "5:c"}, 8},
		{"empty lines kept", "\n\r\nx\n", false, []string{"0:", "1:", "3:x"}, 5},
		{"partial tail waits when following", "a\nbc", false, []string{"0:a"}, 2},
		{"partial tail read at the end", "a\nbc", true, []string{"0:a", "2:bc"}, 4},
		{"partial crlf tail waits", "a\nb\r", false, []string{"0:a"}, 2},
		{"partial cr tail at the end", "a\nb\r", true, []string{"0:a", "2:b"}, 4},
		{"empty input", "", true, nil, 0},
		{"no newline at all", "abc", true, []string{"0:abc"}, 3},
		{"cr inside a line", "a\rb\n", false, []string{"0:a\rb"}, 4},
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	for _, tc := range tests {
		for rn, mk := range readers {
			for _, size := range []int{1, 2, 3, 64} {
				t.Run(fmt.Sprintf("%s/%s/buf%d", tc.name, rn, size), func(t *testing.T) {
					lr := newLineReader(mk(tc.in), 0, size)
					got := readLines(t, lr, tc.final)
					if strings.Join(got, "|") != strings.Join(tc.want, "|") {
						t.Fatalf("lines = %q, want %q", got, tc.want)
					}
					if lr.offset() != tc.end {
						t.Fatalf("offset = %d, want %d", lr.offset(), tc.end)
					}
				})
			}
		}
	}
}

// TestLineReaderGrowingInput appends to the input between calls, as a
// following source sees a file grow: a partial line is returned only once
// its newline arrives, at the offset where it started.
func TestLineReaderGrowingInput(t *testing.T) {
	var buf bytes.Buffer
	lr := newLineReader(&buf, 100, 4)
	steps := []struct {
		add  string
		want []string
	}{
		{"ab", nil},
		{"c\r", nil},
		{"\nde", []string{"100:abc"}},
		{"f\ngh\n", []string{"105:def", "109:gh"}},
		{"", nil},
	}
	for i, st := range steps {
		buf.WriteString(st.add)
		got := readLines(t, lr, false)
		if strings.Join(got, "|") != strings.Join(st.want, "|") {
			t.Fatalf("step %d: lines = %q, want %q", i, got, st.want)
		}
	}
	if lr.offset() != 112 || lr.pending() {
		t.Fatalf("offset %d, pending %v; want 112 and nothing pending", lr.offset(), lr.pending())
	}
}

func TestOffsetEncoding(t *testing.T) {
	for _, c := range []struct {
		ord int
		pos int64
	}{{0, 0}, {0, 12345}, {1, 0}, {7, maxFilePos}, {1 << 20, 99}} {
		off := offsetOf(c.ord, c.pos)
		if ord, pos := splitOffset(off); ord != c.ord || pos != c.pos {
			t.Errorf("split(offsetOf(%d, %d)) = %d, %d", c.ord, c.pos, ord, pos)
		}
	}
	if offsetOf(0, 42) != 42 {
		t.Error("the offset of the first file is not its byte position")
	}
}
