package kafka

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time: benchmarks report
// events per CPU-second next to wall-clock events/s, because the machine
// is shared and wall time counts other processes' turns.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// perf reports events/s (wall) and events/cpu-s since start/cpu0.
type perf struct {
	start time.Time
	cpu0  time.Duration
}

func startPerf() perf { return perf{time.Now(), cpuTime()} }

func (p perf) report(b *testing.B, events int) {
	b.ReportMetric(float64(events)/time.Since(p.start).Seconds(), "events/s")
	if cpu := cpuTime() - p.cpu0; cpu > 0 {
		b.ReportMetric(float64(events)/cpu.Seconds(), "events/cpu-s")
	}
}
