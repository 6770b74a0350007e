package dashboard

import (
	"testing"
)

// TestHistoryRing: the ring keeps the last size samples, oldest first,
// and since returns only the later ones.
func TestHistoryRing(t *testing.T) {
	h := newHistory(3)
	for i := int64(1); i <= 5; i++ {
		h.add(Sample{T: i})
	}
	got := h.since(-1)
	if len(got) != 3 || got[0].T != 3 || got[1].T != 4 || got[2].T != 5 {
		t.Fatalf("ring holds %+v, want samples 3, 4, 5", got)
	}
	if later := h.since(4); len(later) != 1 || later[0].T != 5 {
		t.Fatalf("since(4) = %+v, want sample 5", later)
	}
}
