package engine

import (
	"strings"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// viewFeed carries a materialized view's changelog into the scans of it
// in a pipeline that reads the view (another view or a query sink). The
// upstream's root hands every change and every advance of its watermark
// to the feed as it makes them, inside the same step, so the reading
// pipeline needs no position of its own: one checkpoint holds both
// pipelines at the same point, and nothing is recomputed or copied.
type viewFeed struct {
	from  *viewRT // the view read
	to    *viewRT // the pipeline reading it
	scans []exec.ScanInput
}

// linkFeed connects scan sc of rt to the running view it names, creating
// the feed on the first scan of that view.
func (e *Engine) linkFeed(rt *viewRT, sc exec.ScanInput) error {
	from := e.views[strings.ToLower(sc.Source)]
	if from == nil || from.pipe.View0 == nil {
		return sqlerr.New(sqlerr.UndefinedTable, "materialized view %q is not running", sc.Source)
	}
	for _, f := range rt.upstream {
		if f.from == from {
			f.scans = append(f.scans, sc)
			return nil
		}
	}
	f := &viewFeed{from: from, to: rt, scans: []exec.ScanInput{sc}}
	rt.upstream = append(rt.upstream, f)
	from.feeds = append(from.feeds, f)
	return nil
}

// unlinkFeeds detaches v from the views it reads (DROP, or a CREATE that
// failed after starting v).
func (v *viewRT) unlinkFeeds() {
	for _, f := range v.upstream {
		f.from.feeds = removeFeed(f.from.feeds, f)
	}
	v.upstream = nil
	v.unlinkTableFeeds()
}

func removeFeed(feeds []*viewFeed, f *viewFeed) []*viewFeed {
	out := feeds[:0]
	for _, g := range feeds {
		if g != f {
			out = append(out, g)
		}
	}
	return out
}

// push sends changes of the upstream view to every scan of it, each row
// stamped with the upstream's watermark when it was made (the watermark
// lateness is judged against downstream). A failure stops both views.
func (f *viewFeed) push(ch []connectors.Change, wm int64) {
	if len(ch) == 0 || f.to.fault() != nil {
		return
	}
	b := &exec.Batch{Rows: make([]types.Row, len(ch)), WM: make([]int64, len(ch))}
	for i, c := range ch {
		b.Rows[i], b.WM[i] = c.Row, wm
		if c.Op == connectors.Delete {
			if b.Diffs == nil {
				b.Diffs = make([]int8, len(ch))
				for j := range b.Diffs {
					b.Diffs[j] = 1
				}
			}
			b.Diffs[i] = -1
		}
	}
	f.fail(f.emit(b))
}

// emit projects b onto each scan's columns and feeds it.
func (f *viewFeed) emit(b *exec.Batch) error {
	for _, sc := range f.scans {
		out := b
		if !exec.IdentityCols(sc.Cols, len(f.from.plan.Optimized.Schema())) {
			out = &exec.Batch{Rows: exec.ProjectRows(b.Rows, sc.Cols), Diffs: b.Diffs, WM: b.WM}
		}
		if err := sc.Out.Emit(out); err != nil {
			return err
		}
	}
	return nil
}

// watermark sends the upstream's output watermark to every scan of it.
func (f *viewFeed) watermark(wm int64) error {
	if wm == types.MinTime {
		return nil
	}
	for _, sc := range f.scans {
		if err := sc.Out.EmitWatermark(wm); err != nil {
			return err
		}
	}
	return nil
}

// fail records err as the first error of the reading pipeline and of the
// view it reads, so the step that made the change stops with it.
func (f *viewFeed) fail(err error) {
	if err == nil {
		return
	}
	if f.to.err == nil {
		f.to.err = err
	}
	if f.from.err == nil {
		f.from.err = err
	}
}

// backfill starts a feed created over a view that already has rows: its
// current contents as inserts (with no watermark, so none is late), then
// its watermark, after which its changes follow as it makes them.
func (f *viewFeed) backfill() error {
	rows, err := f.from.pipe.View0.Rows()
	if err != nil {
		return err
	}
	for len(rows) > 0 {
		n := min(len(rows), flushBatchRows)
		if err := f.emit(&exec.Batch{Rows: rows[:n]}); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return f.watermark(f.from.pipe.View0.OutputWatermark())
}

// backfill fills a pipeline created just now from the current contents
// of the views it reads (call it once whatever reads its output is
// attached), then ticks it at now.
func (v *viewRT) backfill(now int64) error {
	for _, f := range v.upstream {
		if err := f.backfill(); err != nil {
			return err
		}
	}
	for _, f := range v.tables {
		if err := f.backfill(); err != nil {
			return err
		}
	}
	// The tick every step gives, now: an aggregate without GROUP BY
	// emits its row over no input (count 0), so the new view has it
	// before its first step.
	for _, op := range v.pipe.Stateful {
		if err := op.Tick(now); err != nil {
			return err
		}
	}
	return v.fault()
}

// outChanges is the view root's changelog hook: every change to its
// rows, unconsolidated, goes to the views reading v.
func (v *viewRT) outChanges(ch []connectors.Change) {
	wm := v.pipe.View0.OutputWatermark()
	for _, f := range v.feeds {
		f.push(ch, wm)
	}
}

// outWatermark is the view root's watermark hook: the views reading v
// follow it.
func (v *viewRT) outWatermark(wm int64) {
	for _, f := range v.feeds {
		f.fail(f.watermark(wm))
	}
}
