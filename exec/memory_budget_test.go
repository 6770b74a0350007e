package exec

import "testing"

// TestMemoryShareLendsUnusedBytes checks the budget's split: a member may
// hold its equal share, and more while the others hold less than theirs,
// up to the total less what they hold; a member that grows back gets its
// share again and the large one's limit shrinks to what is left.
func TestMemoryShareLendsUnusedBytes(t *testing.T) {
	const total, mean = 10_000, 10 // bytes; bytes per entry
	b := NewMemoryBudget(total)
	big, small1, small2 := b.join(), b.join(), b.join()
	sample := func() int64 { return mean }
	share := int(b.Share()) / mean // 333 entries each

	steps := []struct {
		name      string
		m         *memShare
		resident  int
		wantLimit int
	}{
		{"an idle small member keeps its share", small1, 0, total / mean},
		{"the large member may take what the others leave", big, 900, total / mean},
		{"a small member that grows is still held to at least its share", small1, 50, max(share, (total-9000)/mean)},
		{"the large member's limit shrinks by what the small one holds", big, 900, (total - 500) / mean},
		{"a second small member at its share", small2, share, max(share, (total-9000-500)/mean)},
		{"the large member gives way to both", big, 900, (total - 500 - share*mean) / mean},
	}
	for _, s := range steps {
		if got := s.m.limit(0, s.resident, sample); got != s.wantLimit {
			t.Fatalf("%s: limit %d entries, want %d", s.name, got, s.wantLimit)
		}
	}
	if rows := small1.limit(7, 0, sample); rows != 7 {
		t.Fatalf("a row cap below the bytes' limit: got %d, want 7", rows)
	}
	big.release()
	if got := small1.limit(0, 50, sample); got != (total-share*mean)/mean {
		t.Fatalf("after the large member left: limit %d, want %d", got, (total-share*mean)/mean)
	}
}
