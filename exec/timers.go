package exec

import (
	"encoding/binary"
	"errors"
	"sort"
	"strings"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// timerQueue is when the entries of a keyed operator (groups of a GROUP
// BY with STATE TTL, SESSION windows) next need a visit, so that an entry
// whose values are not in memory (evicted whole, or not loaded since a
// lazy restore) still closes or expires on time. The join keeps one per
// side, in its own key layout (join_timers.go). WindowAggregate covers
// its windows in memory in its own buckets (window_timers.go) and keeps
// stored timers for its sessions only: a stored TUMBLE or HOP window's
// key is its own timer (window_store.go).
//
// Each entry a checkpoint holds has one stored timer, at the time the
// checkpoint knew for it (the entry's indexed field): the Badger key
// timer space + time (big-endian, sign flipped) + entry key, with an empty
// value. The timer space is the operator's id with its trailing "/"
// replaced by "@t/" (v/<view>/op3@t/), beside the operator's keys rather
// than under them, so a scan of the operator's state never meets a timer
// whatever its keys start with; "@m" likewise marks a store whose
// checkpoints keep timers. Between checkpoints the memory heap (entries
// bucketed by time: timer_buckets.go) covers entries created, loaded or
// changed since; due returns the heap's entries and the stored timers a
// time reached since the last call (firedTo), so a stored timer is
// visited once. The owner revisits an entry it finds not
// yet due at the time it now needs (an entry's time only moves later,
// and a later time makes it dirty, so the next checkpoint moves its stored
// timer). At a checkpoint the heap drops the entries no longer in memory
// (prune): their stored timers cover them.
type timerQueue struct {
	store   *state.Store
	space   string // the stored timers' key prefix
	marker  []byte
	heap    timerBuckets
	firedTo int64 // stored timers at or before this were visited
	visited bool  // firedTo is set
	// anyOrder lets due return entries out of time order (an owner
	// whose visits emit nothing: the interval join's purge).
	anyOrder bool
}

// timersMark is the value of an operator's timer marker key.
var timersMark = []byte("timers/1")

func newTimerQueue(store *state.Store, id string) timerQueue {
	base := strings.TrimSuffix(id, "/")
	return timerQueue{store: store, space: base + "@t/", marker: []byte(base + "@m")}
}

// newTimerQueueAt returns a queue whose timers are stored under space,
// with marker key marker (the join's layout: join_timers.go).
func newTimerQueueAt(store *state.Store, space, marker string) timerQueue {
	return timerQueue{store: store, space: space, marker: []byte(marker)}
}

// push covers key k at time at in memory.
func (q *timerQueue) push(at int64, k string) {
	q.heap.push(expiryItem{at: at, key: k})
}

// pushState covers a join key at time at in memory; the entry keeps its
// state so that firing it need not look the key up (join_timers.go).
func (q *timerQueue) pushState(at int64, jk *joinKey) {
	q.heap.push(expiryItem{at: at, key: jk.key, state: jk})
}

func (q *timerQueue) key(at int64, k string) []byte {
	b := binary.BigEndian.AppendUint64([]byte(q.space), uint64(at)^(1<<63))
	return append(b, k...)
}

// due removes and returns, ordered by time (unless anyOrder is set), the
// heap's entries at or before upTo and, when stored is set, the stored timers at or before
// upTo that no earlier call returned and own accepts. A key may be
// returned more than once (its owner finds nothing due the second time).
func (q *timerQueue) due(upTo int64, stored bool, own func(k string) (bool, error)) ([]expiryItem, error) {
	items := q.heap.due(upTo, nil, q.anyOrder)
	if !stored || (q.visited && upTo <= q.firedTo) {
		return items, nil
	}
	from := types.MinTime
	if q.visited {
		from = q.firedTo + 1
	}
	q.firedTo, q.visited = upTo, true
	n := len(items)
	prefix := []byte(q.space)
	// Key-only: a stored timer's value is empty, and the first scan after
	// a restart, from the earliest time, walks the tombstones of every
	// timer moved since compactions last dropped them, 2-3x slower when
	// values are read too.
	err := q.store.ScanKeys(prefix, q.key(from, ""), func(key []byte) error {
		if len(key) < len(prefix)+8 {
			return errCorrupt(q.space)
		}
		at := int64(binary.BigEndian.Uint64(key[len(prefix):]) ^ (1 << 63))
		if at > upTo {
			return errStopScan
		}
		k := string(key[len(prefix)+8:])
		ok, err := own(k)
		if ok {
			items = append(items, expiryItem{at: at, key: k})
		}
		return err
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return nil, err
	}
	if n > 0 && n < len(items) && !q.anyOrder { // merge the heap's run with the stored run
		sort.SliceStable(items, func(a, b int) bool { return items[a].at < items[b].at })
	}
	return items, nil
}

// move moves key k's stored timer from old to now within checkpoint w.
func (q *timerQueue) move(w *state.Writer, k string, old, now int64) error {
	if old == now {
		return nil
	}
	if old != noTimer {
		if err := w.Delete(q.key(old, k)); err != nil {
			return err
		}
	}
	if now == noTimer {
		return nil
	}
	return w.Set(q.key(now, k), nil)
}

// prune drops the heap entries of keys not in memory, after a checkpoint
// whose stored timers now cover them.
func (q *timerQueue) prune(inMemory func(k string) bool) {
	q.heap.filter(func(it expiryItem) bool { return inMemory(it.key) })
}

// marked reports whether store s keeps this operator's timers.
func (q *timerQueue) marked(s *state.Store) (bool, error) {
	mark, ok, err := s.Get(q.marker)
	return ok && string(mark) == string(timersMark), err
}
