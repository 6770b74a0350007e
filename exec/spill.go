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

// evict moves windows' values out of memory until at most 3/4 of the
// budget stay: unchanged ones are dropped (the checkpoint has them),
// changed ones are written to the spill area in one batch. Windows waiting
// to be emitted stay.
func (w *WindowAggregate) evict() error {
	if w.budget <= 0 || w.resident <= w.budget {
		return nil
	}
	target := w.budget * 3 / 4
	var victims, spill []*winEntry
	for _, e := range w.windows {
		if w.resident <= target {
			break
		}
		if e.evicted || e.pending || e.gone {
			continue
		}
		if e.dirty {
			spill = append(spill, e)
		}
		victims = append(victims, e)
		w.resident--
	}
	defer release(victims)
	keys := make([]string, len(spill))
	vals := make([][]byte, len(spill))
	for i, e := range spill {
		keys[i], vals[i] = e.key, w.encode(e)
	}
	return w.spill.write(keys, vals)
}

// release marks windows evicted and frees their values.
func release(victims []*winEntry) {
	for _, e := range victims {
		e.evicted = true
		e.acc, e.emitted, e.stale = nil, nil, nil
	}
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
