package datagen

import (
	"context"
	"testing"
)

// TestProgress: with an events bound the progress counts sequence events
// over every partition, from 0 at Open to the events left at Open at the
// end, and from the resumed offsets after a restart; unbounded, it does
// not know.
func TestProgress(t *testing.T) {
	src := open(t, nil, map[string]string{"table": "bid", "events": "1000", "partitions": "3"})
	if done, total := src.Progress(); done != 0 || total != 1000 {
		t.Fatalf("at Open: %d/%d, want 0/1000", done, total)
	}
	if _, err := src.Read(context.Background(), 10); err != nil {
		t.Fatal(err)
	}
	if done, total := src.Progress(); done <= 0 || done >= total {
		t.Fatalf("after one batch: %d/%d, want between", done, total)
	}
	drain(t, src, 97)
	if done, total := src.Progress(); done != 1000 || total != 1000 {
		t.Fatalf("at the end: %d/%d, want 1000/1000", done, total)
	}
	if err := src.Open(context.Background(), []int64{300, 301, 302}); err != nil {
		t.Fatal(err)
	}
	if done, total := src.Progress(); done != 0 || total != 700 {
		t.Fatalf("resumed at 300: %d/%d, want 0/700", done, total)
	}
	if _, total := open(t, nil, map[string]string{"table": "bid"}).Progress(); total != 0 {
		t.Fatalf("unbounded: total %d, want 0", total)
	}
}
