package exec

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/planner"
)

// Spilling for SemiJoin: no more rows of both sides than the budget, and
// than fit in its memory share, stay in memory. Over that, whole keys
// leave memory, both sides' rows of a key together (every row that
// arrives touches both: a left row counts its matches among the right
// rows, a right row updates its left rows' counts). A key unchanged since
// the last checkpoint is dropped, as the checkpoint holds it; a changed
// one goes to the spill area (spill_area.go) in the checkpoint's format.
// A key comes back when a row of either side arrives for it; its left
// rows' match counts are counted again from its right rows, as a restore
// does. Memory keeps nothing per evicted key but the changed keys' names
// (dirty, and the spill area's index) until the next checkpoint.
//
// NOT IN judging every left row again when a count crosses zero visits
// every key of the left side: eachKey does it in bounded memory, the keys
// in memory, then the spilled ones, then the checkpoint's keys not
// changed since, read in chunks of eachChunk key names, each loaded,
// judged and evicted again as the budget requires. It costs a pass over
// the operator's stored state, as it costs a pass over memory without
// spilling. STATE TTL expiry visits only the keys it expires, by stored
// timers (below); without spilling it scans memory once the watermark
// passes the side's oldest row's expiry. The null-aware counts are
// global and stay in memory; a lazy restore (nothing loaded) computes
// them with one scan of the right rows that keeps no row.

// eachChunk is how many stored key names eachKey reads per scan.
const eachChunk = 256

// spillKey names key k of side in the spill area.
func (s *SemiJoin) spillKey(side int, k string) string { return string(rune('0'+side)) + k }

// inMemory reports whether key k's rows are in memory (both sides are
// loaded and evicted together, so either side's group tells).
func (s *SemiJoin) inMemory(k string) bool {
	return s.sides[0][k] != nil || s.sides[1][k] != nil
}

// load brings key k's rows of both sides into memory when keys may live
// in Badger only: the right rows first, then the left rows with their
// matches counted. The null-aware counts already count the right rows.
func (s *SemiJoin) load(k string) error {
	if !s.onDisk || s.inMemory(k) {
		return nil
	}
	s.loading = true
	defer func() { s.loading = false }()
	for _, side := range []int{1, 0} {
		val, err := s.stored(side, k)
		if err == nil && val != nil {
			err = s.restoreKey(side, k, val, false)
		}
		if err != nil {
			return fmt.Errorf("%s: load semi join rows: %w", s.id, err)
		}
		if g := s.sides[side][k]; g != nil && s.timed() {
			// its stored timer: the checkpoint's, or the one the
			// checkpoint had when the group was evicted changed
			g.indexed = s.minExpiry(g)
			if t, ok := s.spilledAt[side][k]; ok {
				g.indexed = t
				delete(s.spilledAt[side], k)
			}
		}
	}
	return nil
}

// stored is the value of key k of side out of memory: in the spill area
// when changed since the last checkpoint, nil when removed since, else
// the checkpoint's (nil when it has none).
func (s *SemiJoin) stored(side int, k string) ([]byte, error) {
	if sk := s.spillKey(side, k); s.spill.has(sk) {
		return s.spill.get(sk)
	}
	if s.dirty[side][k] {
		return nil, nil
	}
	val, ok, err := s.store.Get(s.stateKey(side, k))
	if err != nil || !ok {
		return nil, err
	}
	s.spill.reads++
	return val, nil
}

// value is what a checkpoint writes for changed key k of side: its rows
// from memory or the spill area; nil (a delete) when it has none left.
func (s *SemiJoin) value(side int, k string) ([]byte, error) {
	if g := s.sides[side][k]; g != nil {
		return encodeGroup(g), nil
	}
	if sk := s.spillKey(side, k); !s.inMemory(k) && s.spill.has(sk) {
		return s.spill.get(sk)
	}
	return nil, nil
}

// evict moves whole keys out of memory until at most 3/4 of the limit's
// rows are left: the budget's, or when fewer those that fit in the memory
// share. Changed keys go to the spill area in one batch.
func (s *SemiJoin) evict() error {
	if s.store == nil {
		return nil
	}
	limit := s.mem.limit(s.budget, s.resident, s.meanBytes)
	if limit <= 0 || s.resident <= limit {
		return nil
	}
	target := limit * 3 / 4
	var keys []string
	var vals [][]byte
	victims := map[string]bool{}
	left := s.resident
	for side := range s.sides {
		for k := range s.sides[side] {
			if left <= target {
				break
			}
			if victims[k] {
				continue
			}
			victims[k] = true
			for o := range s.sides {
				g := s.sides[o][k]
				if g == nil {
					continue
				}
				if s.dirty[o][k] {
					keys = append(keys, s.spillKey(o, k))
					vals = append(vals, encodeGroup(g))
					if s.timed() {
						s.spilledAt[o][k] = g.indexed
					}
				}
				left -= len(g.rows)
			}
		}
	}
	if err := s.spill.write(keys, vals); err != nil {
		return err
	}
	for k := range victims {
		delete(s.sides[0], k)
		delete(s.sides[1], k)
	}
	s.resident = left
	s.onDisk = true
	return nil
}

