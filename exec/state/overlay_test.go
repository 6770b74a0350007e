package state

import (
	"bytes"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// storeView is what a test reads of a store: every key with prefix "k"
// and its value by Scan, the keys the even owner accepts by ScanOwned,
// LastKey and a few point reads.
func storeView(t *testing.T, s *Store) string {
	t.Helper()
	var b strings.Builder
	err := s.Scan([]byte("k"), func(k, v []byte) error {
		fmt.Fprintf(&b, "%s=%s ", k, v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("| owned:")
	even := func(k []byte) (bool, error) { return k[len(k)-1]%2 == 0, nil }
	err = s.ScanOwned([]byte("k"), even, func(k, _ []byte) error {
		fmt.Fprintf(&b, " %s", k)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"k", "k1", "k2", "k9"} {
		last, err := s.LastKey([]byte(p))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, " | last %s: %s", p, last)
	}
	for _, k := range []string{"k0000", "k1000", "k1001", "k2500"} {
		fmt.Fprintf(&b, " | %s: %s", k, get(t, s, k))
	}
	return b.String()
}

// TestReadsDuringTheApplySeeTheCheckpoint holds a staged checkpoint's
// apply back and checks that reads do not wait for it and already see it
// whole, merged over the previous checkpoint's keys (sets, rewrites,
// deletes, the greatest key deleted), and that they read the same once
// it is applied.
func TestReadsDuringTheApplySeeTheCheckpoint(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	defer s.Close()
	want := map[string]string{}
	set := func(w *Writer, k, v string) error {
		want[k] = v
		return w.Set([]byte(k), []byte(v))
	}
	del := func(w *Writer, k string) error {
		delete(want, k)
		return w.Delete([]byte(k))
	}
	err := s.Checkpoint(1, func(w *Writer) error {
		for i := 0; i < 2000; i += 2 {
			if err := set(w, fmt.Sprintf("k%04d", i), "one"); err != nil {
				return err
			}
		}
		return set(w, "k9999", "one")
	})
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	s.bg.gate = gate
	big := strings.Repeat("x", 200)
	err = s.Checkpoint(2, func(w *Writer) error {
		for i := 1000; i < 60_000; i++ { // over one transaction: staged
			if err := set(w, fmt.Sprintf("k%04d", i%3000), big); err != nil {
				return err
			}
		}
		for _, k := range []string{"k0000", "k1001", "k9999", "k2998", "k2999"} {
			if err := del(w, k); err != nil {
				return err
			}
		}
		return set(w, "k1000", "two")
	})
	s.bg.gate = nil
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readStaged(stagedPath(s.dir, 2)); err != nil {
		t.Fatalf("checkpoint 2 was not staged: %v", err)
	}
	during := storeView(t, s)
	close(gate)
	if err := s.WaitApplied(); err != nil {
		t.Fatal(err)
	}
	after := storeView(t, s)
	var model strings.Builder
	keys := slices.Sorted(maps.Keys(want))
	for _, k := range keys {
		fmt.Fprintf(&model, "%s=%s ", k, want[k])
	}
	if !strings.HasPrefix(after, model.String()+"|") {
		t.Fatalf("after the apply the store reads\n%.300s…\nwant\n%.300s…", after, model.String())
	}
	if !strings.Contains(after, "| last k: k2997 | last k1: k1999 | last k2: k2997 | last k9:  | k0000: <absent> | k1000: two | k1001: <absent> | k2500: "+big) {
		t.Fatalf("after the apply: %s", after[strings.Index(after, "| last"):])
	}
	if during != after {
		i := 0
		for i < len(during) && i < len(after) && during[i] == after[i] {
			i++
		}
		t.Fatalf("during the apply the store read differently from after it, from byte %d:\n%.200s\nafter:\n%.200s", i, during[i:], after[i:])
	}
	if !bytes.Contains([]byte(after), []byte("owned: k0002 k0004")) {
		t.Fatalf("ScanOwned: %.100s", after[strings.Index(after, "owned"):])
	}
}

// TestReleaseLeavesTheCheckpointStaged: Release stops a held apply
// instead of finishing it; the checkpoint stays staged, the next open
// reads it whole at once and applies it in the background.
func TestReleaseLeavesTheCheckpointStaged(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	gate := make(chan struct{})
	s.bg.gate = gate
	val := strings.Repeat("v", 100)
	err := s.Checkpoint(1, func(w *Writer) error {
		for i := 0; i < 100_000; i++ { // over one transaction: staged
			if err := w.Set([]byte(fmt.Sprintf("k%06d", i)), []byte(val)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	go func() { released <- s.Release() }()
	for !s.bg.stop.Load() { // Release asked the apply to stop
		runtime.Gosched()
	}
	close(gate)
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if left := stagedFiles(t, s); len(left) != 1 {
		t.Fatalf("staging files %v after Release, want checkpoint 1's", left)
	}
	s = mustOpen(t, dir)
	defer s.Close()
	if got := get(t, s, "k099999"); got != val {
		t.Fatalf("after reopening k099999 = %.10q, want the checkpoint's value", got)
	}
	if err := s.WaitApplied(); err != nil {
		t.Fatal(err)
	}
	if left := stagedFiles(t, s); len(left) != 0 {
		t.Fatalf("staging files %v left after the apply", left)
	}
}
