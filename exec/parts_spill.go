package exec

import (
	"fmt"
	"hash/maphash"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// partStore holds the partitions of an operator that keeps its state as
// one value per partition key under the operator's id (keyed and window
// Top-N, both running aggregates), and bounds how many stay in
// memory as Aggregate bounds its groups: with a store, at most the budget
// (state_cache_size) and no more than fit in the operator's share of the
// memory budget stay. Over that, evict moves whole partitions out: an
// unchanged one is dropped (the last checkpoint holds it), a changed one
// goes to the spill area, all in one batch. A partition comes back when
// get asks for it, from the spill area or else the checkpoint; visit
// reads every partition, evicted ones included, without bringing them
// back, for the sweeps that drop idle partitions.
//
// The operator evicts only between units of work (after a batch, after
// each partition a watermark visits), so a partition it holds a pointer
// to, or that the current batch touched, stays in memory until then.
//
// A Bloom filter of the keys evict moved out (evictedFilter, 2 bytes a
// key) lets get answer "none" for a key never evicted without reading
// Badger: the common case of a new partition.
//
// A checkpoint writes the partitions changed since the previous one, in
// memory or spilled, under their keys, deletes those dropped since, and
// empties the spill area. Restore reads every owned partition and evicts
// as it goes, so memory holds at most the limit after it.
//
// A store whose partitions another store keeps (partCodec.load: a keyed
// Top-N whose view holds every row it ranks, as they are after each
// batch) writes none of them, not even to the spill area: an evicted
// partition, changed since the last checkpoint or not, is dropped and
// comes back by load; restore reads nothing (every key may then be
// stored: get asks load for each one memory lacks).
type partStore[P partition] struct {
	id   string
	c    partCodec[P]
	keep func(key types.Row) bool
	// parts are the partitions in memory.
	parts map[string]P
	// gone are the keys a checkpoint holds whose partitions were dropped
	// since: the next checkpoint deletes them. stale are keys of an
	// earlier layout that a store whose partitions are kept elsewhere
	// (c.load) found at restore: the next checkpoint deletes them too.
	gone  map[string]bool
	stale map[string]bool

	store  *state.Store // nil: nothing spills
	budget int
	mem    *memShare
	spill  spillArea
	// onDisk: partitions not in parts may be stored (evicted whole);
	// evicted has every key evict moved out (restore evicts the ones it
	// does not keep), so a key it lacks is new and get reads nothing —
	// unless restored: a restore that read nothing left every key
	// possibly stored.
	onDisk   bool
	restored bool
	evicted  evictedFilter
	seed     maphash.Seed
	// round counts the eviction checks (one per batch or visited
	// partition); ages is evict's scratch of the partitions' last use.
	round uint64
	ages  []uint64
	// victims, keys and vals are evict's scratch.
	victims, keys []string
	vals          [][]byte
}

// partCodec is what a partStore needs to know of its partitions.
type partCodec[P partition] struct {
	// encode is a partition's checkpoint value; decode makes a partition
	// of k back from it.
	encode func(p P) []types.Row
	decode func(k string, rows []types.Row) (P, error)
	// encodeRaw and decodeRaw, when set, replace encode and decode for a
	// partition held encoded: they give and take the stored value's bytes
	// (state.EncodeValue's layout), so nothing is decoded to move it.
	encodeRaw func(p P) []byte
	decodeRaw func(k string, val []byte) (P, error)
	// size estimates p's bytes in memory, key k's map entry included.
	size func(k string, p P) int64
	// load, when set, reads partition k as it is now from where the
	// operator's output keeps it (ok false: none), and the store writes no
	// partition of its own, checkpoint or spill (see partStore).
	load func(k string) (p P, ok bool, err error)
}

// partState is what a partStore keeps in each partition, embedded in
// the operator's partition type.
type partState struct {
	dirty     bool   // changed since the last checkpoint
	persisted bool   // a checkpoint holds its key
	used      uint64 // the round it was last found or put in (partStore.round): the least recently used leave first
}

// spillState returns the partStore's fields of the partition embedding s.
func (s *partState) spillState() *partState { return s }

// partition is a partition type a partStore holds: a pointer to a struct
// embedding partState.
type partition interface{ spillState() *partState }

// partStoreConfig is how an operator's partitions may spill.
type partStoreConfig struct {
	ID   string
	Keep func(key types.Row) bool // the restore filter of a parallel instance (nil: all)
	// Store with Budget or Memory enables spilling: at most Budget
	// partitions (0: no cap), and no more than fit in Memory's bytes
	// (nil: no share), stay in memory.
	Store  *state.Store
	Budget int
	Memory *MemoryBudget
}

func newPartStore[P partition](c partStoreConfig, codec partCodec[P]) *partStore[P] {
	s := &partStore[P]{id: c.ID, c: codec, keep: c.Keep, parts: map[string]P{}, gone: map[string]bool{}, stale: map[string]bool{},
		spill: newSpillArea(c.Store, c.ID), seed: maphash.MakeSeed()}
	if c.Store != nil && (c.Budget > 0 || c.Memory != nil) {
		s.store, s.budget, s.mem = c.Store, c.Budget, c.Memory.join()
	} else if c.Store != nil && codec.load != nil {
		s.store = c.Store // no eviction; partitions come back by load after a restore
	} else {
		s.c.load = nil // no store: restore reads the partitions' own keys
	}
	return s
}

// get returns partition k, loading it when it left memory; ok is false
// when there is none.
func (s *partStore[P]) get(k []byte) (p P, ok bool, err error) {
	if p, ok = s.parts[string(k)]; ok || !s.onDisk {
		if ok {
			p.spillState().used = s.round
		}
		return p, ok, nil
	}
	if !s.restored && !s.evicted.has(maphash.Bytes(s.seed, k)) {
		return p, false, nil
	}
	key := string(k)
	if s.gone[key] {
		return p, false, nil
	}
	if p, ok, err = s.read(key); ok {
		s.parts[key] = p
		p.spillState().used = s.round
	}
	return p, ok, err
}

// read decodes evicted partition k: from the spill area when it changed
// since the last checkpoint, else from the checkpoint, or by load from
// where the operator's output keeps it.
func (s *partStore[P]) read(k string) (p P, ok bool, err error) {
	if s.spill.has(k) {
		val, err := s.spill.get(k)
		if err != nil {
			return p, false, err
		}
		if len(val) == 0 {
			return p, false, errCorrupt(s.id)
		}
		if p, err = s.decode(k, val[1:]); err != nil {
			return p, false, err
		}
		ps := p.spillState()
		ps.dirty, ps.persisted = true, val[0] == 1
		return p, true, nil
	}
	if s.c.load != nil {
		if p, ok, err = s.c.load(k); ok {
			s.spill.reads++
			ps := p.spillState()
			ps.dirty, ps.persisted = false, true
		}
		return p, ok, err
	}
	val, ok, err := s.store.Get([]byte(s.id + k))
	if err != nil {
		return p, false, fmt.Errorf("load partition %s: %w", s.id, err)
	}
	if !ok {
		return p, false, nil
	}
	s.spill.reads++
	p, err = s.decodeStored(k, val)
	return p, err == nil, err
}

// decodeStored decodes checkpoint value val of partition k: unchanged
// since, held by the checkpoint.
func (s *partStore[P]) decodeStored(k string, val []byte) (P, error) {
	p, err := s.decode(k, val)
	if err == nil {
		ps := p.spillState()
		ps.dirty, ps.persisted = false, true
	}
	return p, err
}

func (s *partStore[P]) decode(k string, val []byte) (P, error) {
	if s.c.decodeRaw != nil {
		return s.c.decodeRaw(k, val)
	}
	rows, err := state.DecodeValue(val)
	if err != nil {
		var zero P
		return zero, fmt.Errorf("%s: %w", s.id, err)
	}
	return s.c.decode(k, rows)
}

// value is partition p's checkpoint value.
func (s *partStore[P]) value(p P) []byte {
	if s.c.encodeRaw != nil {
		return s.c.encodeRaw(p)
	}
	return state.EncodeValue(s.c.encode(p)...)
}

// put adds new partition p under k. A checkpoint holding an older
// partition of k (dropped since) makes p persisted: it replaces that one.
func (s *partStore[P]) put(k string, p P) {
	if s.gone[k] {
		delete(s.gone, k)
		p.spillState().persisted = true
	}
	s.parts[k] = p
	p.spillState().used = s.round
}

// drop forgets partition k (in memory, or just read by visit).
func (s *partStore[P]) drop(k string, p P) {
	delete(s.parts, k)
	s.spill.forget(k)
	if p.spillState().persisted {
		s.gone[k] = true
	}
}

// evict moves whole partitions out of memory until at most 3/4 of the
// limit (the budget, or the partitions that fit in the memory share,
// whichever is fewer) stay: unchanged ones are dropped, changed ones (and
// new ones no checkpoint holds) written to the spill area in one batch,
// each with whether a checkpoint holds its key. The victims are the
// partitions least recently used (by round): Nexmark's bids go to recent
// auctions and hot bidders, and evicting those at random wrote and read
// back the same partitions batch after batch (q19 66 k → 26 k events/s
// per core at 1 M events). Unchanged partitions leave first, the least
// recently used of them, and changed ones only when those are too few: an
// unchanged one costs nothing to drop, a changed one a spill write, a
// read back by the checkpoint and a delete (Nexmark q18's new
// (bidder, auction) partitions, each written out, read and written again
// within one checkpoint interval, were a third of its Badger traffic).
func (s *partStore[P]) evict() error {
	if s.store == nil {
		return nil
	}
	s.round++
	limit := s.mem.limit(s.budget, len(s.parts), s.meanBytes)
	if limit <= 0 || len(s.parts) <= limit {
		return nil
	}
	need := len(s.parts) - limit*3/4
	s.ages = s.ages[:0]
	for _, p := range s.parts {
		if ps := p.spillState(); !s.mustSpill(ps) {
			s.ages = append(s.ages, ps.used)
		}
	}
	clean := len(s.ages)
	var cleanCut, dirtyCut uint64
	hasClean, hasDirty := clean > 0, need > clean
	if hasClean {
		cleanCut = evictionCutoff(s.ages, need)
	}
	if hasDirty {
		s.ages = s.ages[:0]
		for _, p := range s.parts {
			if ps := p.spillState(); s.mustSpill(ps) {
				s.ages = append(s.ages, ps.used)
			}
		}
		dirtyCut = evictionCutoff(s.ages, need-clean)
	}
	victims, keys, vals := s.victims[:0], s.keys[:0], s.vals[:0]
	takeClean, takeDirty := min(need, clean), need-min(need, clean)
	for k, p := range s.parts {
		if takeClean == 0 && takeDirty == 0 {
			break
		}
		ps := p.spillState()
		if !s.mustSpill(ps) {
			if takeClean == 0 || !hasClean || ps.used > cleanCut {
				continue
			}
			takeClean--
		} else {
			if takeDirty == 0 || !hasDirty || ps.used > dirtyCut {
				continue
			}
			takeDirty--
			flag := byte(0)
			if ps.persisted {
				flag = 1
			}
			keys = append(keys, k)
			vals = append(vals, append([]byte{flag}, s.value(p)...))
		}
		victims = append(victims, k)
		s.evicted.add(maphash.String(s.seed, k))
	}
	if err := s.spill.write(keys, vals); err != nil {
		return err
	}
	for _, k := range victims {
		delete(s.parts, k)
	}
	clear(vals)
	s.victims, s.keys, s.vals = victims[:0], keys[:0], vals[:0]
	s.onDisk = true
	return nil
}

// mustSpill reports whether a partition leaving memory must be written
// to the spill area: it changed since the last checkpoint, or no
// checkpoint holds it, and the store keeps its partitions itself (one
// whose partitions another store keeps reads them back from there as
// they are now: partCodec.load).
func (s *partStore[P]) mustSpill(ps *partState) bool {
	return s.c.load == nil && (ps.dirty || !ps.persisted)
}

// visit calls fn for every partition: those in memory, then the evicted
// ones, read without coming back into memory (not for a store whose
// partitions are kept elsewhere: c.load). fn may drop the partition
// it gets (drop) but must not change an evicted one.
func (s *partStore[P]) visit(fn func(k string, p P) error) error {
	for k, p := range s.parts {
		if err := fn(k, p); err != nil {
			return err
		}
	}
	if !s.onDisk {
		return nil
	}
	for k := range s.spill.spilled {
		if _, ok := s.parts[k]; ok {
			continue
		}
		p, ok, err := s.read(k)
		if err != nil {
			return err
		}
		if ok {
			if err := fn(k, p); err != nil {
				return err
			}
		}
	}
	return s.store.ScanOwned([]byte(s.id), s.owns, func(key, val []byte) error {
		k := string(key[len(s.id):])
		if _, ok := s.parts[k]; ok || s.gone[k] || s.spill.has(k) {
			return nil
		}
		s.spill.reads++
		p, err := s.decodeStored(k, val)
		if err != nil {
			return err
		}
		return fn(k, p)
	})
}

// checkpoint writes, into w, deletes for the dropped partitions a
// checkpoint held, then every partition changed since the last
// checkpoint: from memory, else from the spill area, which it empties.
func (s *partStore[P]) checkpoint(w *state.Writer) error {
	for _, keys := range []map[string]bool{s.gone, s.stale} {
		for k := range keys {
			if err := w.Delete([]byte(s.id + k)); err != nil {
				return err
			}
		}
		clear(keys)
	}
	for k, p := range s.parts {
		ps := p.spillState()
		if !ps.dirty {
			continue
		}
		if s.c.load == nil {
			if err := w.Set([]byte(s.id+k), s.value(p)); err != nil {
				return err
			}
		}
		ps.dirty, ps.persisted = false, true
	}
	if s.c.load != nil { // the checkpoint holds the spilled partitions elsewhere
		return s.spill.clear(w)
	}
	err := s.spill.each(func(k string) bool {
		_, ok := s.parts[k] // loaded since: written above
		return !ok
	}, func(k string, val []byte) error {
		if len(val) == 0 {
			return errCorrupt(s.id)
		}
		return w.Set([]byte(s.id+k), val[1:])
	})
	if err != nil {
		return err
	}
	return s.spill.clear(w)
}

// restore reads every partition this instance owns from st, calling each
// (when set) for it, and evicts as it goes. A store whose partitions are
// kept elsewhere (c.load) reads none: it notes the keys an earlier layout
// left under its id, for the next checkpoint to delete.
func (s *partStore[P]) restore(st *state.Store, each func(k string, p P) error) error {
	if s.c.load != nil {
		s.onDisk, s.restored = true, true
		return st.ScanOwned([]byte(s.id), func(key []byte) (bool, error) {
			if own, err := s.owns(key); err != nil || !own {
				return false, err
			}
			s.stale[string(key[len(s.id):])] = true
			return false, nil
		}, nil)
	}
	return st.ScanOwned([]byte(s.id), s.owns, func(key, val []byte) error {
		k := string(key[len(s.id):])
		p, err := s.decodeStored(k, val)
		if err != nil {
			return err
		}
		s.parts[k] = p
		if each != nil {
			if err := each(k, p); err != nil {
				return err
			}
		}
		return s.evict()
	})
}

// owns reports whether this instance keeps the partition stored under
// key, from the key alone.
func (s *partStore[P]) owns(key []byte) (bool, error) { return ownsStored(s.keep, s.id, key) }

// resident is how many partitions are in memory.
func (s *partStore[P]) resident() int { return len(s.parts) }

// stateSize is the partitions in memory, their estimated bytes, and the
// spill area's bytes and reads.
func (s *partStore[P]) stateSize() StateSize {
	n := int64(len(s.parts))
	return s.spill.size(n, s.mem.bytes(n, s.meanBytes)+s.evicted.bytes())
}

// meanBytes is the mean in-memory size of up to sizeSample partitions.
func (s *partStore[P]) meanBytes() int64 {
	var sm sampler
	for k, p := range s.parts {
		if sm.full() {
			break
		}
		sm.add(int(s.c.size(k, p)))
	}
	return sm.times(1)
}

// release gives the store's share of the memory budget back.
func (s *partStore[P]) release() { s.mem.release(); s.mem = nil }
