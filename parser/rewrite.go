package parser

import (
	"sort"
	"strings"
)

// edit replaces the script bytes [off, end) with text. An insertion has
// off == end.
type edit struct {
	off, end int
	text     string
}

// rewriter collects edits over the script range [base, limit) and renders
// the text handed to TiDB together with the map back to script offsets.
type rewriter struct {
	src         string
	base, limit int
	edits       []edit
	params      int    // $n parameters turned into TiDB's ? markers (markParams)
	firsts      []edit // insertions that go before every earlier edit at their offset (insertFirst), in call order
}

// replace puts text in place of [off, end). When text fits, it is padded
// with blanks to the same length (newlines of the original kept), so
// offsets after it do not move; otherwise the offset map absorbs the
// difference.
func (r *rewriter) replace(off, end int, text string) {
	orig := r.src[off:end]
	if len(text) <= len(orig) && !strings.Contains(orig[:len(text)], "\n") {
		b := []byte(blankOut(orig))
		copy(b, text)
		text = string(b)
	}
	r.edits = append(r.edits, edit{off, end, text})
}

// insert puts text before offset off.
func (r *rewriter) insert(off int, text string) { r.edits = append(r.edits, edit{off, off, text}) }

// blank turns [off, end) into spaces, keeping newlines.
func (r *rewriter) blank(off, end int) {
	r.edits = append(r.edits, edit{off, end, blankOut(r.src[off:end])})
}

// blankOut returns s with every byte but newlines turned into a space.
func blankOut(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}

// segment is a piece of rewritten text and where it came from.
type segment struct {
	newOff, newLen int
	oldOff, oldLen int // script offsets
}

// offsetMap maps offsets in the rewritten text back to script offsets.
type offsetMap struct {
	segs  []segment
	limit int
}

// orig returns the script offset of rewritten offset n. Inside text that
// kept its length the mapping is exact; inside text that changed length it
// is the start of the original text.
func (m offsetMap) orig(n int) int {
	i := sort.Search(len(m.segs), func(i int) bool { return m.segs[i].newOff+m.segs[i].newLen > n })
	if i == len(m.segs) {
		return m.limit
	}
	s := m.segs[i]
	if s.newLen == s.oldLen {
		return s.oldOff + (n - s.newOff)
	}
	return s.oldOff
}

// build applies the edits. Edits must not overlap; insertions at an offset
// come before a replacement that starts there.
func (r *rewriter) build() (string, offsetMap) {
	if len(r.firsts) > 0 { // the latest insertFirst leads: O(n) here, not O(n) per call
		all := make([]edit, 0, len(r.firsts)+len(r.edits))
		for i := len(r.firsts) - 1; i >= 0; i-- {
			all = append(all, r.firsts[i])
		}
		r.edits, r.firsts = append(all, r.edits...), nil
	}
	sort.SliceStable(r.edits, func(i, j int) bool {
		a, b := r.edits[i], r.edits[j]
		if a.off != b.off {
			return a.off < b.off
		}
		return a.off == a.end && b.off != b.end
	})
	var out strings.Builder
	m := offsetMap{limit: r.limit}
	emit := func(text string, oldOff, oldLen int) {
		if text == "" && oldLen == 0 {
			return
		}
		m.segs = append(m.segs, segment{newOff: out.Len(), newLen: len(text), oldOff: oldOff, oldLen: oldLen})
		out.WriteString(text)
	}
	at := r.base
	for _, e := range r.edits {
		if e.off < at { // overlapping edit: ignore it rather than corrupt the text
			continue
		}
		emit(r.src[at:e.off], at, e.off-at)
		emit(e.text, e.off, e.end-e.off)
		at = e.end
	}
	emit(r.src[at:r.limit], at, r.limit-at)
	return out.String(), m
}
