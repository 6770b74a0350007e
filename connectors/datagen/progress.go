package datagen

// Progress implements connectors.Progresser: with an events bound, the
// sequence events consumed since Open and those there were left at Open
// (every partition's share of them); without one it does not know (0, 0).
func (s *source) Progress() (done, total int64) {
	if s.events <= 0 {
		return 0, 0
	}
	for p := range s.pos {
		left := s.left(s.opened[p])
		total += left
		done += left - s.left(s.pos[p])
	}
	return done, total
}

// left counts the sequence events from n (an offset of one partition:
// ≡ its number modulo the partitions) to the events bound that the
// partition produces or skips: every len(pos)-th one.
func (s *source) left(n int64) int64 {
	if n >= s.events {
		return 0
	}
	parts := int64(len(s.pos))
	return (s.events - n + parts - 1) / parts
}
