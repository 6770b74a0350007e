// Package benchrate reports a benchmark's events per wall second and per
// CPU second of the process. The machines we measure on are shared, so
// wall time also counts other processes' turns; events per CPU-second is
// the steadier figure and both are reported.
package benchrate

import (
	"syscall"
	"testing"
	"time"
)

// CPUTime is the process's user+system CPU time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Meter measures from Start to Report.
type Meter struct {
	start time.Time
	cpu0  time.Duration
}

// Start begins a measurement.
func Start() Meter { return Meter{time.Now(), CPUTime()} }

// Report adds events/s and events/cpu-s metrics for events since Start.
func (m Meter) Report(b *testing.B, events int) {
	b.ReportMetric(float64(events)/time.Since(m.start).Seconds(), "events/s")
	if cpu := CPUTime() - m.cpu0; cpu > 0 {
		b.ReportMetric(float64(events)/cpu.Seconds(), "events/cpu-s")
	}
}
