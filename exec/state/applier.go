package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

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
	stop atomic.Bool   // Release: the running apply stops at its next chunk
	// marked (tests): when set, called once each progress record of an
	// apply is committed.
	marked func()
	// resumed is how many changes the last apply started skipped, as
	// applied before a crash by the progress it recorded.
	resumed atomic.Int64
}

// errApplyStopped ends an apply that Release stopped: its checkpoint
// stays staged and the next open applies it again.
var errApplyStopped = errors.New("apply stopped")

// applyRun is one checkpoint being applied: its chunks, their changes
// sorted by key (parsed and sorted once, by the apply or by the first
// read, whichever comes first: the overlay reads merge is the same sorted
// list the apply writes), and read-only
// transactions begun before the apply's first write (snapshots), which
// reads use while it runs. A transaction begun during the apply would
// wait for the apply's commit in flight (Badger makes a new transaction
// wait for every commit before its read timestamp, and the apply syncs
// every few transactions): the snapshot with the overlay over it reads
// the same, at once.
type applyRun struct {
	chunks []stagedChunk
	n      int // about how many changes the chunks hold (0: not known)
	once   sync.Once
	sorted []change
	err    error

	snapMu sync.Mutex
	snaps  []*badger.Txn // free snapshots
	ended  bool          // the apply ended: returned snapshots are discarded
}

// runSnapshots is how many snapshots an apply keeps for concurrent reads;
// a read that finds none free (a read nested in another's callback, or
// many at once) begins its own transaction, which may wait.
const runSnapshots = 8

// takeSnapshot returns a free snapshot, nil when none is.
func (r *applyRun) takeSnapshot() *badger.Txn {
	r.snapMu.Lock()
	defer r.snapMu.Unlock()
	if n := len(r.snaps); n > 0 && !r.ended {
		txn := r.snaps[n-1]
		r.snaps = r.snaps[:n-1]
		return txn
	}
	return nil
}

// putSnapshot returns a snapshot a read is done with.
func (r *applyRun) putSnapshot(txn *badger.Txn) {
	r.snapMu.Lock()
	defer r.snapMu.Unlock()
	if r.ended || len(r.snaps) >= runSnapshots {
		txn.Discard()
		return
	}
	r.snaps = append(r.snaps, txn)
}

// end discards the free snapshots; those in use are discarded as their
// reads return them.
func (r *applyRun) end() {
	r.snapMu.Lock()
	defer r.snapMu.Unlock()
	r.ended = true
	for _, txn := range r.snaps {
		txn.Discard()
	}
	r.snaps = nil
}

// changes returns the run's changes sorted by key, one per key, parsing
// and sorting the chunks on first use.
func (r *applyRun) changes() ([]change, error) {
	r.once.Do(func() {
		r.sorted, r.err = sortedChanges(r.chunks, r.n)
		r.chunks = nil // the changes hold what of them they need
	})
	return r.sorted, r.err
}

// overlay returns the run's overlay.
func (r *applyRun) overlay() (*overlay, error) {
	sorted, err := r.changes()
	if err != nil {
		return nil, err
	}
	return &overlay{changes: sorted}, nil
}

// newRun returns the run of chunks (n changes) with its snapshots.
func (s *Store) newRun(chunks []stagedChunk, n int) *applyRun {
	run := &applyRun{chunks: chunks, n: n}
	for range runSnapshots {
		run.snaps = append(run.snaps, s.db.NewTransaction(false))
	}
	return run
}

// readStagedOnly makes reads merge a committed checkpoint's chunks over
// Badger without applying them (a store opened ForReading): the run
// stays until the store closes (endIdleRun).
func (s *Store) readStagedOnly(chunks []stagedChunk) {
	run := s.newRun(chunks, 0)
	s.bg.mu.Lock()
	s.bg.run = run
	s.bg.mu.Unlock()
}

// endIdleRun ends a run no apply ends (readStagedOnly), discarding its
// snapshots before the database closes.
func (s *Store) endIdleRun() {
	s.bg.mu.Lock()
	defer s.bg.mu.Unlock()
	if s.bg.run != nil && s.bg.done == nil {
		s.bg.run.end()
		s.bg.run = nil
	}
}

// applyInBackground starts applying checkpoint id's chunks (n changes)
// after key after (nil: all of them), then removes its staging file at
// path. The caller has settled the previous apply.
func (s *Store) applyInBackground(id uint64, path string, chunks []stagedChunk, n int, after []byte) {
	done := make(chan struct{})
	run := s.newRun(chunks, n)
	s.bg.mu.Lock()
	s.bg.done = done
	s.bg.run = run
	s.bg.mu.Unlock()
	gate := s.bg.gate
	go func() {
		defer close(done)
		if gate != nil {
			<-gate
		}
		err := s.applyChunks(id, run, after)
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
		run.end()
		if err != nil && s.bg.err == nil && !errors.Is(err, errApplyStopped) {
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
// had ended and all of its writes are in the snapshot. During an apply
// the transaction is one of its snapshots when one is free.
func (s *Store) read(fn func(txn *badger.Txn, ov *overlay) error) error {
	s.bg.mu.Lock()
	if err := s.bg.err; err != nil {
		s.bg.mu.Unlock()
		return err
	}
	run := s.bg.run
	var txn *badger.Txn
	if run != nil {
		txn = run.takeSnapshot()
	}
	if txn == nil {
		txn = s.db.NewTransaction(false)
	}
	s.bg.mu.Unlock()
	if run == nil {
		defer txn.Discard()
		return fn(txn, nil)
	}
	// A transaction begun during the apply, with the overlay over it,
	// reads the same as a snapshot: it may join them.
	defer run.putSnapshot(txn)
	ov, err := run.overlay()
	if err != nil {
		return fmt.Errorf("staged checkpoint: %w", err)
	}
	return fn(txn, ov)
}

// WaitApplied returns once every committed checkpoint is applied to its
// keys, with the error of an apply that failed.
func (s *Store) WaitApplied() error { return s.settle() }
