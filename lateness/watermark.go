// Package lateness is the leaf that owns event-time progress: per-partition
// watermark generators with bounded out-of-orderness, the minimum over
// partitions with idle partitions excluded, and the late-data policies with
// their counters. It never reads the wall clock itself: callers pass the
// processing time in, so idleness is testable.
package lateness

import "github.com/streamsql/streamsql/types"

// Generator tracks the watermark of one source: per partition
// max(event time seen) - delay, never moving back; the source watermark is
// the minimum over partitions that are not idle. A partition that has
// seen no row holds the watermark at types.MinTime (as in Flink), unless it
// has been idle for longer than the idle timeout.
type Generator struct {
	delay       int64
	idleTimeout int64 // microseconds of processing time; 0 = never idle
	parts       []partition
	current     int64
}

type partition struct {
	wm       int64
	lastSeen int64 // processing time of the last row, 0 = never
	idle     bool
}

// NewGenerator returns a generator for n partitions with the given delay
// and idle timeout (both microseconds; idleTimeout 0 disables idleness).
// now is the current processing time, the start of every partition's idle
// clock.
func NewGenerator(n int, delay, idleTimeout, now int64) *Generator {
	g := &Generator{delay: delay, idleTimeout: idleTimeout, parts: make([]partition, 0, n), current: types.MinTime}
	g.Grow(n, now)
	return g
}

// Partitions is the number of partitions the generator tracks.
func (g *Generator) Partitions() int { return len(g.parts) }

// Grow adds partitions up to n (a source gained partitions while running).
// A new partition starts like one at NewGenerator: it has seen no row, so
// it holds the minimum at its own watermark until it sees rows or idles
// out; the source watermark itself never moves back, so rows the new
// partition carries from before it are late by the usual rules.
func (g *Generator) Grow(n int, now int64) {
	for len(g.parts) < n {
		g.parts = append(g.parts, partition{wm: types.MinTime, lastSeen: now})
	}
}

// Observe records a row of partition p with event time ts at processing
// time now and returns the source watermark after it.
func (g *Generator) Observe(p int, ts, now int64) int64 {
	pt := &g.parts[p]
	pt.lastSeen = now
	pt.idle = false
	if w := ts - g.delay; w > pt.wm {
		pt.wm = w
		g.recompute()
	}
	return g.current
}

// Tick marks partitions idle whose last row is older than the idle timeout
// at processing time now, and returns the watermark.
func (g *Generator) Tick(now int64) int64 {
	if g.idleTimeout <= 0 {
		return g.current
	}
	changed := false
	for i := range g.parts {
		pt := &g.parts[i]
		if !pt.idle && now-pt.lastSeen >= g.idleTimeout {
			pt.idle = true
			changed = true
		}
	}
	if changed {
		g.recompute()
	}
	return g.current
}

// Current returns the source watermark.
func (g *Generator) Current() int64 { return g.current }

// recompute sets current to the minimum over active partitions; it never
// moves the watermark back.
func (g *Generator) recompute() {
	min := int64(types.MinTime)
	first := true
	for _, pt := range g.parts {
		if pt.idle {
			continue
		}
		if first || pt.wm < min {
			min = pt.wm
			first = false
		}
	}
	if first { // every partition idle: the max of them all
		for _, pt := range g.parts {
			if pt.wm > min {
				min = pt.wm
			}
		}
	}
	if min > g.current {
		g.current = min
	}
}

// PartitionState is one partition's watermark, the processing time of its
// last row (or of its start, when it has seen none) and whether it is idle.
type PartitionState struct {
	Watermark, LastSeen int64
	Idle                bool
}

// Partition returns partition p's state.
func (g *Generator) Partition(p int) PartitionState {
	pt := g.parts[p]
	return PartitionState{Watermark: pt.wm, LastSeen: pt.lastSeen, Idle: pt.idle}
}

// Holder returns the active partition whose watermark is the minimum, the
// one holding the source watermark back; ok is false when every partition
// is idle.
func (g *Generator) Holder() (p int, ok bool) {
	for i, pt := range g.parts {
		if !pt.idle && (!ok || pt.wm < g.parts[p].wm) {
			p, ok = i, true
		}
	}
	return p, ok
}

// IdleTimeout is the generator's idle timeout in microseconds (0: none).
func (g *Generator) IdleTimeout() int64 { return g.idleTimeout }

// State returns the per-partition watermarks and the current watermark, to
// store in a checkpoint.
func (g *Generator) State() (parts []int64, current int64) {
	parts = make([]int64, len(g.parts))
	for i, pt := range g.parts {
		parts[i] = pt.wm
	}
	return parts, g.current
}

// Restore sets the generator back to a checkpointed state.
func (g *Generator) Restore(parts []int64, current int64) {
	for i := range g.parts {
		if i < len(parts) {
			g.parts[i].wm = parts[i]
		}
	}
	g.current = current
}
