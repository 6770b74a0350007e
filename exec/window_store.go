package exec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Stored windows. A TUMBLE or HOP window's key is its end (8 bytes,
// big-endian, sign bit flipped) then its group's key row, under the
// operator's id: stored windows order by end, so a window's key is its
// timer. The windows a watermark closes are a range scan of keys up to
// it, and no timer entry is written, moved or deleted beside a window.
// The marker key (the id with its "/" replaced by "@m") holds
// windowsMark and the watermark of the checkpoint: every stored window
// ending at or before it had fired, so one past its allowed lateness is
// deleted without reading it back. SESSION windows, whose end moves, are
// keyed by group then start, each with a stored timer beside it in the
// shared timer queue (timers.go); their marker (the same key: an
// operator's window kind never changes) holds timersMark instead, and
// restoreSessions reads nothing else from it.
//
// Two older layouts restore by migration: windows keyed by group then
// start, with (timersMark) or without timers stored beside them under
// the id's "@t/" space. Their windows are loaded whole, rekeyed by end
// and written at the next checkpoint, which deletes the old keys and
// timers (each instance those it owns).

// windowsMark starts the marker value of a window aggregate whose TUMBLE
// and HOP windows are keyed by their end.
var windowsMark = []byte("windows/2")

// appendEnd appends the key bytes of window end end.
func appendEnd(dst []byte, end int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(end)^(1<<63))
}

// keyEnd is the end of the TUMBLE or HOP window of key k.
func keyEnd(k []byte) int64 { return int64(binary.BigEndian.Uint64(k) ^ (1 << 63)) }

// appendWindowKey appends the key of the window [start, end) of the group
// in columns cols of r: by end for TUMBLE and HOP, by start for SESSION.
func (w *WindowAggregate) appendWindowKey(dst []byte, r types.Row, cols []int, start, end int64) []byte {
	if !w.timed() {
		dst = state.AppendKeyCols(dst, r, cols)
		return state.AppendRow(dst, types.Row{types.TimestampValue(start)})
	}
	return state.AppendKeyCols(appendEnd(dst, end), r, cols)
}

// markerKey is the key of the operator's layout marker.
func (w *WindowAggregate) markerKey() []byte { return []byte(strings.TrimSuffix(w.id, "/") + "@m") }

// mark is the marker value a checkpoint writes: every window ending at or
// before the operator's watermark has fired. Every instance of the
// operator sees the same watermarks, so they write one value. After a
// restore, until the watermark reaches the restored mark again, it keeps
// the lower watermark (a row may have opened a window below the mark).
func (w *WindowAggregate) mark() []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), windowsMark...), uint64(w.wm)^(1<<63))
}

// readMark reads the marker: the layout of the stored windows (2 keyed by
// end, 1 with timers beside them, 0 neither) and, for 2, the watermark
// the windows fired to.
func (w *WindowAggregate) readMark(s *state.Store) (layout int, firedTo int64, err error) {
	v, ok, err := s.Get(w.markerKey())
	switch {
	case err != nil || !ok:
		return 0, types.MinTime, err
	case string(v) == string(timersMark):
		return 1, types.MinTime, nil
	case bytes.HasPrefix(v, windowsMark) && len(v) == len(windowsMark)+8:
		return 2, keyEnd(v[len(windowsMark):]), nil
	}
	return 0, 0, fmt.Errorf("%s: unknown window layout %q: %w", w.id, v, state.ErrVersion)
}

