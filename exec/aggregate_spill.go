package exec

import (
	"github.com/streamsql/streamsql/types"
)

// Spilling for Aggregate: at most budget groups, and no more than fit in
// its memory share, stay in memory. Over that,
// whole groups leave memory: their accumulators and emitted row live in
// the last checkpoint when unchanged since, else in the spill area, and
// under STATE TTL their expiry in the stored timers (timers.go), so memory
// holds nothing for them. A group comes back when its next row arrives or
// its timer fires.

// evict moves whole groups out of memory until at most 3/4 of the limit
// (the budget or the groups that fit in the share, whichever is fewer)
// stay; changed ones go to the spill area in one batch, with whether a
// checkpoint holds them and the timer it has for them.
//
// Victims are picked by second chance (the clock algorithm): a group a
// row updated since the previous eviction has its used mark cleared and
// is passed over, and only if too few unmarked groups remain does a
// second sweep take marked ones. A few hot groups that take a row in
// every batch so stay in memory, however large: evicting one writes its
// whole state to the spill area and its next row reads and rebuilds it
// (a large DISTINCT set, or several, every batch).
func (a *Aggregate) evict() error {
	limit := a.mem.limit(a.budget, len(a.entries), a.meanBytes)
	if limit <= 0 || len(a.entries) <= limit {
		return nil
	}
	target := limit * 3 / 4
	n := len(a.entries)
	var victims []*aggEntry
	var keys []string
	var vals [][]byte
	take := func(e *aggEntry) {
		if e.dirty {
			v := a.encodeWith(e, types.BoolValue(e.persisted), types.IntValue(e.indexed))
			keys, vals = append(keys, e.key), append(vals, v)
		}
		victims = append(victims, e)
		e.pending = true // taken: the second sweep passes it over
		n--
	}
	for _, e := range a.entries {
		if n <= target {
			break
		}
		if e.used {
			e.used = false
			continue
		}
		if !e.pending {
			take(e)
		}
	}
	for _, e := range a.entries {
		if n <= target {
			break
		}
		if !e.pending {
			take(e)
		}
	}
	if err := a.spill.write(keys, vals); err != nil {
		return err
	}
	for _, e := range victims {
		e.pending = false
		delete(a.entries, e.key)
	}
	a.onDisk = true
	return nil
}
