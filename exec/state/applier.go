package state

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// applier runs the apply step of one committed checkpoint at a time in the
// background: Checkpoint returns once its commit marker is durable, and
// the caller goes on processing while the staged changes are written to
// their keys. Every other use of the store first waits for that apply
// (settle), so a read never sees a key before its committed value, and a
// write (a spill, the next checkpoint) never lands before an apply that
// could overwrite it. State: the chunks of one checkpoint, held from its
// staging until its apply ends; a checkpoint's own size bounds them.
type applier struct {
	mu   sync.Mutex
	done chan struct{} // closed when the running apply ends; nil when none ran
	err  error         // the first apply that failed; sticky
	gate chan struct{} // tests: when set, an apply waits for it to close
}

// applyInBackground starts applying checkpoint id's chunks (n changes),
// then removes its staging file at path. The caller has settled the previous apply.
func (s *Store) applyInBackground(id uint64, path string, chunks []stagedChunk, n int) {
	done := make(chan struct{})
	s.bg.mu.Lock()
	s.bg.done = done
	s.bg.mu.Unlock()
	gate := s.bg.gate
	go func() {
		defer close(done)
		if gate != nil {
			<-gate
		}
		if err := s.applyChunks(chunks, n); err != nil {
			s.bg.mu.Lock()
			if s.bg.err == nil {
				s.bg.err = fmt.Errorf("apply checkpoint %d: %w", id, err)
			}
			s.bg.mu.Unlock()
			return
		}
		// The changes are durable at their keys. A file the remove leaves
		// (a crash now) is applied again on open while id is the committed
		// checkpoint, which gives the same result, and removed after. The
		// removal is made durable before any later write can land (settle
		// waits for it): a file that came back after a crash would
		// otherwise replay its values over a later acknowledged write.
		if os.Remove(path) == nil {
			_ = syncDir(filepath.Dir(path))
		}
	}()
}

// settle waits until no checkpoint is being applied and returns the error
// of a failed apply (the store is then unusable until reopened, which
// applies the checkpoint again).
func (s *Store) settle() error {
	s.bg.mu.Lock()
	done := s.bg.done
	s.bg.mu.Unlock()
	if done != nil {
		<-done
	}
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	return s.bg.err
}

// WaitApplied returns once every committed checkpoint is applied to its
// keys, with the error of an apply that failed.
func (s *Store) WaitApplied() error { return s.settle() }