// eachKey calls fn for every key of side that has rows, with its rows in
// memory: the keys in memory, then, once keys may live in Badger only,
// the spilled keys and the checkpoint's keys this instance owns that
// have not changed since, each loaded, visited and evicted past the
// budget. A key may be visited twice (fn's visits are idempotent).
func (s *SemiJoin) eachKey(side int, fn func(k string, g *semiGroup)) error {
	keys := make([]string, 0, len(s.sides[side]))
	for k := range s.sides[side] {
		keys = append(keys, k)
	}
	for _, k := range keys {
		if g := s.sides[side][k]; g != nil {
			fn(k, g)
		}
	}
	if !s.onDisk {
		return nil
	}
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		seen[k] = true
	}
	visit := func(k string) error {
		if err := s.load(k); err != nil {
			return err
		}
		if g := s.sides[side][k]; g != nil {
			fn(k, g)
		}
		return s.evict()
	}
	digit := string(rune('0' + side))
	var spilled []string
	for sk := range s.spill.spilled {
		if k, ok := strings.CutPrefix(sk, digit); ok && !seen[k] {
			spilled = append(spilled, k)
		}
	}
	for _, k := range spilled {
		if err := visit(k); err != nil {
			return err
		}
	}
	// The checkpoint's keys: a changed one was visited above (in memory
	// or spilled) or has no rows left.
	prefix := []byte(s.id + digit)
	from := prefix
	for {
		var chunk []string
		err := s.store.ScanKeys(prefix, from, func(key []byte) error {
			if len(chunk) == eachChunk {
				return errStopScan
			}
			chunk = append(chunk, string(key[len(prefix):]))
			return nil
		})
		if err != nil && !errors.Is(err, errStopScan) {
			return fmt.Errorf("%s: %w", s.id, err)
		}
		for _, k := range chunk {
			if seen[k] || s.dirty[side][k] {
				continue
			}
			if ok, err := ownsKey(s.keep, s.id, []byte(k)); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
			if err := visit(k); err != nil {
				return err
			}
		}
		if len(chunk) < eachChunk {
			return nil
		}
		from = append(append([]byte(nil), prefix...), chunk[len(chunk)-1]+"\x00"...)
	}
}

