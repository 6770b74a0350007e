package exec

import (
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
	gk := state.AppendKeyRow(nil, group)
	start, end := ts, ts+w.win.Gap
	var merge []*winEntry
	for _, s := range w.byGroup[string(gk)] {
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
	for _, s := range merge {
		if err := w.use(s); err != nil {
			return err
		}
	}
	var target *winEntry
	if len(merge) == 1 && merge[0].start == start {
		target = merge[0]
		if target.end != end {
			w.moveEnd(target, end)
		}
	} else {
		target = &winEntry{group: group, start: start, end: end, acc: newAccs(w.calls), fired: v != lateness.OnTime, indexed: noTimer}
		target.key = w.entryKey(group, start)
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
		w.add(target)
		w.insertSession(target)
	}
	target.acc.add(w.calls, r)
	w.touch(target)
	return nil
}

// mergeInto folds session s's accumulators into t by re-encoding: the
// accumulators are mergeable because every one of them is a fold over
// values (count, sum, min, max, avg, distinct sets).
// Whether the merged session has fired is decided by the verdict on the
// merged bounds, not by the parts: a fired session extended past the
// watermark is open again.
func (w *WindowAggregate) mergeInto(t, s *winEntry) {
	for i, a := range s.acc {
		mergeAcc(t.acc[i], a)
	}
}

func mergeAcc(dst, src accumulator) {
	switch d := dst.(type) {
	case *countAcc:
		d.n += src.(*countAcc).n
	case *sumAcc:
		s := src.(*sumAcc)
		d.i += s.i
		d.f += s.f
		d.n += s.n
		if v := s.decimal(); v.K == types.Decimal {
			d.addDecimal(v)
		}
	case *minMaxAcc:
		d.add(src.(*minMaxAcc).v)
	case *avgAcc:
		s := src.(*avgAcc)
		d.sum += s.sum
		d.n += s.n
		if v := s.dec.decimal(); v.K == types.Decimal {
			d.dec.addDecimal(v)
		}
	case *distinctAcc:
		for k, v := range src.(*distinctAcc).seen {
			d.seen[k] = v
		}
	case *jsonAggAcc:
		d.vals = append(d.vals, src.(*jsonAggAcc).vals...)
	case *arrayAggAcc:
		d.vals = append(d.vals, src.(*arrayAggAcc).vals...)
	}
}

// moveEnd re-files a session whose end grew: its timer entry at the old
// end finds nothing due and the new one covers it.
func (w *WindowAggregate) moveEnd(e *winEntry, end int64) {
	e.end = end
	if w.closeAt(end) > w.wm {
		e.fired = false // the session is open again until its new end
	}
	w.timers.push(w.nextEvent(e), e.key)
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
