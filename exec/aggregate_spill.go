package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
)

// Spilling for Aggregate works as for WindowAggregate (spill.go): groups
// over the budget keep only key, group and last update time in memory;
// their accumulators and emitted row live in the last checkpoint when
// unchanged since, else in the spill area.

// use loads an evicted group's accumulators and emitted row.
func (a *Aggregate) use(e *aggEntry) error {
	if !e.evicted {
		return nil
	}
	val, err := loadValue(a.store, &a.spill, a.id, e.key)
	if err != nil {
		return fmt.Errorf("load group state: %w", err)
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
	var victims []*aggEntry
	var keys []string
	var vals [][]byte
	for _, e := range a.entries {
		if a.resident <= target {
			break
		}
		if e.evicted || e.pending {
			continue
		}
		if e.dirty {
			keys, vals = append(keys, e.key), append(vals, a.encode(e))
		}
		victims = append(victims, e)
		a.resident--
	}
	if err := a.spill.write(keys, vals); err != nil {
		return err
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
	return a.spill.get(e.key)
}
