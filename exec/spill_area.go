package exec

import (
	"fmt"

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
	spilled map[string]bool
	garbage map[string]bool
}

func newSpillArea(store *state.Store, id string) spillArea {
	return spillArea{prefix: SpillPrefix + id, store: store, spilled: map[string]bool{}, garbage: map[string]bool{}}
}

func (s *spillArea) key(k string) []byte { return []byte(s.prefix + k) }

// has reports whether k's current value is in the spill area.
func (s *spillArea) has(k string) bool { return s.spilled[k] }

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
	for _, k := range keys {
		s.spilled[k] = true
		delete(s.garbage, k)
	}
	return nil
}

// get reads k's spilled value.
func (s *spillArea) get(k string) ([]byte, error) {
	val, ok, err := s.store.Get(s.key(k))
	if err != nil {
		return nil, fmt.Errorf("read spill %s: %w", s.prefix, err)
	}
	if !ok {
		return nil, fmt.Errorf("read spill %s: value missing: %w", s.prefix, state.ErrVersion)
	}
	return val, nil
}

// forget marks k's spilled value stale (its entry was removed).
func (s *spillArea) forget(k string) {
	if s.spilled[k] {
		delete(s.spilled, k)
		s.garbage[k] = true
	}
}

// clear deletes the operator's spill keys within checkpoint w, once w
// holds their values.
func (s *spillArea) clear(w *state.Writer) error {
	for _, set := range []map[string]bool{s.spilled, s.garbage} {
		for k := range set {
			if err := w.Delete(s.key(k)); err != nil {
				return err
			}
		}
	}
	s.spilled, s.garbage = map[string]bool{}, map[string]bool{}
	return nil
}
