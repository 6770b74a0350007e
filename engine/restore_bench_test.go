package engine_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/streamsql/streamsql/bench"
	"github.com/streamsql/streamsql/exec/state"
)

// The flags of BenchmarkRestore. The default 100 MB fits the 2-core
// machine; -restore.mb=1024 is the 1 GB figure of docs/benchmarks.md.
var (
	restoreMB      = flag.Int("restore.mb", 100, "state size in MB that BenchmarkRestore builds before timing restarts")
	restoreDir     = flag.String("restore.dir", "", "BenchmarkRestore: keep the built state in this directory and reuse it when it exists")
	restoreProfile = flag.String("restore.cpuprofile", "", "BenchmarkRestore: write a CPU profile of the restarts only (not the build) to this file")
)

// BenchmarkRestore builds -restore.mb of state (bench.RestoreSQL: a stored
// projection, a GROUP BY and an interval join over Nexmark bids and
// auctions), drops the engine as kill -9 would, and times each restart of a
// copy of that state until the engine answers a query. It reports wall
// and CPU seconds per GB of state.
func BenchmarkRestore(b *testing.B) {
	ctx := context.Background()
	cfg := bench.Config{CheckpointInterval: 5 * time.Second}
	built := *restoreDir
	if built == "" {
		built = filepath.Join(b.TempDir(), "built")
	}
	size, err := state.DiskUsage(built)
	if err != nil || size == 0 {
		if size, err = bench.BuildRestoreState(ctx, cfg, built, int64(*restoreMB)*1e6); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("state: %.0f MB in %s", float64(size)/1e6, built)
	b.ResetTimer()
	var wall, cpu float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		if err := bench.CopyDir(built, dir); err != nil {
			b.Fatal(err)
		}
		stop := profile(b)
		b.StartTimer()
		m, err := bench.MeasureRestore(ctx, cfg, dir)
		b.StopTimer()
		stop()
		if err != nil {
			b.Fatal(err)
		}
		b.Log(m)
		wall += m.Wall.Seconds()
		cpu += m.CPU.Seconds()
		b.StartTimer()
	}
	gb := float64(size) / 1e9 * float64(b.N)
	b.ReportMetric(wall/gb, "s/GB")
	b.ReportMetric(cpu/gb, "cpu-s/GB")
}

// profile starts the -restore.cpuprofile profile (appending restarts to
// one file is not possible, so the last restart's profile is kept) and
// returns its stop.
func profile(b *testing.B) func() {
	if *restoreProfile == "" {
		return func() {}
	}
	f, err := os.Create(*restoreProfile)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
