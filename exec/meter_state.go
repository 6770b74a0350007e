package exec

import (
	"unsafe"

	"github.com/streamsql/streamsql/exec/state"
)

// The sizes of the stateful operators' state, for OpStats.State: keys in
// memory, an estimate of their bytes, the spill area's bytes and the
// evicted values read back. Read only while the pipeline is not
// processing (the engine holds its lock).

// StateSize is what a stateful plan node's state holds.
type StateSize struct {
	// Keys counts the keys in memory: groups, windows, join keys of both
	// sides, the view's distinct rows.
	Keys int64
	// MemoryBytes estimates the bytes of the state in memory: the
	// resident entries times the mean in-memory size (Go's overhead
	// included) of up to sizeSample of them, the mean the operator's
	// MemoryBudget share evicts by (see memory_budget.go).
	MemoryBytes int64
	// SpilledBytes is the size of the values in the spill area (changed
	// since the last checkpoint, evicted from memory).
	SpilledBytes int64
	// SpillReads counts the evicted values read back, from the spill area
	// or the last checkpoint, since the pipeline started.
	SpillReads int64
}

func (s StateSize) add(o StateSize) StateSize {
	return StateSize{s.Keys + o.Keys, s.MemoryBytes + o.MemoryBytes, s.SpilledBytes + o.SpilledBytes, s.SpillReads + o.SpillReads}
}

// stateMeasurer is an operator that can size its state.
type stateMeasurer interface {
	stateSize() StateSize
}

// sizeSample is how many resident entries an estimate of memory bytes
// encodes.
const sizeSample = 16

// sampler averages the encoded sizes of up to sizeSample entries.
type sampler struct{ n, bytes int64 }

// full reports whether enough entries were sampled.
func (s *sampler) full() bool { return s.n >= sizeSample }

func (s *sampler) add(bytes int) {
	s.n++
	s.bytes += int64(bytes)
}

// times is resident entries at the sample's mean size.
func (s *sampler) times(resident int64) int64 {
	if s.n == 0 {
		return 0
	}
	return resident * s.bytes / s.n
}

func (a *spillArea) size(keys int64, mem int64) StateSize {
	return StateSize{Keys: keys, MemoryBytes: mem, SpilledBytes: a.bytes, SpillReads: a.reads}
}

func (w *WindowAggregate) stateSize() StateSize {
	return w.spill.size(w.StateKeys(), w.mem.bytes(int64(w.resident), w.meanBytes))
}

// meanBytes is the mean in-memory size of a window in memory, over up to
// sizeSample of them (entryBytes), plus its part of what the operator
// keeps beside its windows (bookBytes).
func (w *WindowAggregate) meanBytes() int64 {
	var s sampler
	var keys int64
	for _, e := range w.windows {
		if s.full() {
			break
		}
		s.add(int(w.entryBytes(e)))
		keys += int64(len(e.key))
	}
	if s.n == 0 {
		return 0
	}
	return s.times(1) + w.bookBytes(keys/s.n)/int64(max(w.resident, 1))
}

// entryBytes estimates window e in memory: its map entry, the entry,
// group and emitted rows, rows still to retract, accumulators, a timer
// bucket's pointer and, for a session, its place in its group's list.
func (w *WindowAggregate) entryBytes(e *winEntry) int64 {
	n := keyBytes(e.key) + 8 + allocBytes(int64(unsafe.Sizeof(*e))) + rowBytes(e.group) + accsBytes(e.acc) + 2*ptrBytes
	if e.emitted != nil {
		n += rowBytes(e.emitted)
	}
	for _, r := range e.stale {
		n += rowBytes(r)
	}
	if !w.timed() {
		n += ptrBytes + (keyBytes(e.key)+3*ptrBytes)/int64(len(w.byGroup[string(state.AppendKeyRow(nil, e.group))])+1)
	}
	return n
}

// bookBytes estimates what the operator keeps beside its windows in
// memory, keys being keyLen bytes: the changed list, the removed and
// spilled keys the next checkpoint writes, and the entries of windows
// that left memory, which timer buckets hold until that checkpoint.
func (w *WindowAggregate) bookBytes(keyLen int64) int64 {
	key := mapEntryBytes + stringBytes + keyLen + 8
	n := int64(cap(w.changed.items))*stringBytes + int64(len(w.gone)+len(w.spill.spilled)+len(w.spill.garbage))*key
	if out := int64(w.timers.Len() - w.resident); out > 0 {
		n += out * (allocBytes(int64(unsafe.Sizeof(winEntry{}))) + keyLen + 2*ptrBytes)
	}
	return n
}

