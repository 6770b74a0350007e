package exec

import (
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
)

func errCorrupt(id string) error {
	return fmt.Errorf("state of operator %q is corrupt or from another layout: %w", id, state.ErrVersion)
}
