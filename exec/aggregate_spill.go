package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
)

// Spilling for Aggregate works as for WindowAggregate (spill.go): groups
// over the budget keep only key, group and last update time in memory;
// their accumulators and emitted row live in the last checkpoint when
// unchanged since, else in the spill area.

func (a *Aggregate) spillKey(k string) []byte { return []byte(SpillPrefix + a.id + k) }

// use loads an evicted group's accumulators and emitted row.
func (a *Aggregate) use(e *aggEntry) error {
	if !e.evicted {
		return nil
	}
	key := []byte(a.id + e.key)
	if a.spilled[e.key] {
		key = a.spillKey(e.key)
	}
	val, ok, err := a.store.Get(key)
	if err != nil {
		return fmt.Errorf("load group state: %w", err)
	}
	if !ok {
		return fmt.Errorf("load group state of %s: key missing: %w", a.id, state.ErrVersion)
	}
	rows, err := state.DecodeValue(val)
	if err != nil {
		return err
	}
	if len(rows) < 3 {
		return errCorrupt(a.id)
	}
	e.acc = newAccs(a.calls)
	if err := e.acc.decode(rows[3:]); err != nil {
		return err
	}
	e.emitted = nil
	if len(rows[2]) > 0 {
		e.emitted = rows[2]
	}
	e.evicted = false
	a.resident++
	return nil
}

// evict moves groups' values out of memory until at most 3/4 of the
// budget stay; changed ones go to the spill area in one batch.
func (a *Aggregate) evict() error {
	if a.budget <= 0 || a.resident <= a.budget {
		return nil
	}
	target := a.budget * 3 / 4
	var victims, spill []*aggEntry
	for _, e := range a.entries {
		if a.resident <= target {
			break
		}
		if e.evicted || e.pending {
			continue
		}
		if a.dirty[e.key] {
			spill = append(spill, e)
		}
		victims = append(victims, e)
		a.resident--
	}
	err := a.store.Batch(func(w *state.Writer) error {
		for _, e := range spill {
			if err := w.Set(a.spillKey(e.key), a.encode(e)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("spill group state: %w", err)
	}
	for _, e := range spill {
		a.spilled[e.key] = true
		delete(a.garbage, e.key)
	}
	for _, e := range victims {
		e.evicted = true
		e.acc, e.emitted = nil, nil
	}
	return nil
}

// value is the state value to checkpoint for e.
func (a *Aggregate) value(e *aggEntry) ([]byte, error) {
	if !e.evicted {
		return a.encode(e), nil
	}
	val, ok, err := a.store.Get(a.spillKey(e.key))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("checkpoint %s: spilled group missing", a.id)
	}
	return val, nil
}

// unspill forgets the spilled copy of a removed group.
func (a *Aggregate) unspill(k string) {
	if a.spilled[k] {
		delete(a.spilled, k)
		a.garbage[k] = true
	}
}

// clearSpill deletes the spill area once a checkpoint holds its values.
func (a *Aggregate) clearSpill(w *state.Writer) error {
	for _, set := range []map[string]bool{a.spilled, a.garbage} {
		for k := range set {
			if err := w.Delete(a.spillKey(k)); err != nil {
				return err
			}
		}
	}
	a.spilled, a.garbage = map[string]bool{}, map[string]bool{}
	return nil
}
