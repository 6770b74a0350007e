package exec

import (
	"github.com/streamsql/streamsql/types"
)

// Spilling for Aggregate: at most budget groups, and no more than fit in
// its memory share, stay in memory. Over that,
// whole groups leave memory: their accumulators and emitted row live in
// the last checkpoint when unchanged since (a DISTINCT set past
// minChunkedEntries in its chunks: aggregate_distinct.go), else in the
// spill area (the sets inline, written whole at the next checkpoint), and
// under STATE TTL their expiry in the stored timers (timers.go), so memory
// holds nothing for them. A group comes back when its next row arrives or
// its timer fires.

// evict moves whole groups out of memory until at most 3/4 of the limit
// (the budget or the groups that fit in the share, whichever is fewer)
// stay; changed ones go to the spill area in one batch, with whether a
// checkpoint holds them and the timer it has for them.
//
// The victims are the groups least recently updated (by the batch that
// last gave them a row), so a few hot groups that take rows in every
// batch stay in memory however large they are: evicting one would write
// its whole state to the spill area and its next row would read and
// rebuild it (q16's hot channels, each with large DISTINCT sets).
func (a *Aggregate) evict() error {
	limit := a.mem.limit(a.budget, len(a.entries), a.meanBytes)
	if limit <= 0 || len(a.entries) <= limit {
		return nil
	}
	target := limit * 3 / 4
	n := len(a.entries)
	a.ages = a.ages[:0]
	for _, e := range a.entries {
		if !e.pending {
			a.ages = append(a.ages, e.used)
		}
	}
	if len(a.ages) == 0 {
		return nil
	}
	cutoff := evictionCutoff(a.ages, n-target)
	var victims []*aggEntry
	var keys []string
	var vals [][]byte
	for _, e := range a.entries {
		if n <= target {
			break
		}
		if e.pending || e.used > cutoff {
			continue
		}
		if e.dirty {
			v := a.encodeWith(e, types.BoolValue(e.persisted), types.IntValue(e.indexed))
			keys, vals = append(keys, e.key), append(vals, v)
		}
		victims = append(victims, e)
		n--
	}
	if err := a.spill.write(keys, vals); err != nil {
		return err
	}
	for _, e := range victims {
		delete(a.entries, e.key)
	}
	a.onDisk = true
	return nil
}
