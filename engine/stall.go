package engine

import (
	"fmt"
	"github.com/streamsql/streamsql/exec"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// A stuck watermark is the commonest reason results stop: one partition
// of a source goes quiet (or its producer sends old events) and holds the
// source's watermark, the minimum over its partitions, so no window
// closes although rows keep arriving. After every step the engine checks
// each view: when rows came in but the view's watermark has not moved for
// watermark_stall_timeout (engine clock) since the first of them, it logs which source and
// partition hold the minimum and what would release them, and the view's
// Stalled figure is set until the watermark moves again.

// stallState is one view's watch over its watermark.
type stallState struct {
	seen   bool
	wm     int64 // the view's watermark when it last moved
	rowsAt int64 // rows the view had read then
	// since is the engine clock (µs) of the first rows read after the
	// watermark last moved (0: none yet): the stall clock's start.
	since   int64
	stalled bool
}

// stallTimeout is the watermark_stall_timeout setting (0: off); e.mu is
// held.
func (e *Engine) stallTimeout() time.Duration {
	d, err := connectors.ParseDuration(e.settings["watermark_stall_timeout"])
	if err != nil || d < 0 { // checkSetting admits neither
		return time.Minute
	}
	return d
}

// holder is the reader whose watermark is the view's: the lowest over its
// readers with an event-time watermark that are still reading; ok is
// false when there is none.
func (v *viewRT) holder() (r *exec.Source, ok bool) {
	for _, c := range v.readers {
		if c.Object().TimeCol < 0 || c.Ended() {
			continue
		}
		if !ok || c.Watermark() < r.Watermark() {
			r, ok = c, true
		}
	}
	return r, ok
}

// checkStall updates v's stall watch at engine time now (µs) and logs
// when the watermark gets stuck or moves again; e.mu is held.
func (e *Engine) checkStall(v *viewRT, now int64, timeout time.Duration) {
	r, ok := v.holder()
	if !ok || timeout <= 0 {
		v.stall.stalled = false
		return
	}
	var in int64
	for _, c := range v.readers {
		in += c.Total()
	}
	st := &v.stall
	wm := r.Watermark()
	if !st.seen || wm != st.wm {
		if st.stalled {
			e.opts.Logger.Info("watermark moved again", "view", v.plan.Name, "watermark", fmtWatermark(wm))
		}
		*st = stallState{seen: true, wm: wm, rowsAt: in}
		return
	}
	if st.since == 0 && in != st.rowsAt {
		st.since = now // rows arrive, the watermark stays: the clock starts
	}
	if st.stalled || st.since == 0 || now-st.since < timeout.Microseconds() {
		return
	}
	st.stalled = true
	e.opts.Logger.Warn(stallMessage(v.plan.Name, r, now, time.Duration(now-st.since)*time.Microsecond), stallAttrs(v.plan.Name, r)...)
}

// stallMessage names the source and partition holding view's watermark
// and what would release them.
func stallMessage(view string, r *exec.Source, now int64, stuck time.Duration) string {
	msg := fmt.Sprintf("view %s: watermark stuck at %s: rows have arrived for %s without moving it", view, fmtWatermark(r.Watermark()), stuck.Round(time.Second))
	p, ok := r.Generator().Holder()
	if !ok {
		return msg
	}
	ps := r.Generator().Partition(p)
	quiet := time.Duration(now-ps.LastSeen) * time.Microsecond
	msg += fmt.Sprintf("; source %s partition %d holds it (its watermark %s, last row %s ago)", r.Object().Name, p, fmtWatermark(ps.Watermark), quiet.Round(time.Second))
	if idle := r.Generator().IdleTimeout(); idle > 0 {
		return msg + fmt.Sprintf("; it is not idle (idle_timeout %s): its producer is behind, sending old events (a late producer), and the watermark moves when it catches up", time.Duration(idle)*time.Microsecond)
	}
	return msg + fmt.Sprintf("; set idle_timeout on source %s so a quiet partition stops holding the watermark, or get partition %d's producer going (a late producer)", r.Object().Name, p)
}

// fmtWatermark shows a watermark as a timestamp, or says there is none
// yet.
func fmtWatermark(wm int64) string {
	if wm == types.MinTime {
		return "none (no row yet)"
	}
	return types.TimestampValue(wm).String()
}

// stallAttrs are the structured fields of a stall warning: the view, and
// the source and partition holding its watermark when one does.
func stallAttrs(view string, r *exec.Source) []any {
	attrs := []any{"view", view, "watermark", fmtWatermark(r.Watermark())}
	if p, ok := r.Generator().Holder(); ok {
		attrs = append(attrs, "source", r.Object().Name, "partition", p)
	}
	return attrs
}