func (a *Aggregate) stateSize() StateSize {
	return a.spill.size(a.StateKeys(), a.mem.bytes(a.StateKeys(), a.meanBytes))
}

// meanBytes is the mean in-memory size of a group: the map entry, the
// entry, its group and emitted rows, and its accumulators. The groups
// with DISTINCT sets stored in chunks (1,024 entries or more: bigs) are
// few and may be a thousand times the others (q16's four hot channels
// among 10,000 cold ones), so they are counted exactly and the others
// from a sample of up to sizeSample: one of them in the sample made the
// mean a hundred times the others', and the aggregate evicted nearly
// every group, the hot ones too, to read them back at their next rows.
func (a *Aggregate) meanBytes() int64 {
	if len(a.entries) == 0 {
		return 0
	}
	var big int64
	for k, e := range a.bigs {
		if a.entries[k] != e || !e.stored() {
			delete(a.bigs, k) // evicted, removed or no longer chunked
			continue
		}
		big += a.groupBytes(e)
	}
	var s sampler
	for _, e := range a.entries {
		if s.full() {
			break
		}
		if a.bigs[e.key] != e {
			s.add(int(a.groupBytes(e)))
		}
	}
	return (s.times(int64(len(a.entries)-len(a.bigs))) + big) / int64(len(a.entries))
}

// groupBytes is group e's in-memory size.
func (a *Aggregate) groupBytes(e *aggEntry) int64 {
	n := keyBytes(e.key) + 8 + int64(unsafe.Sizeof(*e)) + rowBytes(e.group) + rowBytes(e.emitted) + accsBytes(e.acc)
	if a.ttl > 0 {
		n += timerBytes
	}
	return n
}

// noteBig lists resident group e among the bigs when its sets have
// stored chunks (meanBytes drops it when it is not resident or chunked).
func (a *Aggregate) noteBig(e *aggEntry) {
	if e.stored() && a.entries[e.key] == e {
		if a.bigs == nil {
			a.bigs = map[string]*aggEntry{}
		}
		a.bigs[e.key] = e
	}
}

func (j *Join) stateSize() StateSize {
	resident := int64(j.resident[0] + j.resident[1])
	return j.spill.size(j.StateKeys(), j.mem.bytes(resident, j.meanBytes))
}

// meanBytes is the mean in-memory size of a stored row, over the rows of
// up to sizeSample keys: each key's map entry, state and expiry-heap
// entry spread over its rows, and each row's encoding and span.
func (j *Join) meanBytes() int64 {
	var s sampler
	for side := range j.sides {
		j.sides[side].each(func(jk *joinKey) bool {
			if s.full() {
				return false
			}
			if jk.rows.len() == 0 {
				return true
			}
			n := joinKeyBytes + stringBytes + int64(len(jk.key)) + int64(unsafe.Sizeof(*jk)) + timerBytes + jk.rows.bytes()
			s.n += int64(jk.rows.len()) - 1
			s.add(int(n))
			return true
		})
	}
	j.sampleBuckets(&s)
	return s.times(1)
}

func (m *Materialize) stateSize() StateSize {
	return StateSize{Keys: m.StateKeys(), MemoryBytes: m.mem.bytes(m.StateKeys(), m.meanBytes) + m.evicted.bytes() + m.leadEvicted.bytes(), SpillReads: m.reads}
}

// meanBytes is the mean in-memory size of a row held: its share of the
// row store's live encodings plus what each row adds to the store's
// tables (rowOverhead, an index slot once point reads built the key
// index, and one for the lead index a keyed Top-N reads by). It counts rows, not capacities: the tables keep their capacity
// after an eviction, and a mean over capacity would grow with each
// eviction and shrink the next limit in turn.
func (m *Materialize) meanBytes() int64 {
	if m.rows.held == 0 {
		return 0
	}
	n := (m.rows.used-m.rows.dead)/int64(m.rows.held) + rowOverhead
	if m.index != nil {
		n += slotBytes
	}
	if m.rows.lead != nil {
		n += slotBytes // the lead index (materialize_lead.go)
	}
	return n
}

func (p *Parallel) stateSize() StateSize {
	var sum StateSize
	for _, o := range p.inst {
		if s, ok := o.(stateMeasurer); ok {
			sum = sum.add(s.stateSize())
		}
	}
	return sum
}
