package exec

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"math"

	"github.com/streamsql/streamsql/exec/state"
)

// Join timers: when each stored key's rows next expire, kept in Badger so
// that a key whose rows are not in memory (evicted whole, or not loaded
// since a lazy restore) still expires on time.
//
// Each key a checkpoint holds has one timer there, at the earliest expiry
// of the key's checkpointed rows (joinKey.indexed): the key
// id + "t" + side + time (big-endian, sign flipped) + join key, with an
// empty value. Checkpoint keeps them in step with the rows it writes, and
// id + "m" marks a store whose checkpoints keep timers. Between
// checkpoints the memory heap (expiries) covers rows added since; a key
// loaded from Badger is covered by its stored timer, and after each purge
// by a heap entry at its next expiry (unheaped). When the watermark
// passes, fireStored visits the stored timers it passed since the last
// time (firedTo), so a timer fires once. At a checkpoint the heap drops
// the entries of keys no longer in memory, whose stored timers now cover
// them: memory holds timers for the keys in memory only.

// noTimer is the timer of a key with none (no rows, or rows that never
// expire).
const noTimer int64 = math.MinInt64

// joinTimerMark is the value of the marker key (id + "m").
var joinTimerMark = []byte("timers/1")

// errStopScan ends a store scan early.
var errStopScan = errors.New("stop scan")

func (j *Join) timerPrefix(side int) []byte {
	return append([]byte(j.id), 't', byte('0'+side))
}

func (j *Join) timerKey(side int, at int64, k string) []byte {
	b := binary.BigEndian.AppendUint64(j.timerPrefix(side), uint64(at)^(1<<63))
	return append(b, k...)
}

func (j *Join) markerKey() []byte { return append([]byte(j.id), 'm') }

// minExpiry is the earliest expiry of rows of side (noTimer when none or
// when rows never expire).
func (j *Join) minExpiry(side int, rows []joinRow) int64 {
	if !j.expires() || len(rows) == 0 {
		return noTimer
	}
	at := j.expiry(side, rows[0].time)
	for _, r := range rows[1:] {
		at = min(at, j.expiry(side, r.time))
	}
	return at
}

// fireDue calls fire for each key of side with an expiry before limit:
// first the memory heap's entries, then the stored timers (fireStored).
func (j *Join) fireDue(side int, limit int64, fire func(k string) error) error {
	h := &j.expiries[side]
	for h.Len() > 0 && (*h)[0].at < limit {
		if err := fire(heap.Pop(h).(expiryItem).key); err != nil {
			return err
		}
	}
	return j.fireStored(side, limit, fire)
}

// fireStored calls fire for each key of side, owned by this instance,
// whose stored timer is before limit and was not visited by an earlier
// call. Only a join with keys in Badger has any to visit.
func (j *Join) fireStored(side int, limit int64, fire func(k string) error) error {
	if !j.onDisk || limit <= j.firedTo[side] {
		return nil
	}
	from := j.firedTo[side]
	j.firedTo[side] = limit
	prefix := j.timerPrefix(side)
	var keys []string
	err := j.store.ScanFrom(prefix, j.timerKey(side, from, ""), func(key, _ []byte) error {
		if len(key) < len(prefix)+8 {
			return errCorrupt(j.id)
		}
		if at := int64(binary.BigEndian.Uint64(key[len(prefix):]) ^ (1 << 63)); at >= limit {
			return errStopScan
		}
		k := string(key[len(prefix)+8:])
		own, err := j.ownsKey(side, k)
		if err == nil && own {
			keys = append(keys, k)
		}
		return err
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return err
	}
	for _, k := range keys {
		if err := fire(k); err != nil {
			return err
		}
	}
	return nil
}

// checkpointTimer moves key k's stored timer from old to now.
func (j *Join) checkpointTimer(w *state.Writer, side int, k string, old, now int64) error {
	if old == now {
		return nil
	}
	if old != noTimer {
		if err := w.Delete(j.timerKey(side, old, k)); err != nil {
			return err
		}
	}
	if now == noTimer {
		return nil
	}
	return w.Set(j.timerKey(side, now, k), nil)
}

// pruneHeaps drops the heap entries of keys not in memory: after a
// checkpoint their stored timers cover them.
func (j *Join) pruneHeaps() {
	if !j.onDisk {
		return
	}
	for side := 0; side < 2; side++ {
		h := j.expiries[side][:0]
		for _, it := range j.expiries[side] {
			if j.sides[side][it.key] != nil {
				h = append(h, it)
			}
		}
		clear(j.expiries[side][len(h):])
		j.expiries[side] = h
		heap.Init(&j.expiries[side])
	}
}
