package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
)

// use brings an evicted window's accumulators and emitted row back into
// memory: from the spill area when it changed since the last checkpoint,
// else from the checkpoint.
func (w *WindowAggregate) use(e *winEntry) error {
	if !e.evicted {
		return nil
	}
	val, err := loadValue(w.store, &w.spill, w.id, e.key)
	if err != nil {
		return fmt.Errorf("load window state: %w", err)
	}
	rows, err := state.DecodeValue(val)
	if err != nil {
		return err
	}
	if err := w.decodeValues(e, rows); err != nil {
		return err
	}
	e.evicted = false
	w.resident++
	return nil
}

// evictsWhole reports whether evicted windows leave memory entirely:
// TUMBLE and HOP windows with a budget. A session keeps its index entry
// (key, bounds, group), since a row must find its group's sessions.
func (w *WindowAggregate) evictsWhole() bool { return w.budget > 0 && w.timed() }

// evict moves windows out of memory until at most 3/4 of the budget
// stay: unchanged ones are dropped (the checkpoint has them), changed
// ones are written to the spill area in one batch. Windows waiting to be
// emitted stay. TUMBLE and HOP windows leave whole (their timers cover
// them); sessions keep their index entries.
func (w *WindowAggregate) evict() error {
	if w.budget <= 0 || w.resident <= w.budget {
		return nil
	}
	whole := w.evictsWhole()
	target := w.budget * 3 / 4
	var victims []*winEntry
	var keys []string
	var vals [][]byte
	for _, e := range w.windows {
		if w.resident <= target {
			break
		}
		if e.evicted || e.pending || e.gone {
			continue
		}
		if e.dirty {
			v := w.encode(e)
			if whole {
				v = w.spillValue(e)
			}
			keys, vals = append(keys, e.key), append(vals, v)
		}
		victims = append(victims, e)
		w.resident--
	}
	if err := w.spill.write(keys, vals); err != nil {
		return err
	}
	for _, e := range victims {
		if whole {
			delete(w.windows, e.key)
			continue
		}
		e.evicted = true
		e.acc, e.emitted, e.stale = nil, nil, nil
	}
	if whole {
		w.onDisk = true
	}
	return nil
}

// load brings the window stored under k into memory from the spill area
// (changed since the last checkpoint) or the checkpoint; nil when neither
// holds it or it was removed since. It has no heap entry: its stored
// timer covers it.
func (w *WindowAggregate) load(k string) (*winEntry, error) {
	if _, ok := w.gone[k]; ok {
		return nil, nil
	}
	spilled := w.spill.has(k)
	var val []byte
	if spilled {
		var err error
		if val, err = w.spill.get(k); err != nil {
			return nil, fmt.Errorf("load window state: %w", err)
		}
	} else {
		v, ok, err := w.store.Get([]byte(w.id + k))
		if err != nil || !ok {
			return nil, err
		}
		w.spill.reads++
		val = v
	}
	e, err := w.decodeEntry(k, val, spilled)
	if err != nil {
		return nil, fmt.Errorf("load window state: %w", err)
	}
	w.windows[k] = e
	w.resident++
	return e, nil
}

// value is the state value to checkpoint for e.
func (w *WindowAggregate) value(e *winEntry) ([]byte, error) {
	if !e.evicted {
		return w.encode(e), nil
	}
	return w.spill.get(e.key)
}

// loadValue reads key k's value: from the spill area when its current
// value is there, else from the last checkpoint (prefix id).
func loadValue(store *state.Store, spill *spillArea, id, k string) ([]byte, error) {
	if spill.has(k) {
		return spill.get(k)
	}
	val, ok, err := store.Get([]byte(id + k))
	if err != nil {
		return nil, err
	}
	spill.reads++
	if !ok {
		return nil, fmt.Errorf("%s: key missing from the checkpoint: %w", id, state.ErrVersion)
	}
	return val, nil
}

// ResidentWindows returns how many windows hold their values in memory
// and how many exist.
func (w *WindowAggregate) ResidentWindows() (resident, total int) {
	return w.resident, len(w.windows)
}