// storedDue appends to items the stored windows, not necessarily in
// memory, that watermark wm needs, when windows may be in Badger: those
// ending after closedTo up to wm, to fire (read back), and, with allowed
// lateness, those that had fired and are now past it, which are dropped
// here without reading them (those in memory or in the spill area are
// appended to be visited instead). Sessions have stored timers
// (sessionsDue).
func (w *WindowAggregate) storedDue(wm int64, items []windowDue) ([]windowDue, error) {
	if !w.timed() {
		return w.sessionsDue(wm, items)
	}
	if !w.onDisk || w.migrating {
		return items, nil // the buckets cover every window
	}
	lat := w.contract.Lateness
	if to := min(w.closedTo, subSat(wm, lat)); to > w.droppedTo {
		err := w.scanStored(w.droppedTo+1, to, func(k []byte, end int64) {
			if it, ok := w.dropStored(k, end+lat); ok {
				items = append(items, it)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	if wm > w.closedTo {
		err := w.scanStored(w.closedTo+1, wm, func(k []byte, end int64) {
			items = append(items, windowDue{at: end, key: string(k)})
		})
		if err != nil {
			return nil, err
		}
	}
	return items, nil
}

// dropStored drops the stored window of key k, which had fired, at its
// drop time at: without reading it when it is neither in memory nor in
// the spill area, else it returns the timer to visit it.
func (w *WindowAggregate) dropStored(k []byte, at int64) (windowDue, bool) {
	_, held := w.windows[string(k)]
	if _, gone := w.gone[string(k)]; gone && !held {
		return windowDue{}, false
	}
	if held || w.spill.has(string(k)) {
		return windowDue{at: at, key: string(k)}, true
	}
	w.gone[string(k)] = noTimer
	return windowDue{}, false
}

// subSat is a - b for b >= 0, stopping at the least time.
func subSat(a, b int64) int64 {
	if a < types.MinTime+b {
		return types.MinTime
	}
	return a - b
}

// scanStored calls fn with the key (after the id) and end of every
// stored window this instance owns ending in [from, to]; the key is valid
// during the call only.
func (w *WindowAggregate) scanStored(from, to int64, fn func(k []byte, end int64)) error {
	prefix := []byte(w.id)
	err := w.store.ScanKeys(prefix, appendEnd([]byte(w.id), from), func(key []byte) error {
		k := key[len(prefix):]
		if len(k) < 8 {
			return errCorrupt(w.id)
		}
		end := keyEnd(k)
		if end > to {
			return errStopScan
		}
		ok, err := w.ownsKey(k)
		if ok {
			fn(k, end)
		}
		return err
	})
	if errors.Is(err, errStopScan) {
		return nil
	}
	return err
}

// ownsSession reports whether this instance keeps the session of key k
// (the stored timers' owner filter).
func (w *WindowAggregate) ownsSession(k string) (bool, error) { return w.ownsKey([]byte(k)) }

// owns reports whether this instance keeps the window stored under key.
func (w *WindowAggregate) owns(key []byte) (bool, error) { return w.ownsKey(key[len(w.id):]) }

// ownsKey reports whether this instance keeps the window of key k, from
// its group.
func (w *WindowAggregate) ownsKey(k []byte) (bool, error) {
	if w.keep == nil {
		return true, nil
	}
	if w.timed() {
		if len(k) < 8 {
			return false, errCorrupt(w.id)
		}
		k = k[8:]
	}
	return w.ownsGroup(k)
}

// ownsGroup reports whether this instance keeps the windows of the group
// whose key row starts b.
func (w *WindowAggregate) ownsGroup(b []byte) (bool, error) {
	if w.keep == nil {
		return true, nil
	}
	g, _, err := state.DecodeRow(b)
	if err != nil {
		return false, fmt.Errorf("%s: %w", w.id, err)
	}
	return w.keep(g), nil
}

// Restore implements Stateful. A spilling TUMBLE or HOP aggregate over
// windows keyed by end reads nothing: windows come into memory when a row
// needs them or the watermark closes them. Otherwise every owned window
// is loaded and covered by the heap; windows in an older layout are
// migrated (migrate). Sessions restore by restoreSessions.
func (w *WindowAggregate) Restore(s *state.Store) error {
	if !w.timed() {
		return w.restoreSessions(s)
	}
	layout, firedTo, err := w.readMark(s)
	if err != nil {
		return err
	}
	if layout < 2 {
		return w.migrate(s, layout)
	}
	w.closedTo = firedTo
	if w.spills() {
		w.onDisk = true
		return nil
	}
	return w.loadAll(s, false)
}

// loadAll loads every owned window of s and covers it in the heap;
// untimed (sessions stored before they had timers) marks each changed, so
// that the next checkpoint writes its timer.
func (w *WindowAggregate) loadAll(s *state.Store, untimed bool) error {
	err := s.ScanOwned([]byte(w.id), w.owns, func(key, val []byte) error {
		e, err := w.decodeEntry(string(key[len(w.id):]), val, false)
		if err != nil {
			return err
		}
		w.add(e)
		if !w.timed() {
			w.insertSession(e)
		}
		if untimed {
			e.indexed = noTimer
			w.markDirty(e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return w.evict()
}

// migrate loads the owned windows of a store in layout 0 or 1 (keyed by
// group then start; 1 with timers), rekeyed by end and changed, and
// lists their old keys and timers for the next checkpoint to delete.
// Until then every window is in memory or the spill area, and covered by
// the heap.
func (w *WindowAggregate) migrate(s *state.Store, layout int) error {
	ownsOld := func(key []byte) (bool, error) { return w.ownsGroup(key[len(w.id):]) }
	err := s.ScanOwned([]byte(w.id), ownsOld, func(key, val []byte) error {
		e, err := w.decodeEntry("", val, false)
		if err != nil {
			return err
		}
		e.key = string(w.appendWindowKey(nil, e.group, w.allCols(len(e.group)), e.start, e.end))
		e.persisted = false
		w.add(e)
		w.markDirty(e)
		w.oldKeys = append(w.oldKeys, key)
		return nil
	})
	if err != nil {
		return err
	}
	if layout == 1 {
		space := []byte(strings.TrimSuffix(w.id, "/") + "@t/")
		err = s.ScanKeys(space, space, func(key []byte) error {
			if len(key) < len(space)+8 {
				return errCorrupt(string(space))
			}
			ok, err := w.ownsGroup(key[len(space)+8:])
			if ok {
				w.oldKeys = append(w.oldKeys, bytes.Clone(key))
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	w.migrating = len(w.oldKeys) > 0
	return w.evict()
}

// allCols returns the columns 0..n-1 (the group's own, for a group row).
func (w *WindowAggregate) allCols(n int) []int {
	for len(w.cols) < n {
		w.cols = append(w.cols, len(w.cols))
	}
	return w.cols[:n]
}

// checkpointLayout writes the marker and deletes what a migration left of
// an older layout. A session aggregate's marker says its checkpoints keep
// timers; it is written once per run.
func (w *WindowAggregate) checkpointLayout(wr *state.Writer) error {
	if !w.timed() {
		if w.marked {
			return nil
		}
		w.marked = true
		return wr.Set(w.sessionTimers.marker, timersMark)
	}
	if err := wr.Set(w.markerKey(), w.mark()); err != nil {
		return err
	}
	for _, k := range w.oldKeys {
		if err := wr.Delete(k); err != nil {
			return err
		}
	}
	w.oldKeys, w.migrating = nil, false
	return nil
}
