package state

import (
	"encoding/binary"
	"testing"
)

// BenchmarkUpdate commits one small durable transaction per iteration
// (an acknowledged INSERT of one row): the cost of the sync each pays.
func BenchmarkUpdate(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	key := make([]byte, 24)
	val := make([]byte, 48)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		binary.BigEndian.PutUint64(key[8:], uint64(i))
		if err := s.Update(func(w *Writer) error { return w.Set(key, val) }); err != nil {
			b.Fatal(err)
		}
	}
}
