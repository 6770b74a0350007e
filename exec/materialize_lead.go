package exec

import (
	"sync"

	"github.com/streamsql/streamsql/types"
)

// withLeadIndex lets a keyed Top-N read its partitions from the view
// (leadRows), the partition columns being the view rows' first n
// columns: the rows get an index by those values (leadIndex), and the
// evicted rows' leading values a Bloom filter (leadEvicted), so a
// partition none of whose rows left memory is read without Badger. A
// lock guards the rows between Process and leadRows, which the Top-N's
// parallel instances call while another instance's rows are processed.
func (m *Materialize) withLeadIndex(n int) {
	m.rows.withLead(n)
	m.leadMu = &sync.Mutex{}
}

// leadRows calls fn with each row the view holds now whose encoding
// starts with lead (state.AppendRowPrefix of the view's width and the
// leading values), and its count: the rows in memory, and those only
// the last checkpoint holds (when rows with those leading values were
// evicted, or a restore left every row in Badger). Unlike a read of the
// checkpoint, it includes the changes since, so a Top-N may drop a
// partition it changed and read it back from here.
func (m *Materialize) leadRows(lead []byte, fn func(r types.Row, count int64) error) error {
	m.leadMu.Lock()
	defer m.leadMu.Unlock()
	var stored map[string]int64
	if m.onDisk && (m.restored || m.leadEvicted.has(m.rows.hash(lead))) {
		stored = map[string]int64{}
		if err := m.storedCounts(lead, stored); err != nil {
			return err
		}
	}
	var err error
	m.rows.eachLead(lead, func(id uint32) {
		if c := m.rows.rec(id).count; c > 0 && err == nil {
			var r types.Row
			if r, err = m.rowOf(m.rows.key(id)); err == nil {
				err = fn(r, c)
			}
		}
	})
	if err != nil {
		return err
	}
	for k, c := range stored {
		if c <= 0 {
			continue
		}
		r, err := m.rowOf([]byte(k))
		if err != nil {
			return err
		}
		if err := fn(r, c); err != nil {
			return err
		}
	}
	return nil
}
