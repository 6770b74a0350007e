package file

import "os"

// measure notes, for a bounded source, each partition's file size and
// position at Open: what Progress measures against.
func (s *source) measure() {
	if s.follow {
		return
	}
	for _, p := range s.parts {
		p.size = -1
		if fi, err := os.Stat(p.files[0]); err == nil {
			p.size = fi.Size()
		}
		p.start = min(p.pos, max(p.size, 0))
	}
}

// Progress implements connectors.Progresser for a bounded source: the
// bytes consumed since Open and the bytes its files held past their
// positions at Open. A followed source, or one whose file could not be
// measured, does not know (0, 0).
func (s *source) Progress() (done, total int64) {
	if s.follow {
		return 0, 0
	}
	for _, p := range s.parts {
		if p.size < 0 {
			return 0, 0
		}
		_, pos := splitOffset(p.offset())
		if p.done {
			pos = p.size
		}
		done += min(max(pos, p.start), p.size) - p.start
		total += p.size - p.start
	}
	return done, total
}
