package state

import (
	"encoding/binary"
	"flag"
	"testing"
	"time"
)

var (
	benchChanged = flag.Int("checkpoint.rows", 200_000, "changed rows per checkpoint in BenchmarkCheckpoint")
	benchShuffle = flag.Bool("checkpoint.shuffle", false, "BenchmarkCheckpoint writes each checkpoint's keys out of key order")
)

// benchStride steps through a checkpoint's rows out of order under
// -checkpoint.shuffle: r*benchStride mod n visits each of 0..n-1 once
// when n is not a multiple of it (a prime).
const benchStride = 7919

// BenchmarkCheckpoint writes checkpoints of -checkpoint.rows changed rows
// each (a 24-byte key and a 48-byte value, half of them new keys, half
// overwrites of the previous checkpoint's) and reports the changed rows
// per second of the whole write (staging, commit, apply) as rows/s, and
// how long Checkpoint held its caller as pause-ms: the time processing
// stops for a checkpoint (the previous checkpoint's background apply is
// waited for first, outside the pause). Its keys are written in key
// order, which spares the apply its sort; -checkpoint.shuffle writes the
// same keys out of order, as a checkpoint of rows changed in arrival
// order is.
func BenchmarkCheckpoint(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	n := *benchChanged
	if *benchShuffle && n%benchStride == 0 {
		b.Fatalf("-checkpoint.rows must not be a multiple of %d with -checkpoint.shuffle", benchStride)
	}
	key := make([]byte, 24)
	val := make([]byte, 48)
	var pause time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The previous apply would end during the processing between
		// checkpoints; here it is waited for outside the pause.
		if err := s.WaitApplied(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		err := s.Checkpoint(uint64(i+1), func(w *Writer) error {
			for r := 0; r < n; r++ {
				at := r
				if *benchShuffle {
					at = r * benchStride % n
				}
				// Keys i*n/2 .. i*n/2+n: the lower half overwrites the
				// previous checkpoint's upper half.
				binary.BigEndian.PutUint64(key[8:], uint64(i*n/2+at))
				binary.BigEndian.PutUint64(val, uint64(i))
				if err := w.Set(key, val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		pause += time.Since(start)
	}
	if err := s.WaitApplied(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(pause.Milliseconds())/float64(b.N), "pause-ms")
}
