package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/streamsql/streamsql/exec"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// tableFeed carries a TABLE's changelog into the scans of it in a view:
// an upsert as the delete of the row it replaces and the insert of the
// new one, a delete as the delete of the row. Changes reach the view as
// the table applies them (an INSERT, UPDATE or DELETE, or a connector's
// batch), inside the same statement or step.
//
// A memory table's DML is durable when it returns, but a view's state only
// at checkpoints, so such changes are also logged under t/<table>/log/
// with the table's sequence number (in the write that stores the rows),
// and each view checkpoints the last sequence it took (seq): after a
// crash the view takes the logged changes past it, so none is missed or
// taken twice. A checkpoint stores every feed at the table's current
// sequence and drops the log up to it. A connector table's changes need
// no log: its contents, its source position and its views' state are
// checkpointed together and its source replays past them.
type tableFeed struct {
	t     *tableRT
	to    *viewRT
	scans []exec.ScanInput
	seq   uint64 // the table's last change the view has taken
	fresh bool   // no stored position: the view is filled from the table's rows
	// wm is the watermark of a versioned TABLE (one with WATERMARK FOR)
	// sent to the scans: the largest version time fed minus the delay
	// (after a restart it starts over from the changes fed again; the
	// operators keep the watermark they reached).
	wm int64
}

// linkTableFeed connects scan sc of rt to the running TABLE it names,
// creating the feed on the first scan of that table.
func (e *Engine) linkTableFeed(rt *viewRT, sc exec.ScanInput) error {
	t := e.tables[strings.ToLower(sc.Source)]
	if t == nil {
		return sqlerr.New(sqlerr.UndefinedTable, "table %q is not running", sc.Source)
	}
	for _, f := range rt.tables {
		if f.t == t {
			f.scans = append(f.scans, sc)
			return nil
		}
	}
	f := &tableFeed{t: t, to: rt, scans: []exec.ScanInput{sc}, seq: t.seq, fresh: true, wm: types.MinTime}
	rt.tables = append(rt.tables, f)
	t.feeds = append(t.feeds, f)
	return nil
}

// unlinkTableFeeds detaches v from the tables it reads.
func (v *viewRT) unlinkTableFeeds() {
	for _, f := range v.tables {
		out := f.t.feeds[:0]
		for _, g := range f.t.feeds {
			if g != f {
				out = append(out, g)
			}
		}
		f.t.feeds = out
	}
	v.tables = nil
}

// push sends one net change of the table (rows deleted, then rows
// inserted, of distinct keys) to every scan of it.
func (f *tableFeed) push(dels, ins []types.Row) {
	rows := make([]types.Row, 0, len(dels)+len(ins))
	rows = append(append(rows, dels...), ins...)
	var diffs []int8
	if len(dels) > 0 {
		diffs = make([]int8, len(rows))
		for i := range diffs {
			diffs[i] = 1
			if i < len(dels) {
				diffs[i] = -1
			}
		}
	}
	f.pushDiffs(rows, diffs)
}

// pushDiffs sends rows, each with its diff (+1 insert, -1 delete; nil:
// all inserts), in order to every scan of the table; a failure stops
// the view.
func (f *tableFeed) pushDiffs(rows []types.Row, diffs []int8) {
	if f.to.err != nil || len(rows) == 0 {
		return
	}
	for _, sc := range f.scans {
		// Copies: operators may keep the rows, the table replaces its own.
		if err := sc.Out.Emit(&exec.Batch{Rows: exec.ProjectRows(rows, sc.Cols), Diffs: diffs}); err != nil {
			if f.to.err == nil {
				f.to.err = fmt.Errorf("view %s reading table %s: %w", f.to.plan.Name, f.t.obj.Name, err)
			}
			return
		}
	}
	f.watermark(rows, diffs)
}

// watermark moves a versioned TABLE's watermark past the version times
// of the rows inserted and sends it to the scans.
func (f *tableFeed) watermark(rows []types.Row, diffs []int8) {
	tc := f.t.obj.TimeCol
	if tc < 0 {
		return
	}
	wm := f.wm
	for i, r := range rows {
		if (diffs == nil || diffs[i] > 0) && !r[tc].IsNull() {
			wm = max(wm, r[tc].I-f.t.obj.Delay)
		}
	}
	if wm <= f.wm {
		return
	}
	f.wm = wm
	for _, sc := range f.scans {
		if err := sc.Out.EmitWatermark(wm); err != nil {
			if f.to.err == nil {
				f.to.err = fmt.Errorf("view %s reading table %s: %w", f.to.plan.Name, f.t.obj.Name, err)
			}
			return
		}
	}
}

