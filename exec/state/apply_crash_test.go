package state

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// killDirEnv names the state directory of the child process
// TestKillMidApplyResumes kills; killMarkEnv, when set, the progress
// record after which it is killed (1 unless set).
const (
	killDirEnv  = "STATE_TEST_KILL_MID_APPLY"
	killMarkEnv = "STATE_TEST_KILL_AT_MARK"
)

// killCheckpoint makes the changes of checkpoint n (1 or 2) of
// TestKillMidApplyResumes through set and del. The first sets 200,000
// keys; the second deletes every third of the first 100,000, overwrites
// 50,000–149,999 (so some deleted keys come back) and adds 60,000 new
// ones: about 180,000 changes, several progress records.
func killCheckpoint(n int, set func(k, v []byte) error, del func(k []byte) error) error {
	key := func(i int) []byte { return []byte(fmt.Sprintf("k%07d", i)) }
	if n == 1 {
		for i := range 200_000 {
			if err := set(key(i), []byte(fmt.Sprintf("1-%d", i))); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; i < 100_000; i += 3 {
		if err := del(key(i)); err != nil {
			return err
		}
	}
	for i := 50_000; i < 260_000; i++ {
		if i >= 150_000 && i < 200_000 {
			continue
		}
		if err := set(key(i), []byte(fmt.Sprintf("2-%d", i))); err != nil {
			return err
		}
	}
	return nil
}

// writeKillCheckpoint writes checkpoint n of TestKillMidApplyResumes.
func writeKillCheckpoint(s *Store, n int) error {
	return s.Checkpoint(uint64(n), func(w *Writer) error { return killCheckpoint(n, w.Set, w.Delete) })
}

// killMidApply is the child: it writes the first checkpoint, waits for
// its apply, then kills itself with SIGKILL once the second checkpoint's
// apply has committed its first progress record (or the one killMarkEnv
// names).
func killMidApply(dir string) {
	at, _ := strconv.Atoi(os.Getenv(killMarkEnv))
	s, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := writeKillCheckpoint(s, 1); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := s.WaitApplied(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s.bg.marked = func() {
		if at--; at <= 0 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	if err := writeKillCheckpoint(s, 2); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_ = s.WaitApplied()
	fmt.Fprintln(os.Stderr, "the apply ended without recording progress")
	os.Exit(3)
}

// TestKillMidApplyResumes kills a process (SIGKILL, as kill -9) in the
// middle of a checkpoint's background apply, after it recorded progress,
// and checks that opening the store resumes the apply after that progress
// instead of from the start, and that the store then holds exactly what
// both checkpoints wrote: every key, value and delete, and no progress
// record or staging file left.
func TestKillMidApplyResumes(t *testing.T) {
	if dir := os.Getenv(killDirEnv); dir != "" {
		killMidApply(dir)
		return
	}
	dir := t.TempDir()
	if err := runKilledChild(dir, 1); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for n := 1; n <= 2; n++ {
		set := func(k, v []byte) error { want[string(k)] = string(v); return nil }
		del := func(k []byte) error { delete(want, string(k)); return nil }
		if err := killCheckpoint(n, set, del); err != nil {
			t.Fatal(err)
		}
	}
	s := mustOpen(t, dir)
	defer s.Close()
	if err := s.WaitApplied(); err != nil {
		t.Fatal(err)
	}
	if n := s.bg.resumed.Load(); n == 0 {
		t.Fatal("the restart applied the whole checkpoint again, want it to resume after the recorded progress")
	}
	got := map[string]string{}
	err := s.Scan(nil, func(k, v []byte) error {
		got[string(k)] = string(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(got, string(keyCommitted))
	if len(got) != len(want) {
		t.Fatalf("%d keys after recovery, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s = %q after recovery, want %q", k, got[k], v)
		}
	}
	if left := stagedFiles(t, s); len(left) != 0 {
		t.Fatalf("staging files %v left after the apply", left)
	}
}

// runKilledChild runs killMidApply on dir in a child process (this test
// binary), killed after the apply's progress record mark.
func runKilledChild(dir string, mark int) error {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillMidApplyResumes$")
	cmd.Env = append(os.Environ(), killDirEnv+"="+dir, fmt.Sprintf("%s=%d", killMarkEnv, mark))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return fmt.Errorf("child: %v, want killed by SIGKILL; output:\n%s", err, out)
	}
	return nil
}

// BenchmarkRecoverAfterKill times opening a store killed (SIGKILL) in the
// middle of a checkpoint's apply, after its second progress record (about
// 131,000 of 177,000 changes applied), until that apply is done: resumed
// after the recorded progress, and applied whole as before progress was
// recorded. Each iteration opens a fresh copy of the killed directory.
func BenchmarkRecoverAfterKill(b *testing.B) {
	killed := b.TempDir()
	if err := runKilledChild(killed, 2); err != nil {
		b.Fatal(err)
	}
	for _, whole := range []bool{false, true} {
		name := "resume"
		if whole {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := filepath.Join(b.TempDir(), "copy")
				if err := os.CopyFS(dir, os.DirFS(killed)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				s, err := Open(dir, func(c *openConfig) { c.wholeApply = whole })
				if err != nil {
					b.Fatal(err)
				}
				if err := s.WaitApplied(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				b.ReportMetric(float64(s.bg.resumed.Load()), "skipped")
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
