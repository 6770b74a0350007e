package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/streamsql/streamsql/engine"
)

// runFigures are the counts run's progress bar and summary line show,
// summed from one engine.Snapshot (no bookkeeping of their own). A
// source several pipelines read counts once: its readers read the same
// records.
type runFigures struct {
	read, late, deadLettered, skipped, written, changes int64
}

// figuresOf sums s into run's figures.
func figuresOf(s engine.Snapshot) runFigures {
	var f runFigures
	type perSource struct{ read, errs int64 }
	sources := map[string]perSource{}
	policy := map[string]string{}
	for _, src := range s.Sources {
		var read int64
		for _, p := range src.Partitions {
			read += p.Read
		}
		prev := sources[src.Source]
		sources[src.Source] = perSource{max(prev.read, read), max(prev.errs, src.DecodeErrors)}
		policy[src.Source] = src.OnError
	}
	for name, n := range sources {
		f.read += n.read
		switch policy[name] {
		case "dead_letter":
			f.deadLettered += n.errs
		case "skip":
			f.skipped += n.errs
		}
	}
	for _, v := range s.Views {
		f.changes += v.RowsOut
		for _, n := range v.Late {
			f.late += n
		}
	}
	for _, k := range s.Sinks {
		f.written += k.Rows
	}
	return f
}

// minus is f less what base counted (the run's own share of counters
// that survive restarts).
func (f runFigures) minus(base runFigures) runFigures {
	return runFigures{f.read - base.read, f.late - base.late, f.deadLettered - base.deadLettered,
		f.skipped - base.skipped, f.written - base.written, f.changes - base.changes}
}

// progressOf is the fraction of its bounded input the run has read: per
// source its own progress (connectors.Progresser: file bytes, datagen
// events) or, for a source that knows its consumer lag (Kafka), the
// records read over those read and left; the least over the sources,
// since the run ends with its slowest one. ok is false when a source
// knows neither (a memory source, an unbounded datagen).
func progressOf(s engine.Snapshot) (frac float64, ok bool) {
	if len(s.Sources) == 0 {
		return 0, false
	}
	frac = 1
	for _, src := range s.Sources {
		f, known := sourceProgress(src)
		if !known {
			return 0, false
		}
		frac = min(frac, f)
	}
	return frac, true
}

// sourceProgress is one source's share of its input read.
func sourceProgress(src engine.SourceStats) (float64, bool) {
	if src.Total > 0 {
		return min(float64(src.Done)/float64(src.Total), 1), true
	}
	var read, left int64
	for _, p := range src.Partitions {
		if !p.HasLag {
			return 0, false
		}
		read, left = read+p.Read, left+p.Lag
	}
	if len(src.Partitions) == 0 {
		return 0, false
	}
	if read+left == 0 {
		return 1, true
	}
	return float64(read) / float64(read+left), true
}

// renderBar draws the progress bar in width columns: the percentage, the
// bar, the read rate, the elapsed time and the ETA (from the elapsed time
// and the fraction read). tail (the watermark) follows when it fits.
func renderBar(width int, frac, rowsPerSec float64, elapsed time.Duration, tail string) string {
	eta := "ETA -"
	if frac >= 1 {
		eta = "ETA 0s"
	} else if frac > 0 {
		eta = "ETA " + fmtDuration(time.Duration(float64(elapsed)*(1-frac)/frac))
	}
	pct := fmt.Sprintf("%3d%%", int(frac*100))
	info := fmt.Sprintf("%s rows/s  %s  %s", fmtCount(rowsPerSec), fmtDuration(elapsed), eta)
	barWidth := min(40, width-len(pct)-len(info)-4)
	if barWidth < 10 {
		return pct + " " + info
	}
	full := int(frac * float64(barWidth))
	line := pct + " [" + strings.Repeat("#", full) + strings.Repeat(".", barWidth-full) + "] " + info
	if tail != "" && len(line)+2+len(tail) <= width {
		line += "  " + tail
	}
	return line
}

// fmtCount shows a count with a k/M suffix past ten thousand.
func fmtCount(n float64) string {
	switch {
	case n >= 10e6:
		return fmt.Sprintf("%.1fM", n/1e6)
	case n >= 10e3:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

// fmtDuration shows d to the millisecond under a second, to the tenth of
// a second under a minute, to the second above.
func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// summaryLine is the one line run prints at exit: how it ended (done,
// interrupted, failed), its time, and its figures.
func summaryLine(outcome string, f runFigures, elapsed time.Duration) string {
	return fmt.Sprintf("run %s in %s: %d rows read, %d late, %d dead-lettered, %d skipped, %d written to sinks, %d view changes",
		outcome, fmtDuration(elapsed), f.read, f.late, f.deadLettered, f.skipped, f.written, f.changes)
}

// runReport keeps what run's status and summary need: the start, the
// figures the engine had when it opened (restored totals), and the
// figures at the end.
type runReport struct {
	start, reading time.Time
	e              *engine.Engine
	base, last     runFigures
	ended          bool
	batches        int64
	width          int
}

// opened notes the engine and the figures it restored.
func (r *runReport) opened(e *engine.Engine) {
	r.e, r.base = e, figuresOf(e.Metrics())
	r.reading = time.Now()
}

// end takes the final figures, before the engine closes.
func (r *runReport) end() {
	if r.e != nil && !r.ended {
		r.last, r.ended = figuresOf(r.e.Metrics()).minus(r.base), true
	}
}

// close ends the report and closes the engine.
func (r *runReport) close() error {
	r.end()
	return r.e.Close()
}

// status is the terminal's status text: the progress bar when every
// source knows its progress, else the batches, watermark and view
// changes.
func (r *runReport) status() string {
	snap := r.e.Metrics()
	f := figuresOf(snap).minus(r.base)
	upd, wm := r.e.Stats()
	elapsed := time.Since(r.reading)
	rate := float64(f.read) / max(elapsed.Seconds(), 1e-3)
	if frac, ok := progressOf(snap); ok {
		return renderBar(r.width, frac, rate, elapsed, "watermark "+fmtWM(wm))
	}
	return fmt.Sprintf("%6.1fs  rows %d (%s/s)  batches %d  watermark %s  view changes %d", elapsed.Seconds(), f.read, fmtCount(rate), r.batches, fmtWM(wm), upd)
}

// print writes the summary line to w; nothing when the engine never
// opened because of an error (the error line says all there is).
func (r *runReport) print(w io.Writer, outcome string) {
	if r.e == nil && outcome == "failed" {
		return // the engine never opened (a bad setting, unreadable state): the error is the whole story
	}
	r.end()
	fmt.Fprintln(w, summaryLine(outcome, r.last, time.Since(r.start)))
}
