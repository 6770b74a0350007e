package state

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	badger "github.com/dgraph-io/badger/v4"
)

// applier runs the apply step of one committed checkpoint at a time in the
// background: Checkpoint returns once its commit marker is durable, and
// the caller goes on processing while the staged changes are written to
// their keys; Open does the same with the committed checkpoint an
// interrupted run left staged. Every write to the store first waits for
// that apply (settle), so a write (a spill, the next checkpoint) never
// lands before an apply that could overwrite it. Reads do not wait: they
// merge the running apply's changes over Badger (reading), so a key reads
// its committed value whether or not the apply reached it. State: the
// chunks of one checkpoint and their overlay, held from its staging until
// its apply ends; a checkpoint's own size bounds them.
type applier struct {
	mu   sync.Mutex
	done chan struct{} // closed when the running apply ends; nil when none ran
	run  *applyRun     // the running apply, nil when none runs
	err  error         // the first apply that failed; sticky
	gate chan struct{} // tests: when set, an apply waits for it to close
}

// applyRun is one checkpoint being applied: its chunks, and the overlay
// reads build from them the first time one needs it.
type applyRun struct {
	chunks []stagedChunk
	once   sync.Once
	ov     *overlay
	err    error
}

// overlay returns the run's overlay, building it on first use.
func (r *applyRun) overlay() (*overlay, error) {
	r.once.Do(func() { r.ov, r.err = newOverlay(r.chunks) })
	return r.ov, r.err
}

// applyInBackground starts applying checkpoint id's chunks (n changes), then removes
// its staging file at path. The caller has settled the previous apply.
func (s *Store) applyInBackground(id uint64, path string, chunks []stagedChunk, n int) {
	done := make(chan struct{})
	s.bg.mu.Lock()
	s.bg.done = done
	s.bg.run = &applyRun{chunks: chunks}
	s.bg.mu.Unlock()
	gate := s.bg.gate
	go func() {
		defer close(done)
		if gate != nil {
			<-gate
		}
		err := s.applyChunks(chunks, n)
		if err == nil {
			// The changes are durable at their keys. A file the remove
			// leaves (a crash now) is applied again on open while id is
			// the committed checkpoint, which gives the same result, and
			// removed after. The removal is made durable before any later
			// write can land (settle waits for it): a file that came back
			// after a crash would otherwise replay its values over a
			// later acknowledged write.
			if os.Remove(path) == nil {
				_ = syncDir(filepath.Dir(path))
			}
		}
		s.bg.mu.Lock()
		defer s.bg.mu.Unlock()
		s.bg.run = nil
		if err != nil && s.bg.err == nil {
			s.bg.err = fmt.Errorf("apply checkpoint %d: %w", id, err)
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

// read runs fn in a read-only transaction together with the overlay of
// the checkpoint being applied (nil when none is), or returns the error
// of a failed apply. Both are taken under the applier's lock, which the
// apply's end also takes: with an overlay, the apply had not ended when
// the transaction began, so no later write is in its snapshot and the
// overlay's values are the newest of their keys; without one, any apply
// had ended and all of its writes are in the snapshot.
func (s *Store) read(fn func(txn *badger.Txn, ov *overlay) error) error {
	s.bg.mu.Lock()
	if err := s.bg.err; err != nil {
		s.bg.mu.Unlock()
		return err
	}
	txn := s.db.NewTransaction(false)
	run := s.bg.run
	s.bg.mu.Unlock()
	defer txn.Discard()
	var ov *overlay
	if run != nil {
		var err error
		if ov, err = run.overlay(); err != nil {
			return fmt.Errorf("staged checkpoint: %w", err)
		}
	}
	return fn(txn, ov)
}

// WaitApplied returns once every committed checkpoint is applied to its
// keys, with the error of an apply that failed.
func (s *Store) WaitApplied() error { return s.settle() }
