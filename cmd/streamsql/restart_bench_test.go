package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"github.com/streamsql/streamsql/bench"
	"github.com/streamsql/streamsql/exec/state"
)

// The flags of BenchmarkRestartAfterKill. The default 100 MB builds in
// about a minute on the 2-core machine; -restart.mb=1000 is the 1 GB
// figure of docs/benchmarks.md.
var (
	restartMB   = flag.Int("restart.mb", 100, "BenchmarkRestartAfterKill: state size in MB on disk at which the run is killed")
	restartDir  = flag.String("restart.dir", "", "BenchmarkRestartAfterKill: keep the killed state in this directory and reuse it when it exists")
	restartBin  = flag.String("restart.bin", "", "BenchmarkRestartAfterKill: restart with this streamsql binary instead of one built from this tree (an A/B comparison on the same killed state)")
	restartCold = flag.Bool("restart.cold", false, "BenchmarkRestartAfterKill: evict each copy's pages from the page cache before restarting it, as after a reboot")
	restartGrow = flag.Duration("restart.grow", 30*time.Minute, "BenchmarkRestartAfterKill: how long one attempt may grow the state; a -restart.dir not yet killed is grown further by the next run")
)

// BenchmarkRestartAfterKill runs bench.RestoreSQL with `streamsql run`
// in a child process, checkpointing every 5 s, until the state directory
// holds -restart.mb MB after a checkpoint, and kills it with SIGKILL right
// after that checkpoint, while its apply runs in the background. Each
// iteration then restarts a copy of that directory with `streamsql
// serve` and times it from exec until the point query bench.RestoreProbe
// answers over the wire, and times `streamsql query` of the same probe on
// another copy (the read-only path a user takes to look at a crashed
// pipeline); with -restart.cold the copies' pages are evicted from the
// page cache first. It reports wall seconds per GB of state for both and the
// restarted server's CPU seconds (user+sys until it is killed after the
// answer).
func BenchmarkRestartAfterKill(b *testing.B) {
	bin := *restartBin
	if bin == "" {
		bin = streamsqlBinary(b)
	}
	built := *restartDir
	if built == "" {
		built = filepath.Join(b.TempDir(), "killed")
	}
	size, err := state.DiskUsage(built)
	if _, done := os.Stat(killedMark(built)); err != nil || done != nil {
		if size, err = buildKilledState(b, bin, built, int64(*restartMB)*1e6); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("state: %.0f MB in %s", float64(size)/1e6, built)
	b.ResetTimer()
	var serveWall, serveCPU, queryWall float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dirs := [2]string{filepath.Join(b.TempDir(), fmt.Sprint("serve", i)), filepath.Join(b.TempDir(), fmt.Sprint("query", i))}
		for _, d := range dirs {
			if err := bench.CopyDir(built, d); err != nil {
				b.Fatal(err)
			}
			if *restartCold {
				if err := evictPageCache(d); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StartTimer()
		wall, cpu, line, err := timeServeRestart(b, bin, dirs[0])
		if err != nil {
			b.Fatal(err)
		}
		qwall, err := timeQueryAfterKill(bin, dirs[1])
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("serve answered in %.2f s wall, %.2f s CPU (%s); query answered in %.2f s", wall.Seconds(), cpu.Seconds(), line, qwall.Seconds())
		serveWall += wall.Seconds()
		serveCPU += cpu.Seconds()
		queryWall += qwall.Seconds()
	}
	gb := float64(size) / 1e9 * float64(b.N)
	b.ReportMetric(serveWall/gb, "s/GB")
	b.ReportMetric(serveCPU/gb, "cpu-s/GB")
	b.ReportMetric(queryWall/gb, "query-s/GB")
}

// evictPageCache writes every file under dir back to disk and tells the
// kernel to drop its pages from the page cache (POSIX_FADV_DONTNEED needs
// no privileges, unlike /proc/sys/vm/drop_caches), so the next reads of
// dir go to the disk.
func evictPageCache(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := f.Sync(); err != nil { // dirty pages are not dropped
			return fmt.Errorf("evict %s: %w", path, err)
		}
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			return fmt.Errorf("evict %s: %w", path, err)
		}
		return nil
	})
}

