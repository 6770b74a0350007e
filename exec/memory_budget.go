package exec

import (
	"sync/atomic"
	"unsafe"

	"github.com/streamsql/streamsql/types"
)

// MemoryBudget is the bytes of state that the stateful operators of every
// running pipeline may keep in memory together (the engine derives it
// from memory_limit). Each operator instance that can spill — a join, a
// GROUP BY aggregate, a view store — is a member with an equal share;
// over its share it evicts to Badger as it does over state_cache_size.
// Windows are not members yet (they keep state_cache_size's row cap).
type MemoryBudget struct {
	total   atomic.Int64
	members atomic.Int64
}

// NewMemoryBudget returns a budget of total bytes (0 or less: no limit).
func NewMemoryBudget(total int64) *MemoryBudget {
	b := &MemoryBudget{}
	b.SetTotal(total)
	return b
}

// SetTotal changes the bytes shared (0 or less: no limit); members see it
// at their next eviction check.
func (b *MemoryBudget) SetTotal(total int64) { b.total.Store(max(total, 0)) }

// Share is each member's bytes; 0 means no limit.
func (b *MemoryBudget) Share() int64 {
	t := b.total.Load()
	if t == 0 {
		return 0
	}
	return t / max(b.members.Load(), 1)
}

// join adds a member and returns its share (nil for a nil budget).
func (b *MemoryBudget) join() *memShare {
	if b == nil {
		return nil
	}
	b.members.Add(1)
	return &memShare{b: b}
}

// resampleEvery is how many eviction checks reuse a mean entry size
// before it is sampled again.
const resampleEvery = 64

// memShare is one operator instance's membership of a MemoryBudget: its
// share, and the mean in-memory bytes of one of its entries (rows of a
// view or join, groups), from a sample refreshed every resampleEvery
// checks, which turns the share into a number of entries.
type memShare struct {
	b     *MemoryBudget
	mean  int64
	calls int
}

// release removes the member; its share goes to the others.
func (s *memShare) release() {
	if s != nil {
		s.b.members.Add(-1)
	}
}

// limit returns how many entries the operator may keep in memory: rows
// (state_cache_size; 0: no cap) and, with a share, the share over the
// mean entry size, which sample (returning 0 for no entries) measures.
// 0 means no limit.
func (s *memShare) limit(rows int, sample func() int64) int {
	if s == nil {
		return rows
	}
	if s.mean == 0 || s.calls%resampleEvery == 0 {
		if m := sample(); m > 0 {
			s.mean = m
		}
	}
	s.calls++
	share := s.b.Share()
	if s.mean == 0 || share == 0 {
		return rows
	}
	n := int(max(share/s.mean, 1))
	if rows > 0 && rows < n {
		return rows
	}
	return n
}

// bytes estimates the memory of entries entries: at the share's mean when
// it has one, else at sample's.
func (s *memShare) bytes(entries int64, sample func() int64) int64 {
	if s != nil && s.mean > 0 {
		return entries * s.mean
	}
	return entries * sample()
}

// Sizes behind the in-memory estimates: they count Go's own overhead, as
// the budget stands for the process's memory, not the encoded state.
const (
	valueBytes = int64(unsafe.Sizeof(types.Value{}))
	// mapEntryBytes is a map entry's share of its buckets (slot, control
	// byte, load-factor slack) besides the key and value themselves.
	mapEntryBytes = 48
	// stringBytes is a string's header.
	stringBytes = 16
	// timerBytes is one entry of an expiry heap (time and key).
	timerBytes = 32
)

// rowBytes estimates the memory of row r: its slice and values and the
// strings they hold.
func rowBytes(r types.Row) int64 {
	n := 24 + valueBytes*int64(len(r))
	for _, v := range r {
		n += int64(len(v.S))
	}
	return n
}

// keyBytes estimates a map entry keyed by k: the slot and the string.
func keyBytes(k string) int64 { return mapEntryBytes + stringBytes + int64(len(k)) }

func (a *Aggregate) releaseMemory()   { a.mem.release(); a.mem = nil }
func (j *Join) releaseMemory()        { j.mem.release(); j.mem = nil }
func (m *Materialize) releaseMemory() { m.mem.release(); m.mem = nil }