// backfill fills a feed with no stored position from the table's current
// rows, as inserts, and puts it at the table's current sequence.
func (f *tableFeed) backfill() error {
	rows := f.t.Rows()
	for len(rows) > 0 {
		n := min(len(rows), flushBatchRows)
		f.push(nil, rows[:n])
		rows = rows[n:]
	}
	f.seq, f.fresh = f.t.seq, false
	return f.to.err
}

// checkpointTables stores the position of each table v reads.
func (v *viewRT) checkpointTables(w *state.Writer) error {
	for _, f := range v.tables {
		if err := w.Set(v.tablePosKey(f), binary.BigEndian.AppendUint64(nil, f.seq)); err != nil {
			return err
		}
	}
	return nil
}

// restoreTables loads the position of each table v reads; a view with
// none (created after the last checkpoint) is backfilled by catchUpTables.
func (v *viewRT) restoreTables(st *state.Store) error {
	for _, f := range v.tables {
		b, ok, err := st.Get(v.tablePosKey(f))
		if err != nil {
			return err
		}
		f.fresh = !ok || len(b) != 8
		if !f.fresh {
			f.seq = binary.BigEndian.Uint64(b)
		}
	}
	return nil
}

func (v *viewRT) tablePosKey(f *tableFeed) []byte {
	return []byte(v.prefix() + "table/" + strings.ToLower(f.t.obj.Name))
}

// catchUpTables brings every view reading a table to the table's
// current contents after a restart: a view with a stored position takes
// the logged changes past it, in order; one without is filled from the
// rows.
func (e *Engine) catchUpTables(ctx context.Context) error {
	for _, name := range sortedKeys(e.tables) {
		t := e.tables[name]
		if err := t.replayLog(ctx); err != nil {
			return err
		}
		for _, f := range t.feeds {
			if f.fresh {
				if err := f.backfill(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// replayLog feeds the logged changes of t to each feed that has not
// taken them.
func (t *tableRT) replayLog(ctx context.Context) error {
	from := t.seq
	for _, f := range t.feeds {
		if !f.fresh && f.seq < from {
			from = f.seq
		}
	}
	if from == t.seq {
		return nil
	}
	p := []byte(t.prefix() + "log/")
	start := t.logKey(from + 1)
	return t.store.ScanFrom(p, start, func(k, v []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		seq := binary.BigEndian.Uint64(k[len(p):])
		dels, ins, err := decodeTableChange(v)
		if err != nil {
			return fmt.Errorf("table %s: log entry %d: %w", t.obj.Name, seq, err)
		}
		for _, f := range t.feeds {
			if !f.fresh && f.seq < seq {
				f.push(dels, ins)
				f.seq = seq
				if f.to.err != nil {
					return f.to.err
				}
			}
		}
		return nil
	})
}

func (t *tableRT) logKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte(t.prefix()+"log/"), seq)
}

// encodeTableChange is a log entry: a header row holding the number of
// deleted rows, the deleted rows, then the inserted rows.
func encodeTableChange(dels, ins []types.Row) []byte {
	rows := make([]types.Row, 0, 1+len(dels)+len(ins))
	rows = append(rows, types.Row{types.IntValue(int64(len(dels)))})
	return state.EncodeValue(append(append(rows, dels...), ins...)...)
}

func decodeTableChange(v []byte) (dels, ins []types.Row, err error) {
	rows, err := state.DecodeValue(v)
	if err != nil {
		return nil, nil, err
	}
	if len(rows) == 0 || len(rows[0]) != 1 || int(rows[0][0].I) > len(rows)-1 {
		return nil, nil, fmt.Errorf("bad entry")
	}
	n := int(rows[0][0].I)
	return rows[1 : 1+n], rows[1+n:], nil
}

// restoreLog finds the sequence and the pending (not yet dropped) log
// entries of a memory table after a restart.
func (t *tableRT) restoreLog(st *state.Store) error {
	if b, ok, err := st.Get([]byte(t.prefix() + "seq")); err != nil {
		return err
	} else if ok && len(b) == 8 {
		t.seq = binary.BigEndian.Uint64(b)
	}
	p := []byte(t.prefix() + "log/")
	err := st.Scan(p, func(k, _ []byte) error {
		seq := binary.BigEndian.Uint64(k[len(p):])
		t.pending = append(t.pending, seq)
		t.seq = max(t.seq, seq)
		return nil
	})
	sort.Slice(t.pending, func(i, j int) bool { return t.pending[i] < t.pending[j] })
	return err
}

// checkpointLog stores a memory table's sequence and drops the log
// entries every view has now checkpointed past.
func (t *tableRT) checkpointLog(w *state.Writer) error {
	if err := w.Set([]byte(t.prefix()+"seq"), binary.BigEndian.AppendUint64(nil, t.seq)); err != nil {
		return err
	}
	for _, seq := range t.pending {
		if err := w.Delete(t.logKey(seq)); err != nil {
			return err
		}
	}
	t.pending = t.pending[:0]
	return nil
}
