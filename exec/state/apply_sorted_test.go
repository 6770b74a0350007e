package state

import (
	"bytes"
	"math/rand"
	"slices"
	"testing"
)

// TestSortSeqMatchesKeyOrder checks sortSeq's prefix sort against a plain
// sort by key then position, over keys sharing a long prefix, keys that
// end within or at the shared prefix's next 8 bytes (zero padding must not
// reorder "a" and "a\x00"), and repeated keys.
func TestSortSeqMatchesKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := 0; round < 200; round++ {
		prefix := []byte("v/0000000042/")
		var changes []change
		var seq []seqKey
		for i := 0; i < 1+rng.Intn(300); i++ {
			k := append([]byte(nil), prefix...)
			for j := rng.Intn(12); j > 0; j-- {
				k = append(k, byte(rng.Intn(3))) // small alphabet: many ties and zero bytes
			}
			if len(changes) > 0 && rng.Intn(4) == 0 {
				k = append([]byte(nil), changes[rng.Intn(len(changes))].key...)
			}
			changes = append(changes, change{key: k})
			seq = append(seq, seqKey{n: i})
		}
		want := slices.Clone(seq)
		slices.SortFunc(want, func(a, b seqKey) int {
			if c := bytes.Compare(changes[a.n].key, changes[b.n].key); c != 0 {
				return c
			}
			return a.n - b.n
		})
		sortSeq(changes, seq, 0)
		for i := range seq {
			if seq[i].n != want[i].n {
				t.Fatalf("round %d, position %d: got key %q (#%d), want %q (#%d)",
					round, i, changes[seq[i].n].key, seq[i].n, changes[want[i].n].key, want[i].n)
			}
		}
	}
}

// BenchmarkSortSeq sorts a checkpoint's worth of view-row keys (a shared
// 11-byte prefix, then two encoded BIGINTs and more) by sortSeq and, for
// comparison, by bytes.Compare alone.
func BenchmarkSortSeq(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	changes := make([]change, 75000)
	base := make([]seqKey, len(changes))
	for i := range changes {
		k := []byte("v/w/view/\x04\x02")
		for j := 0; j < 20; j++ {
			k = append(k, byte(rng.Intn(256)))
		}
		changes[i], base[i] = change{key: k}, seqKey{n: i}
	}
	seq := make([]seqKey, len(base))
	b.Run("prefix", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(seq, base)
			sortSeq(changes, seq, 0)
		}
	})
	b.Run("bytes", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			copy(seq, base)
			slices.SortFunc(seq, func(a, b seqKey) int {
				if c := bytes.Compare(changes[a.n].key, changes[b.n].key); c != 0 {
					return c
				}
				return a.n - b.n
			})
		}
	})
}
