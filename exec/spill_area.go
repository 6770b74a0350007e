package exec

import (
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/exec/state"
)

// SpillPrefix starts every spill-area key. The spill area holds values
// changed since the last checkpoint that did not fit an operator's memory
// budget; it is never part of a checkpoint, so recovery deletes it.
const SpillPrefix = "spill/"

// spillArea is one operator's part of the spill area: which keys' current
// values are there (spilled), and which spill keys are stale (garbage:
// their entries were removed). A checkpoint copies spilled values into
// their checkpoint keys and then clears the area (clear).
type spillArea struct {
	prefix  string
	store   *state.Store
	spilled map[string]int // the spilled keys and their values' sizes
	garbage map[string]bool
	// bytes sums the spilled values' sizes; reads counts the evicted
	// values read back (here, or from the checkpoint by the operator).
	bytes, reads int64
}

func newSpillArea(store *state.Store, id string) spillArea {
	return spillArea{prefix: SpillPrefix + id, store: store, spilled: map[string]int{}, garbage: map[string]bool{}}
}

func (s *spillArea) key(k string) []byte { return []byte(s.prefix + k) }

// has reports whether k's current value is in the spill area.
func (s *spillArea) has(k string) bool {
	_, ok := s.spilled[k]
	return ok
}

// write stores vals[i] for keys[i] in one batch and marks them spilled.
func (s *spillArea) write(keys []string, vals [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	err := s.store.Batch(func(w *state.Writer) error {
		for i, k := range keys {
			if err := w.Set(s.key(k), vals[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("spill %s: %w", s.prefix, err)
	}
	for i, k := range keys {
		s.bytes += int64(len(vals[i]) - s.spilled[k])
		s.spilled[k] = len(vals[i])
		delete(s.garbage, k)
	}
	return nil
}

// get reads k's spilled value.
func (s *spillArea) get(k string) ([]byte, error) {
	s.reads++
	val, ok, err := s.store.Get(s.key(k))
	if err != nil {
		return nil, fmt.Errorf("read spill %s: %w", s.prefix, err)
	}
	if !ok {
		return nil, fmt.Errorf("read spill %s: value missing: %w", s.prefix, state.ErrVersion)
	}
	return val, nil
}

// eachFew is the most spilled values each reads one by one; past it, it
// reads them all in one pass over the area's keys, in key order, which
// decodes each of Badger's blocks once instead of once a value (random
// point reads of values spilled since the last checkpoint were a fifth
// of Nexmark q18's CPU, in its keyed Top-N's checkpoints).
const eachFew = 64

// each calls fn with every spilled key that want accepts and its value
// (valid during the call only), for a checkpoint copying them; it fails
// when one is missing.
func (s *spillArea) each(want func(k string) bool, fn func(k string, val []byte) error) error {
	n := 0
	for k := range s.spilled {
		if want(k) {
			n++
		}
	}
	if n <= eachFew {
		for k := range s.spilled {
			if !want(k) {
				continue
			}
			val, err := s.get(k)
			if err != nil {
				return err
			}
			if err := fn(k, val); err != nil {
				return err
			}
		}
		return nil
	}
	found := 0
	err := s.store.Scan([]byte(s.prefix), func(key, val []byte) error {
		k := key[len(s.prefix):]
		if _, ok := s.spilled[string(k)]; !ok || !want(string(k)) {
			return nil // stale, or not asked for
		}
		s.reads++
		found++
		return fn(string(k), val)
	})
	if err != nil {
		return fmt.Errorf("read spill %s: %w", s.prefix, err)
	}
	if found != n {
		return fmt.Errorf("read spill %s: %d of %d values missing: %w", s.prefix, n-found, n, state.ErrVersion)
	}
	return nil
}

// forget marks k's spilled value stale (its entry was removed).
func (s *spillArea) forget(k string) {
	if n, ok := s.spilled[k]; ok {
		s.bytes -= int64(n)
		delete(s.spilled, k)
		s.garbage[k] = true
	}
}

// clear deletes the operator's spill keys within checkpoint w, once w
// holds their values.
func (s *spillArea) clear(w *state.Writer) error {
	for k := range s.spilled {
		if err := w.Delete(s.key(k)); err != nil {
			return err
		}
	}
	for k := range s.garbage {
		if err := w.Delete(s.key(k)); err != nil {
			return err
		}
	}
	s.spilled, s.garbage, s.bytes = map[string]int{}, map[string]bool{}, 0
	return nil
}

// evictionCutoff sorts ages (the last use of each entry that may leave
// memory) and returns the last use of the newest of the victims entries
// used least recently: an evicting operator takes the entries used no
// later than it. ages must not be empty.
func evictionCutoff(ages []uint64, victims int) uint64 {
	slices.Sort(ages)
	return ages[min(victims, len(ages))-1]
}
