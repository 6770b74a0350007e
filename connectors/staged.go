package connectors

// Staged holds an exactly-once sink's pre-committed checkpoints, oldest
// first, from PreCommit until their Commit succeeds. A Commit that failed
// leaves its checkpoint staged, so the next Commit (for a later id)
// writes both.
type Staged struct {
	list []stagedCheckpoint
}

type stagedCheckpoint struct {
	id      uint64
	changes []Change
}

// Stage records checkpoint id's changes, already collapsed per key (see
// Collapse), and returns them encoded: the bytes PreCommit hands the
// engine.
func (s *Staged) Stage(id uint64, changes []Change) []byte {
	s.list = append(s.list, stagedCheckpoint{id: id, changes: changes})
	return EncodeChanges(changes)
}

// UpTo returns the changes of every staged checkpoint up to id as one set
// collapsed per key, and how many checkpoints that is (for Drop).
func (s *Staged) UpTo(id uint64, key []int) ([]Change, int) {
	var changes []Change
	n := 0
	for _, st := range s.list {
		if st.id > id {
			break
		}
		changes = append(changes, st.changes...)
		n++
	}
	if n > 1 {
		changes = Collapse(changes, key)
	}
	return changes, n
}

// Each calls fn for every staged checkpoint up to id, oldest first, and
// stops at the first error; it returns how many calls succeeded.
func (s *Staged) Each(id uint64, fn func(id uint64, changes []Change) error) (int, error) {
	n := 0
	for _, st := range s.list {
		if st.id > id {
			break
		}
		if err := fn(st.id, st.changes); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Drop forgets the n oldest checkpoints, which have committed.
func (s *Staged) Drop(n int) { s.list = s.list[n:] }
