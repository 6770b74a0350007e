package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
)

// dirtyList lists the entries (or keys) changed since the last
// checkpoint, so a checkpoint visits only those. Each entry carries its
// own dirty flag and is listed once per interval; when removed entries
// make up most of the list it is compacted, so it stays near the number of
// entries held. Flags and lists instead of a map of dirty keys: under the
// churn of keys that live for seconds, deleting from such a map leaves it
// full of tombstones that slow every probe.
type dirtyList[E any] struct{ items []E }

// add lists e; held is how many entries the operator holds and live
// reports whether a listed entry still needs the checkpoint.
func (d *dirtyList[E]) add(e E, held int, live func(E) bool) {
	d.items = append(d.items, e)
	if len(d.items) > 1024 && len(d.items) > 2*held {
		kept := d.items[:0]
		for _, x := range d.items {
			if live(x) {
				kept = append(kept, x)
			}
		}
		clear(d.items[len(kept):])
		d.items = kept
	}
}

// take returns the list and starts a new one.
func (d *dirtyList[E]) take() []E {
	l := d.items
	d.items = nil
	return l
}

func errCorrupt(id string) error {
	return fmt.Errorf("state of operator %q is corrupt or from another layout: %w", id, state.ErrVersion)
}
