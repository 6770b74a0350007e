package exec

import (
	"errors"
	"math"
)

// Join timers: when each stored key's rows next expire, kept in Badger so
// that a key whose rows are not in memory (evicted whole, or not loaded
// since a lazy restore) still expires on time. One timerQueue per side
// (timers.go) in the join's own key layout.
//
// Each key a checkpoint holds has one timer there, at the earliest expiry
// of the key's checkpointed rows (joinKey.indexed): the key
// id + "t" + side + time (big-endian, sign flipped) + join key, with an
// empty value. Checkpoint keeps them in step with the rows it writes, and
// id + "m" marks a store whose checkpoints keep timers. Between
// checkpoints the memory heap covers rows added since, with one entry per
// key, not per row: at the earliest expiry of its rows (joinKey.heapAt; a
// row expiring earlier adds an entry, a purge leaves one at the key's next
// expiry unless a later entry not yet due covers it). A key loaded from
// Badger is covered by its stored timer, and after each purge by a heap
// entry at its next expiry. When the watermark passes, fireDue
// visits the heap's entries and the stored timers it passed since the
// last time, so a stored timer fires once. At a checkpoint the heap drops
// the entries of keys no longer in memory, whose stored timers now cover
// them: memory holds timers for the keys in memory only.

// noTimer is the timer of a key with none (no rows, or rows that never
// expire).
const noTimer int64 = math.MinInt64

// errStopScan ends a store scan early.
var errStopScan = errors.New("stop scan")

// minExpiry is the earliest expiry of rows of side (noTimer when none or
// when rows never expire, neverExpires included).
func (j *Join) minExpiry(side int, rows *joinRows) int64 {
	if !j.expires() || rows.len() == 0 {
		return noTimer
	}
	t := rows.time(0)
	for _, m := range rows.rest {
		t = min(t, m.time)
	}
	if e := j.expiry(side, t); e != neverExpires { // expiry grows with the time
		return e
	}
	return noTimer
}

// fireDue calls fire, in time order, for each key of side with an expiry
// at or before upTo: the memory heap's entries and, once keys may live in
// Badger only, the stored timers of keys this instance owns.
func (j *Join) fireDue(side int, upTo int64, fire func(it expiryItem) error) error {
	due, err := j.timers[side].due(upTo, j.onDisk[side], func(k string) (bool, error) { return j.ownsKey(side, k) })
	if err != nil {
		return err
	}
	for _, it := range due {
		if err := fire(it); err != nil {
			return err
		}
	}
	return nil
}

// pruneHeaps drops the heap entries of keys not in memory: after a
// checkpoint their stored timers cover them.
func (j *Join) pruneHeaps() {
	for side := 0; side < 2; side++ {
		if !j.onDisk[side] {
			continue
		}
		j.timers[side].prune(func(k string) bool { return j.sides[side].get(k, joinHash(k)) != nil })
	}
}