// killedMark is the file beside a -restart.dir that says its state was
// killed at full size; without it the directory is still growing (a run
// that ran out of -restart.grow on a busy machine), and the next run
// resumes it.
func killedMark(dir string) string { return filepath.Clean(dir) + ".killed" }

// buildKilledState runs bench.RestoreSQL in dir (from its last checkpoint
// when an earlier attempt left one) until the directory holds target bytes
// after a checkpoint (read from /metrics), kills the run with SIGKILL,
// marks dir killed and returns its size.
func buildKilledState(b *testing.B, bin, dir string, target int64) (int64, error) {
	file := filepath.Join(b.TempDir(), "restore.sql")
	if err := os.WriteFile(file, []byte(bench.RestoreSQL), 0o644); err != nil {
		return 0, err
	}
	web := freeAddr(b)
	var log strings.Builder
	c := exec.Command(bin, "run", "--state-dir", dir, "--checkpoint-interval", "5s", "--http", web, "--progress", "never", file)
	c.Stdout, c.Stderr = &log, &log
	if err := c.Start(); err != nil {
		return 0, err
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	last := -1.0
	for deadline := time.Now().Add(*restartGrow); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		id := gaugeValue(get(b, "http://"+web+"/metrics"), "streamsql_checkpoint_id")
		if id <= last {
			continue
		}
		last = id
		n, err := state.DiskUsage(dir)
		if err != nil {
			return 0, err
		}
		if n < target {
			continue
		}
		if err := c.Process.Signal(syscall.SIGKILL); err != nil {
			return 0, err
		}
		_ = c.Wait()
		if err := os.WriteFile(killedMark(dir), nil, 0o644); err != nil {
			return 0, err
		}
		return state.DiskUsage(dir)
	}
	n, _ := state.DiskUsage(dir)
	return 0, fmt.Errorf("the run did not reach %d bytes in %v (%d now; run again to grow it further); log:\n%s", target, *restartGrow, n, log.String())
}

// timeServeRestart starts `streamsql serve` on dir and polls the restore
// probe until it answers; it returns the wall time from exec to the
// answer, the server's CPU time (it is killed right after the answer) and
// the restore line it printed.
func timeServeRestart(b *testing.B, bin, dir string) (wall, cpu time.Duration, line string, err error) {
	addr := freeAddr(b)
	var log strings.Builder
	c := exec.Command(bin, "serve", "--state-dir", dir, "--listen", addr, "--http", "", "--checkpoint-interval", "1h")
	c.Stdout, c.Stderr = &log, &log
	t0 := time.Now()
	if err := c.Start(); err != nil {
		return 0, 0, "", err
	}
	ctx := context.Background()
	var answered bool
	for deadline := time.Now().Add(10 * time.Minute); !answered && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		conn, cerr := pgx.Connect(ctx, "postgres://me@"+addr+"/streamsql?sslmode=disable")
		if cerr != nil {
			continue
		}
		var n int64
		err = conn.QueryRow(ctx, bench.RestoreProbe(), pgx.QueryExecModeSimpleProtocol).Scan(&n)
		_ = conn.Close(ctx)
		answered = err == nil
	}
	wall = time.Since(t0)
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()
	if !answered {
		return 0, 0, "", fmt.Errorf("serve never answered the probe (%v); log:\n%s", err, log.String())
	}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "restored") {
			line = strings.TrimSpace(l)
		}
	}
	return wall, cpu, line, nil
}

// timeQueryAfterKill times one `streamsql query` of the restore probe on
// dir.
func timeQueryAfterKill(bin, dir string) (time.Duration, error) {
	t0 := time.Now()
	out, err := exec.Command(bin, "query", "--state-dir", dir, bench.RestoreProbe()).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("query: %w\n%s", err, out)
	}
	return time.Since(t0), nil
}
