package state

import (
	"fmt"
	"testing"
)

func TestScanFromAndLastKey(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	if k, err := s.LastKey([]byte("log/")); err != nil || k != nil {
		t.Fatalf("empty prefix: %q, %v", k, err)
	}
	err := s.Update(func(w *Writer) error {
		for i := 0; i < 5; i++ {
			if err := w.Set([]byte(fmt.Sprintf("log/%d", i)), []byte{byte(i)}); err != nil {
				return err
			}
		}
		return w.Set([]byte("z/other"), nil) // sorts after the prefix
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := s.ScanFrom([]byte("log/"), []byte("log/3"), func(k, _ []byte) error {
		got = append(got, string(k))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[log/3 log/4]" {
		t.Fatalf("ScanFrom log/3: %v", got)
	}
	if k, err := s.LastKey([]byte("log/")); err != nil || string(k) != "log/4" {
		t.Fatalf("LastKey: %q, %v, want log/4", k, err)
	}
}
