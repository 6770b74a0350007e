package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
)

// dirtyList lists the entries (or keys) changed since the last
// checkpoint, so a checkpoint visits only those. Each entry carries its
// own dirty flag and is listed once per interval; when the list outgrows
// both twice the entries held and twice what its last compaction kept, it
// is compacted to the entries still live. Flags and lists instead of a map
// of dirty keys: under the churn of keys that live for seconds, deleting
// from such a map leaves it full of tombstones that slow every probe.
//
// Cost and bound: a compaction scans n > 2k entries, where k is what the
// previous one kept, so at least n/2 adds paid for it (O(1) amortised per
// add even when every listed entry stays live, as in a view over its
// memory budget, whose held count stays at the budget); and the list never
// exceeds max(compactMin, 2×held, 2×k)+1 entries.
type dirtyList[E any] struct {
	items []E
	floor int // no compaction until the list is longer: 2× what the last one kept
}

// compactMin is the list length below which dirtyList never compacts.
const compactMin = 1024

// add lists e; held is how many entries the operator holds and live
// reports whether a listed entry still needs the checkpoint.
func (d *dirtyList[E]) add(e E, held int, live func(E) bool) {
	d.items = append(d.items, e)
	if n := len(d.items); n <= compactMin || n <= 2*held || n <= d.floor {
		return
	}
	kept := d.items[:0]
	for _, x := range d.items {
		if live(x) {
			kept = append(kept, x)
		}
	}
	clear(d.items[len(kept):])
	d.items = kept
	d.floor = 2 * len(kept)
}

// take returns the list and starts a new one.
func (d *dirtyList[E]) take() []E {
	l := d.items
	d.items, d.floor = nil, 0
	return l
}

func errCorrupt(id string) error {
	return fmt.Errorf("state of operator %q is corrupt or from another layout: %w", id, state.ErrVersion)
}
