package exec

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// MemoryBudget is the bytes of state that the stateful operators of every
// running pipeline may keep in memory together (the engine derives it
// from memory_limit). Each operator instance that can spill — a join, a
// GROUP BY aggregate, a window aggregate, a view store, a keyed or window
// Top-N, a running aggregate — is a member. A
// member may always keep an equal share, and more while the others leave
// theirs unused: up to the total less what the others hold (their last
// published estimates), so one large join is not held to the share of
// many small window aggregates beside it. Over its limit a member evicts
// to Badger as it does over state_cache_size. The members' estimates are
// published at their eviction checks, so the sum may pass the total by
// what grew since, until the next checks.
type MemoryBudget struct {
	total   atomic.Int64
	members atomic.Int64
	used    atomic.Int64 // the members' published estimates, summed
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

// Total is the bytes shared; 0 means no limit.
func (b *MemoryBudget) Total() int64 { return b.total.Load() }

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
	usage int64 // the estimate last published to b.used
}

// release removes the member; its share and what it held go to the
// others.
func (s *memShare) release() {
	if s != nil {
		s.b.members.Add(-1)
		s.b.used.Add(-s.usage)
		s.usage = 0
	}
}

// limit returns how many entries the operator may keep in memory: rows
// (state_cache_size; 0: no cap) and, with a share, the bytes it may hold
// over the mean entry size, which sample (returning 0 for no entries)
// measures. It publishes resident entries at that mean as the member's
// estimate; the bytes it may hold are its equal share or, when more, the
// total less the other members' estimates. 0 means no limit.
func (s *memShare) limit(rows, resident int, sample func() int64) int {
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
	usage := int64(resident) * s.mean
	others := s.b.used.Add(usage-s.usage) - usage
	s.usage = usage
	n := int(max(max(share, s.b.total.Load()-others)/s.mean, 1))
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
	// ptrBytes is a pointer in a slice.
	ptrBytes = 8
	// ifaceBytes is an interface value (type and data words).
	ifaceBytes = 16
)

// allocBytes is the heap a single allocation of n bytes takes: Go rounds
// small objects up to a size class (8 or 16 bytes apart up to 128, about
// an eighth of the size above).
func allocBytes(n int64) int64 {
	switch {
	case n <= 0:
		return 0
	case n <= 16:
		return (n + 7) &^ 7
	case n <= 128:
		return (n + 15) &^ 15
	}
	step := int64(1) << (63 - bits.LeadingZeros64(uint64(n)) - 3) // an eighth of the power of two below n
	return (n + step - 1) / step * step
}

// accsBytes estimates accumulators in memory: the slice of interfaces,
// each accumulator's struct and what it holds (strings, DISTINCT sets,
// the values of jsonb_agg and array_agg).
func accsBytes(a accs) int64 {
	n := allocBytes(ifaceBytes * int64(len(a)))
	for _, x := range a {
		n += accBytes(x)
	}
	return n
}

func accBytes(a accumulator) int64 {
	switch x := a.(type) {
	case *countAcc:
		return allocBytes(int64(unsafe.Sizeof(*x)))
	case *sumAcc:
		n := allocBytes(int64(unsafe.Sizeof(*x))) + int64(len(x.d.S))
		if x.big != nil {
			n += 64 + int64(cap(x.big.Bits()))*8
		}
		return n
	case *minMaxAcc:
		return allocBytes(int64(unsafe.Sizeof(*x))) + int64(len(x.v.S))
	case *avgAcc:
		return allocBytes(int64(unsafe.Sizeof(*x))) + int64(len(x.dec.d.S))
	case *distinctAcc:
		slot := int64(unsafe.Sizeof(distinctKey{})) + ptrBytes
		n := allocBytes(int64(unsafe.Sizeof(*x))) + x.ints.bytes() + mapBytes(len(x.seen), slot) + int64(cap(x.buf))
		n += 8*int64(cap(x.freshInts)) + valuesBytes(x.freshVals) // the changes since the last checkpoint
		for k, ref := range x.seen {
			n += 2 * int64(len(k.s)) // the key's and the value's strings
			if ref != nil {
				n += allocBytes(valueBytes)
			}
		}
		if x.inner != nil {
			n += accBytes(x.inner)
		}
		return n
	case *minMaxSetAcc:
		return allocBytes(int64(unsafe.Sizeof(*x))) + x.vals.bytes() + int64(len(x.best.S)) + int64(cap(x.buf))
	case *distinctSetAcc:
		n := allocBytes(int64(unsafe.Sizeof(*x))) + x.seen.bytes() + int64(cap(x.buf)) + ptrBytes*int64(cap(x.fresh))
		if x.inner != nil {
			n += accBytes(x.inner)
		}
		return n
	case *jsonAggAcc:
		return allocBytes(int64(unsafe.Sizeof(*x))) + valuesBytes(x.vals)
	case *arrayAggAcc:
		return allocBytes(int64(unsafe.Sizeof(*x))) + valuesBytes(x.vals)
	}
	return allocBytes(int64(len(state.EncodeValue(a.encode()))))
}

// mapBytes estimates a map of n entries of slot bytes (key and value)
// that grew by inserts: its header and groups of 8 slots with a control
// word, which a small map allocates whole and a larger one keeps at most
// 7/8 full, doubling when it fills.
func mapBytes(n int, slot int64) int64 {
	const header = 48
	group := 8 + 8*slot
	switch {
	case n == 0:
		return header
	case n <= 8:
		return header + allocBytes(group)
	}
	groups := int64(1) << bits.Len64(uint64((n*8/7+7)/8-1)) // a power of two
	return header + groups*group + groups/8*ptrBytes
}

// valuesBytes estimates a slice of values: its array and strings.
func valuesBytes(vs []types.Value) int64 {
	n := allocBytes(valueBytes * int64(cap(vs)))
	for _, v := range vs {
		n += int64(len(v.S))
	}
	return n
}

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

func (w *WindowAggregate) releaseMemory() { w.mem.release(); w.mem = nil }
