package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
)

// markGone records in dirty that key was removed: a key an earlier
// checkpoint wrote must be deleted by the next one (dirty[key] = true); a
// key no checkpoint wrote needs nothing, so it leaves dirty at once (which
// also keeps dirty from growing with every key that lives and dies
// between checkpoints).
func markGone(dirty map[string]bool, key string, persisted bool) {
	if persisted {
		dirty[key] = true
	} else {
		delete(dirty, key)
	}
}

func errCorrupt(id string) error {
	return fmt.Errorf("state of operator %q is corrupt or from another layout: %w", id, state.ErrVersion)
}
