package exec

import (
	"bytes"
	"fmt"
	"slices"
	"sort"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/types"
)

// addSession folds a row into its group's sessions. A row opens
// [ts, ts+gap); sessions that touch or overlap it merge into one whose end
// is the last row plus the gap. Lateness is judged on the merged session,
// which closes once the watermark passes its end (closeAt).
func (w *WindowAggregate) addSession(r types.Row, ts, wm int64) error {
	group := w.groupOf(r)
	w.keyBuf = state.AppendKeyRow(w.keyBuf[:0], group)
	sessions, err := w.sessionsOf(w.keyBuf)
	if err != nil {
		return err
	}
	if sessions, err = w.settleGroup(string(w.keyBuf), sessions, wm); err != nil {
		return err
	}
	start, end := ts, ts+w.win.Gap
	var merge []*winEntry
	for _, s := range sessions {
		if s.start <= end && ts <= s.end {
			merge = append(merge, s)
			if s.start < start {
				start = s.start
			}
			if s.end > end {
				end = s.end
			}
		}
	}
	v := lateness.Judge(w.closeAt(end), w.contract.Lateness, wm)
	switch lateness.Decide(v, w.policy) {
	case lateness.Side:
		w.late.Add(w.policy, reasonOf(v), 1)
		if w.side != nil {
			w.side(r, reasonOf(v), wm)
		}
		return nil
	case lateness.Discard:
		w.late.Add(w.policy, reasonOf(v), 1)
		return nil
	}
	var target *winEntry
	if len(merge) == 1 && merge[0].start == start {
		target = merge[0]
		if target.end != end {
			w.moveEnd(target, end, wm)
		}
	} else {
		target = &winEntry{group: group, start: start, end: end, acc: newAccs(w.calls), fired: v != lateness.OnTime, indexed: noTimer}
		target.key = w.entryKey(group, start, end)
		for _, s := range merge {
			w.mergeInto(target, s)
			// What downstream holds for s is replaced when the merged
			// session is emitted (at its close, or now if late or ON UPDATE).
			target.stale = append(target.stale, s.stale...)
			if s.emitted != nil {
				target.stale = append(target.stale, s.emitted)
			}
			w.drop(s)
		}
		w.revive(target)
		w.add(target)
		w.insertSession(target)
	}
	target.acc.add(w.calls, r)
	w.touch(target)
	return nil
}

// settleGroup brings the group gk's sessions to watermark wm, the one in
// force for the row at hand, before the row meets them: the watermark
// moves after each row, but the operator visits its timers when a batch
// ends, so within a batch a session may still be held that wm has fired
// or dropped. Those are visited now (after the batch's pending rows are
// emitted, as at a batch's end), so that the row merges only with what
// is still kept at wm and the answer does not depend on how rows are
// batched (a crash's replay batches them differently). It returns the
// group's sessions left.
func (w *WindowAggregate) settleGroup(gk string, sessions []*winEntry, wm int64) ([]*winEntry, error) {
	var due []*winEntry
	for _, s := range sessions {
		if w.nextEvent(s) <= wm {
			due = append(due, s)
		}
	}
	if len(due) == 0 {
		return sessions, nil
	}
	if err := w.flushPending(); err != nil {
		return nil, err
	}
	out := &Batch{}
	for _, s := range due {
		w.visit(s, wm, out)
	}
	if len(out.Rows) > 0 {
		if err := w.out.Emit(out); err != nil {
			return nil, err
		}
	}
	return w.byGroup[gk], nil
}

// mergeInto folds session s's accumulators into t's (accumulator.merge).
// Whether the merged session has fired is decided by the verdict on the
// merged bounds, not by the parts: a fired session extended past the
// watermark is open again.
func (w *WindowAggregate) mergeInto(t, s *winEntry) {
	for i, a := range s.acc {
		t.acc[i].merge(a)
	}
}

// moveEnd re-files a session whose end grew. A later close needs no new
// timer: the one that covers the session now finds nothing due and
// covers it again at its new time (visit), so the heap holds one entry
// per session however many rows extend it. A fired session extended past
// the watermark is open again, and closes before its old drop time: that
// earlier time is pushed. wm is the watermark in force for the row that
// extends it.
func (w *WindowAggregate) moveEnd(e *winEntry, end, wm int64) {
	was := w.nextEvent(e)
	e.end = end
	if w.closeAt(end) > wm {
		e.fired = false // the session is open again until its new end
	}
	if now := w.nextEvent(e); now < was {
		w.timers.push(now, e)
	}
}

func (w *WindowAggregate) insertSession(e *winEntry) {
	gk := string(state.AppendKeyRow(nil, e.group))
	list := append(w.byGroup[gk], e)
	sort.Slice(list, func(i, j int) bool { return list[i].start < list[j].start })
	w.byGroup[gk] = list
}

