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
// Two things visit every key of a side rather than one: the null-aware
// re-judging of every left row when a NOT IN count crosses zero, and
// STATE TTL expiry once the watermark (or clock) passes the side's oldest
// row's expiry. eachKey does it in bounded memory: the keys in memory,
// then the spilled ones, then the checkpoint's keys not changed since,
// read in chunks of eachChunk key names, each loaded, visited and evicted
// again as the budget requires. Such a visit costs a pass over the
// operator's stored state, as it costs a pass over memory without
// spilling. The null-aware counts and each side's oldest row time are
// global and stay in memory; a lazy restore (nothing loaded) computes
// them with one scan that keeps no row.

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
	for _, side := range []int{1, 0} {
		val, err := s.stored(side, k)
		if err == nil && val != nil {
			err = s.restoreKey(side, k, val, false)
		}
		if err != nil {
			return fmt.Errorf("%s: load semi join rows: %w", s.id, err)
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
// when a row arrives for it) but, when they are used, counts the stored
// right rows (and those with a NULL key) for NOT IN and finds each side's
// oldest row time for STATE TTL, keeping no row.
func (s *SemiJoin) restoreLazy(st *state.Store) error {
	s.onDisk = true
	if s.n.Kind != planner.NullAwareAnti && s.n.TTL == 0 {
		return nil
	}
	for side := range s.sides {
		prefix := []byte(s.id + string(rune('0'+side)))
		err := st.ScanOwned(prefix, s.owns(len(prefix)), func(_, val []byte) error {
			rows, err := state.DecodeValue(val)
			if err != nil {
				return err
			}
			for _, r := range rows {
				w := len(r) - 3
				if s.n.TTL > 0 {
					s.oldest[side] = min(s.oldest[side], r[w+1].I)
				}
				if side == 1 && s.n.Kind == planner.NullAwareAnti {
					s.total += r[w].I
					if s.nullKey(1, r[:w]) {
						s.nulls += r[w].I
					}
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.id, err)
		}
	}
	return nil
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
