package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// Spilling for Aggregate: at most budget groups keep their accumulators
// and emitted row in memory; the others live in the last checkpoint when
// unchanged since, else in the spill area. Without STATE TTL an evicted
// group leaves memory whole (evictsWhole) and comes back on its next row,
// so memory holds at most budget groups; with TTL it keeps key, group and
// last update time in memory (expiry visits every group), as
// WindowAggregate's windows do (spill.go).

// evictsWhole reports whether evicted groups leave memory entirely.
func (a *Aggregate) evictsWhole() bool { return a.store != nil && a.ttl <= 0 }

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
	whole := a.evictsWhole()
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
			v := a.encode(e)
			if whole { // the spill value also says whether a checkpoint holds it
				v = a.encodeWith(e, types.BoolValue(e.persisted))
			}
			keys, vals = append(keys, e.key), append(vals, v)
		}
		victims = append(victims, e)
		a.resident--
	}
	if err := a.spill.write(keys, vals); err != nil {
		return err
	}
	for _, e := range victims {
		if whole {
			delete(a.entries, e.key)
			continue
		}
		e.evicted = true
		e.acc, e.emitted = nil, nil
	}
	if whole {
		a.onDisk = true
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
