package exec

import "fmt"

// evict moves windows out of memory until at most 3/4 of the limit
// stay (the row cap, or the windows that fit in the memory share,
// whichever is fewer): unchanged ones are dropped (the checkpoint has
// them), changed ones are written to the spill area in one batch, and
// both leave memory whole (their timers cover them). Windows waiting to
// be emitted stay. Sessions leave a group at a time (evictGroups).
func (w *WindowAggregate) evict() error {
	if !w.spills() {
		return nil
	}
	limit := w.mem.limit(w.budget, w.resident, w.meanBytes)
	if limit <= 0 || w.resident <= limit {
		return nil
	}
	target := limit * 3 / 4
	if w.win.Kind == "session" {
		return w.evictGroups(target)
	}
	var victims []string
	var keys []string
	var vals [][]byte
	for k, e := range w.windows {
		if w.resident <= target {
			break
		}
		if e.pending || e.gone {
			continue
		}
		if e.dirty {
			keys, vals = append(keys, k), append(vals, w.spillValue(e))
		}
		victims = append(victims, k)
		w.resident--
	}
	if err := w.spill.write(keys, vals); err != nil {
		return err
	}
	for _, k := range victims {
		w.windows[k].leave()
		delete(w.windows, k)
	}
	w.onDisk = true
	return nil
}

// leave marks e as having left memory whole and lets its values go: a
// timer bucket may still point at e until the next checkpoint prunes it,
// and then finds the window by its key alone (dueWindow).
func (e *winEntry) leave() {
	e.out = true
	e.group, e.acc, e.emitted, e.stale = nil, nil, nil, nil
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
	if !spilled && w.migrating {
		return nil, nil // the checkpoint holds the older layout
	}
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

// ResidentWindows returns how many windows hold their values in memory
// and how many exist.
func (w *WindowAggregate) ResidentWindows() (resident, total int) {
	return w.resident, len(w.windows)
}