// restoreLazy restores a spilling join: it loads no key (a key comes in
// when a row arrives for it or its timer fires) but, for NOT IN, counts
// the stored right rows (and those with a NULL key), keeping no row, and
// under STATE TTL writes the stored timers a store without them lacks.
func (s *SemiJoin) restoreLazy(st *state.Store) error {
	s.onDisk = true
	if s.n.TTL > 0 {
		if err := s.writeTimers(st); err != nil {
			return fmt.Errorf("%s: %w", s.id, err)
		}
	}
	if s.n.Kind != planner.NullAwareAnti {
		return nil
	}
	prefix := []byte(s.id + "1")
	err := st.ScanOwned(prefix, s.owns(len(prefix)), func(_, val []byte) error {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		for _, r := range rows {
			w := len(r) - 3
			s.total += r[w].I
			if s.nullKey(1, r[:w]) {
				s.nulls += r[w].I
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", s.id, err)
	}
	return nil
}

// Stored timers (spilling with STATE TTL). As the join's (join_timers.go,
// timers.go), each side's keys a checkpoint holds have a stored timer at
// the earliest expiry (time + TTL) of their rows there (semiGroup.indexed),
// under id + "t" + side, and id + "m" marks a store whose checkpoints keep
// them; between checkpoints the memory heap covers the rows added since
// (one entry per key and earlier expiry, semiGroup.heapAt). A watermark
// (or Tick) fires the keys due, loads them and forgets their expired rows,
// so expiry visits the keys it expires, in memory or not. A restore from
// a store without the marker (written before timers, or by a run that did
// not spill and so moved none: its first checkpoint deletes the marker)
// writes every key's timer first (writeTimers).

// timed reports whether the join keeps stored timers.
func (s *SemiJoin) timed() bool { return s.store != nil && s.n.TTL > 0 }

// minExpiry is the earliest expiry of group g's rows.
func (s *SemiJoin) minExpiry(g *semiGroup) int64 {
	t := int64(noOldest)
	for _, e := range g.rows {
		t = min(t, e.at)
	}
	if t == noOldest {
		return noTimer
	}
	return t + s.n.TTL
}

// cover makes sure group g (key k of side) has a memory timer at or
// before at.
func (s *SemiJoin) cover(side int, k string, g *semiGroup, at int64) {
	if g.heapAt == noTimer || at < g.heapAt {
		s.timers[side].push(at, k)
		g.heapAt = at
	}
}

// fireDue forgets the rows of side that expire before upTo: it visits the
// keys whose timers (in memory, or stored once keys may live in Badger
// only) are due, loading them; a key with rows left gets a memory timer at
// its next expiry unless one not yet due covers it.
func (s *SemiJoin) fireDue(side int, upTo int64) error {
	items, err := s.timers[side].due(upTo-1, s.onDisk, func(k string) (bool, error) { return ownsKey(s.keep, s.id, []byte(k)) })
	if err != nil {
		return fmt.Errorf("%s: %w", s.id, err)
	}
	for _, it := range items {
		if err := s.load(it.key); err != nil {
			return err
		}
		if g := s.sides[side][it.key]; g != nil {
			s.expireGroup(side, it.key, g, upTo)
			if len(g.rows) > 0 {
				if g.heapAt <= upTo-1 {
					g.heapAt = noTimer // taken by due
				}
				s.cover(side, it.key, g, s.minExpiry(g))
			}
		}
		if err := s.evict(); err != nil {
			return err
		}
	}
	return nil
}

// moveTimer moves the stored timer of changed key k of side, whose
// checkpoint value is val (nil: deleted), to its rows' earliest expiry
// within checkpoint w.
func (s *SemiJoin) moveTimer(w *state.Writer, side int, k string, val []byte) error {
	g := s.sides[side][k]
	old, now := int64(noTimer), int64(noTimer)
	switch t, spilled := s.spilledAt[side][k]; {
	case g != nil:
		old, now = g.indexed, s.minExpiry(g)
	case spilled:
		old = t
	default:
		if t, ok := s.gone[side][k]; ok {
			old = t
		}
	}
	if g == nil && val != nil {
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		for _, r := range rows {
			at := r[len(r)-2].I + s.n.TTL
			if now == noTimer || at < now {
				now = at
			}
		}
	}
	if g != nil {
		g.indexed = now
	}
	return s.timers[side].move(w, k, old, now)
}

// pruneTimers drops the memory timers of keys not in memory: after a
// checkpoint their stored timers cover them.
func (s *SemiJoin) pruneTimers() {
	if !s.timed() || !s.onDisk {
		return
	}
	for side := range s.timers {
		s.timers[side].prune(func(k string) bool { return s.sides[side][k] != nil })
	}
}

// writeTimers writes, when the store has no timer marker, the stored timer
// of every key this instance owns, from the checkpoint's rows (outside the
// checkpoint, as the spill area: they describe the checkpoint as it is;
// the next checkpoint writes the marker).
func (s *SemiJoin) writeTimers(st *state.Store) error {
	marked, err := s.timers[0].marked(st)
	if err != nil || marked {
		return err
	}
	return st.Batch(func(w *state.Writer) error {
		for side := range s.sides {
			prefix := []byte(s.id + string(rune('0'+side)))
			err := st.ScanOwned(prefix, s.owns(len(prefix)), func(key, val []byte) error {
				rows, err := state.DecodeValue(val)
				if err != nil || len(rows) == 0 {
					return err
				}
				at := int64(noOldest)
				for _, r := range rows {
					at = min(at, r[len(r)-2].I)
				}
				return w.Set(s.timers[side].key(at+s.n.TTL, string(key[len(prefix):])), nil)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *SemiJoin) stateSize() StateSize {
	return s.spill.size(s.StateKeys(), s.mem.bytes(int64(s.resident), s.meanBytes))
}

// meanBytes is the mean in-memory size of a row held, over the rows of
// up to sizeSample keys: each key's map entry and group spread over its
// rows, and each row's map entry, encoding, place in the order, entry
// and values.
func (s *SemiJoin) meanBytes() int64 {
	var sm sampler
	for side := range s.sides {
		for k, g := range s.sides[side] {
			if sm.full() {
				break
			}
			n := keyBytes(k) + allocBytes(int64(unsafe.Sizeof(*g)))
			for enc, e := range g.rows {
				n += keyBytes(enc) + stringBytes + allocBytes(int64(unsafe.Sizeof(*e))) + rowBytes(e.row)
			}
			sm.n += int64(len(g.rows)) - 1
			sm.add(int(n))
		}
	}
	return sm.times(1)
}

func (s *SemiJoin) releaseMemory() { s.mem.release(); s.mem = nil }
