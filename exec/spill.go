package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
)

// SpillPrefix starts every spill-area key. The spill area holds values of
// windows changed since the last checkpoint that did not fit the memory
// budget; it is never part of a checkpoint, so recovery deletes it.
const SpillPrefix = "spill/"

func (w *WindowAggregate) spillKey(k string) []byte { return []byte(SpillPrefix + w.id + k) }

// use brings an evicted window's accumulators and emitted row back into
// memory: from the spill area when it changed since the last checkpoint,
// else from the checkpoint.
func (w *WindowAggregate) use(e *winEntry) error {
	if !e.evicted {
		return nil
	}
	key := []byte(w.id + e.key)
	if w.spilled[e.key] {
		key = w.spillKey(e.key)
	}
	val, ok, err := w.store.Get(key)
	if err != nil {
		return fmt.Errorf("load window state: %w", err)
	}
	if !ok {
		return fmt.Errorf("load window state: key missing from %s: %w", w.id, state.ErrVersion)
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
		if w.dirty[e.key] {
			spill = append(spill, e)
		}
		victims = append(victims, e)
		w.resident--
	}
	defer release(victims)
	if len(spill) == 0 {
		return nil
	}
	err := w.store.Batch(func(wr *state.Writer) error {
		for _, e := range spill {
			if err := wr.Set(w.spillKey(e.key), w.encode(e)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("spill window state: %w", err)
	}
	for _, e := range spill {
		w.spilled[e.key] = true
	}
	return nil
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
	val, ok, err := w.store.Get(w.spillKey(e.key))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("checkpoint %s: spilled window missing", w.id)
	}
	return val, nil
}

// clearSpill deletes the spill area once its values are in the
// checkpoint being written.
func (w *WindowAggregate) clearSpill(wr *state.Writer) error {
	for k := range w.spilled {
		if err := wr.Delete(w.spillKey(k)); err != nil {
			return err
		}
	}
	w.spilled = map[string]bool{}
	return nil
}

// ResidentWindows returns how many windows hold their values in memory
// and how many exist.
func (w *WindowAggregate) ResidentWindows() (resident, total int) {
	return w.resident, len(w.windows)
}