func (w *WindowAggregate) removeSession(e *winEntry) {
	gk := string(state.AppendKeyRow(nil, e.group))
	list := w.byGroup[gk]
	for i, x := range list {
		if x == e {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(w.byGroup, gk)
	} else {
		w.byGroup[gk] = list
	}
}

// sessionsOf returns the sessions of the group whose key row is gk, by
// start. A group's sessions are in memory together or not at all: when
// its group is not held and windows may be in Badger, they are loaded
// (loadGroup), so a row finds every session it can merge with.
func (w *WindowAggregate) sessionsOf(gk []byte) ([]*winEntry, error) {
	if list, ok := w.byGroup[string(gk)]; ok || !w.onDisk {
		return list, nil
	}
	return w.loadGroup(string(gk))
}

// loadGroup brings the sessions of the group whose key row is gk into
// memory: with two short seeks under the group's key, the checkpoint's
// sessions (less those removed or spilled since) and the spill area's
// (changed since the checkpoint). Loaded sessions have no heap entry:
// the stored timers cover those the checkpoint holds, and the heap still
// covers the spilled ones, which changed since it.
func (w *WindowAggregate) loadGroup(gk string) ([]*winEntry, error) {
	var list []*winEntry
	load := func(prefix string, spilled bool) error {
		return w.store.Scan([]byte(prefix+gk), func(key, val []byte) error {
			k := string(key[len(prefix):])
			if _, removed := w.gone[k]; (removed && !spilled) || w.spill.has(k) != spilled {
				return nil // removed since, or its current value is elsewhere
			}
			if !spilled {
				w.spill.reads++
			}
			e, err := w.decodeEntry(k, val, spilled)
			if err != nil {
				return fmt.Errorf("load session state: %w", err)
			}
			list = append(list, e)
			return nil
		})
	}
	if err := load(w.id, false); err != nil {
		return nil, err
	}
	if len(w.spill.spilled) > 0 { // else the spill area holds nothing of it
		if err := load(w.spill.prefix, true); err != nil {
			return nil, err
		}
	}
	if len(list) == 0 {
		return nil, nil
	}
	sort.Slice(list, func(i, j int) bool { return list[i].start < list[j].start })
	for _, e := range list {
		w.windows[e.key] = e
	}
	w.resident += len(list)
	w.byGroup[gk] = list
	return list, nil
}

// lookupSession returns the session stored under key k, loading its
// group when it is not held; nil when there is none.
func (w *WindowAggregate) lookupSession(k string) (*winEntry, error) {
	if e, ok := w.windows[k]; ok || !w.onDisk {
		return e, nil
	}
	_, rest, err := state.DecodeRow([]byte(k))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.id, err)
	}
	gk := k[:len(k)-len(rest)]
	if _, held := w.byGroup[gk]; held {
		return nil, nil // its group is held without it: removed
	}
	if _, err := w.loadGroup(gk); err != nil {
		return nil, err
	}
	return w.windows[k], nil
}

// evictGroups moves whole groups of sessions out of memory until at
// most target sessions stay: a group's sessions leave together, so a
// group is either held whole or not at all (sessionsOf). Changed
// sessions go to the spill area in one batch; groups with a session
// waiting to be emitted stay.
func (w *WindowAggregate) evictGroups(target int) error {
	var victims []string
	var keys []string
	var vals [][]byte
	for gk, list := range w.byGroup {
		if w.resident <= target {
			break
		}
		if slices.ContainsFunc(list, func(e *winEntry) bool { return e.pending || e.gone }) {
			continue
		}
		for _, e := range list {
			if e.dirty {
				keys, vals = append(keys, e.key), append(vals, w.spillValue(e))
			}
		}
		victims = append(victims, gk)
		w.resident -= len(list)
	}
	if err := w.spill.write(keys, vals); err != nil {
		return err
	}
	for _, gk := range victims {
		for _, e := range w.byGroup[gk] {
			e.leave()
			delete(w.windows, e.key)
		}
		delete(w.byGroup, gk)
	}
	w.onDisk = true
	return nil
}

// sessionsDue appends to items the stored timers of sessions that
// watermark wm reached since the last call, when sessions may be in
// Badger.
func (w *WindowAggregate) sessionsDue(wm int64, items []windowDue) ([]windowDue, error) {
	if !w.onDisk {
		return items, nil // the buckets cover every session
	}
	stored, err := w.sessionTimers.due(wm, true, w.ownsSession)
	if err != nil {
		return nil, err
	}
	for _, it := range stored {
		items = append(items, windowDue{at: it.at, key: it.key})
	}
	return items, nil
}

// restoreSessions restores a SESSION aggregate. Over a store whose
// checkpoints keep the sessions' timers (its marker holds timersMark), a
// spilling aggregate reads nothing: a group's sessions come into memory
// when a row needs them or a stored timer fires. Otherwise every owned
// session is loaded; from a store written before sessions had stored
// timers (no marker), each is marked changed, so the first checkpoint
// after the restore writes its timer and the marker: the old layout is
// migrated.
func (w *WindowAggregate) restoreSessions(s *state.Store) error {
	mark, ok, err := s.Get(w.sessionTimers.marker)
	if err != nil {
		return err
	}
	if ok && !bytes.Equal(mark, timersMark) {
		return fmt.Errorf("%s: unknown session layout %q: %w", w.id, mark, state.ErrVersion)
	}
	if ok && w.spills() {
		w.onDisk = true
		return nil
	}
	return w.loadAll(s, !ok)
}
