package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
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

// TestSortedChangesKeepsTheLastChangeOfEachKey: chunks of changes in
// random order with repeated keys come back sorted, one per key, the last
// staged one (set or delete) with its value, as a map of the same changes
// says; the permutation happens in place.
func TestSortedChangesKeepsTheLastChangeOfEachKey(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 20; round++ {
		last := map[string]change{}
		var chunks []stagedChunk
		for c := 0; c < 1+rng.Intn(4); c++ {
			var b []byte
			for i := 0; i < rng.Intn(300); i++ {
				key := fmt.Appendf(nil, "k/%03d", rng.Intn(150))
				if rng.Intn(4) == 0 {
					b = append(append(b, opDelete), chunkFieldBytes(key)...)
					last[string(key)] = change{key: key, del: true}
					continue
				}
				val := fmt.Appendf(nil, "v%d.%d", round, i)
				b = append(append(append(b, opSet), chunkFieldBytes(key)...), chunkFieldBytes(val)...)
				last[string(key)] = change{key: key, val: val}
			}
			chunks = append(chunks, stagedChunk{changes: b})
		}
		got, err := sortedChanges(chunks, 0)
		if err != nil {
			t.Fatal(err)
		}
		keys := slices.Sorted(maps.Keys(last))
		if len(got) != len(keys) {
			t.Fatalf("round %d: %d changes, want %d", round, len(got), len(keys))
		}
		for i, k := range keys {
			w, g := last[k], got[i]
			if string(g.key) != k || g.del != w.del || !bytes.Equal(g.val, w.val) {
				t.Fatalf("round %d, position %d: got %q del=%v %q, want %q del=%v %q", round, i, g.key, g.del, g.val, k, w.del, w.val)
			}
		}
	}
}

// chunkFieldBytes is b as a staged chunk holds a field: its length, then
// its bytes.
func chunkFieldBytes(b []byte) []byte {
	return append(binary.AppendUvarint(nil, uint64(len(b))), b...)
}
