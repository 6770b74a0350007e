package exec

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"

	"github.com/streamsql/streamsql/types"
)

// rowStore holds a view's distinct rows in memory without pointers the
// garbage collector must follow: each row's AppendRow encoding is copied
// into large byte chunks, its count and flags sit in a flat record table
// indexed by a stable row id, and an open-addressing table (idTable) maps
// the encoding's hash to row ids. A stored row costs its encoding, a
// 24-byte record and one to two 8-byte table slots.
//
// Ids stay valid until the row is removed (then they are reused); the
// bytes of removed rows are reclaimed by compaction, which moves rows to
// fresh chunks once dead bytes outweigh live ones and updates only their
// records, so ids held elsewhere (the dirty list, the key index) stay
// valid. A key slice returned by key is valid until the next remove.
type rowStore struct {
	seed   maphash.Seed
	chunks [][]byte // the row encodings; a handful of large slices
	recs   []rowRec // by row id
	free   []uint32 // ids of removed rows, for reuse
	table  idTable  // hash of the encoding → id
	held   int      // records in use
	used   int64    // bytes in chunks, removed rows' included
	dead   int64    // bytes in chunks of removed rows
	// lead, when set, indexes the rows by their leading values (see
	// leadIndex); add and remove keep it.
	lead *leadIndex
}

// leadIndex is a rowStore's index of its rows by their first n values:
// the hash of the encoding up to the end of the n-th value (what
// state.AppendRowPrefix gives for the row's width and those values) →
// the ids of the rows starting so, a multimap. A keyed Top-N reads a
// partition back from its view by it (Materialize.leadRows), the
// partition columns leading the view's rows. It costs a table slot (8
// bytes at 3/8 to 3/4 load) per row.
type leadIndex struct {
	n     int
	table idTable
}

// leadOf returns the part of row encoding k that its first n values end
// (all of k when it holds fewer, or is malformed).
func leadOf(k []byte, n int) []byte {
	_, off := binary.Uvarint(k)
	if off <= 0 {
		return k
	}
	for range n {
		l, ok := codecLen(k[off:])
		if !ok {
			return k
		}
		off += l
	}
	return k[:off]
}

// codecLen returns the length of the value types.AppendCodec encoded at
// the start of b.
func codecLen(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	switch types.Kind(b[0]) {
	case types.Null:
		return 1, true
	case types.Bool, types.Int, types.Timestamp, types.Date, types.TimestampTZ, types.Time:
		_, k := binary.Varint(b[1:])
		return 1 + k, k > 0
	case types.String:
		l, k := binary.Uvarint(b[1:])
		if k <= 0 || l > uint64(len(b)-1-k) {
			return 0, false
		}
		return 1 + k + int(l), true
	}
	_, rest, err := types.DecodeCodec(b, types.CodecVersion)
	return len(b) - len(rest), err == nil
}

// withLead makes s index its rows by their first n values (leadIndex).
func (s *rowStore) withLead(n int) {
	s.lead = &leadIndex{n: n}
	s.each(func(id uint32) bool {
		s.lead.table.insert(s.leadHash(s.key(id)), id)
		return true
	})
}

// leadHash is the lead index's hash of row encoding k: that of its
// leading values.
func (s *rowStore) leadHash(k []byte) uint64 { return s.hash(leadOf(k, s.lead.n)) }

// eachLead calls fn with the id of every row whose encoding starts with
// lead, the encoding of a row's width and its first n values (n the
// leadIndex's).
func (s *rowStore) eachLead(lead []byte, fn func(id uint32)) {
	s.lead.table.each(s.hash(lead), func(id uint32) {
		if bytes.Equal(leadOf(s.key(id), s.lead.n), lead) {
			fn(id)
		}
	})
}

// rowRec is one row's record: where its encoding is and its state.
type rowRec struct {
	off   uint64 // chunk<<32 | position
	count int64
	klen  uint32
	flags uint8
}

// Flags of a rowRec.
const (
	recUsed      = 1 << iota // the record holds a row
	recPersisted             // a checkpoint holds the row
	recDirty                 // changed since the last checkpoint
	recGone                  // removed since the checkpoint that holds it: a tombstone
	recRef                   // used since the eviction hand last passed it (Materialize.victims)
)

// Chunk sizes: chunks start small (a view of a few rows stays small)
// and double up to maxChunk; a larger row gets a chunk of its own size.
const (
	minChunk = 4 << 10
	maxChunk = 1 << 20
	// compactMinBytes is the dead bytes below which no compaction runs.
	compactMinBytes = 64 << 10
)

// Per-row sizes: a record, a hash-table slot at the table's mean load
// (between 3/8 and 3/4 full), and rowOverhead, what a row costs the
// store besides its encoding, with its place in the changed list.
const (
	recBytes    = 24
	slotBytes   = 16
	rowOverhead = recBytes + slotBytes + 4
)

func newRowStore() *rowStore { return &rowStore{seed: maphash.MakeSeed()} }

// hash returns the hash of a row encoding.
func (s *rowStore) hash(k []byte) uint64 { return maphash.Bytes(s.seed, k) }

// key returns the encoding of row id (valid until the next remove).
func (s *rowStore) key(id uint32) []byte {
	r := &s.recs[id]
	c, p := r.off>>32, uint32(r.off)
	return s.chunks[c][p : p+r.klen : p+r.klen]
}

// rec returns the record of row id.
func (s *rowStore) rec(id uint32) *rowRec { return &s.recs[id] }

// find returns the id of the row whose encoding is k (h its hash).
func (s *rowStore) find(k []byte, h uint64) (uint32, bool) {
	return s.table.find(h, func(id uint32) bool { return bytes.Equal(s.key(id), k) })
}

// add stores the row encoded as k (h its hash, not yet stored) and
// returns its id.
func (s *rowStore) add(k []byte, h uint64, count int64, flags uint8) uint32 {
	var id uint32
	if n := len(s.free); n > 0 {
		id, s.free = s.free[n-1], s.free[:n-1]
	} else {
		id = uint32(len(s.recs))
		s.recs = append(s.recs, rowRec{})
	}
	s.recs[id] = rowRec{off: s.place(k), count: count, klen: uint32(len(k)), flags: flags | recUsed}
	s.table.insert(h, id)
	if s.lead != nil {
		s.lead.table.insert(s.leadHash(k), id)
	}
	s.held++
	return id
}

// place copies k into the chunks and returns its offset.
func (s *rowStore) place(k []byte) uint64 {
	n := len(s.chunks)
	if n == 0 || cap(s.chunks[n-1])-len(s.chunks[n-1]) < len(k) {
		size := minChunk
		if n > 0 {
			size = min(2*cap(s.chunks[n-1]), maxChunk)
		}
		s.chunks = append(s.chunks, make([]byte, 0, max(size, len(k))))
		n++
	}
	c := s.chunks[n-1]
	off := uint64(n-1)<<32 | uint64(len(c))
	s.chunks[n-1] = append(c, k...)
	s.used += int64(len(k))
	return off
}

// remove drops row id (h the hash of its encoding); its id is reused
// and its bytes reclaimed by a later compaction.
func (s *rowStore) remove(id uint32, h uint64) {
	s.table.remove(h, id)
	if s.lead != nil {
		s.lead.table.remove(s.leadHash(s.key(id)), id)
	}
	s.dead += int64(s.recs[id].klen)
	s.recs[id] = rowRec{}
	s.free = append(s.free, id)
	s.held--
	if s.dead > compactMinBytes && 2*s.dead > s.used {
		s.compact()
	}
}

// compact copies the rows in use into fresh chunks, dropping the bytes
// of removed rows. Ids do not change.
func (s *rowStore) compact() {
	old := s.chunks
	s.chunks, s.used, s.dead = nil, 0, 0
	for id := range s.recs {
		r := &s.recs[id]
		if r.flags&recUsed == 0 {
			continue
		}
		c, p := r.off>>32, uint32(r.off)
		r.off = s.place(old[c][p : p+r.klen])
	}
}

// each calls fn with the id of every row held, until fn returns false.
func (s *rowStore) each(fn func(id uint32) bool) {
	for id := range s.recs {
		if s.recs[id].flags&recUsed != 0 && !fn(uint32(id)) {
			return
		}
	}
}

// sortByKey sorts ids by their rows' encodings.
func (s *rowStore) sortByKey(ids []uint32) {
	slices.SortFunc(ids, func(a, b uint32) int { return bytes.Compare(s.key(a), s.key(b)) })
}

// bytes returns the memory the store holds: chunks, records, the free
// list and the table.
func (s *rowStore) bytes() int64 {
	var n int64
	for _, c := range s.chunks {
		n += int64(cap(c))
	}
	n += int64(cap(s.recs))*recBytes + int64(cap(s.free))*4 + s.table.bytes()
	if s.lead != nil {
		n += s.lead.table.bytes()
	}
	return n
}

// idTable is an open-addressing hash table (linear probing, backward-
// shift deletion, so no tombstones) from 64-bit hashes to uint32 ids,
// with no pointers. A slot packs the hash's upper 32 bits (which also
// place the slot) with id+1; 0 is empty. Several ids may share a hash
// (collisions, or a multimap such as the key index): find and each take
// the candidates in turn and the caller tells the right ones.
type idTable struct {
	slots []uint64
	n     int
}

const idTableMin = 16

func slotOf(h uint64, id uint32) uint64 { return h&^0xffffffff | (uint64(id) + 1) }

// home returns the slot a tag hashes to.
func (t *idTable) home(slot uint64) int { return int(slot>>32) & (len(t.slots) - 1) }

// find returns the first id with hash h that eq accepts.
func (t *idTable) find(h uint64, eq func(id uint32) bool) (uint32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 == h>>32 && eq(uint32(s-1)) {
			return uint32(s - 1), true
		}
	}
}

// each calls fn with every id stored under hash h's tag.
func (t *idTable) each(h uint64, fn func(id uint32)) {
	if len(t.slots) == 0 {
		return
	}
	mask := len(t.slots) - 1
	for i := t.home(h); t.slots[i] != 0; i = (i + 1) & mask {
		if s := t.slots[i]; s>>32 == h>>32 {
			fn(uint32(s - 1))
		}
	}
}

// insert adds id under hash h, growing the table past 3/4 full.
func (t *idTable) insert(h uint64, id uint32) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	t.put(slotOf(h, id))
	t.n++
}

func (t *idTable) put(slot uint64) {
	mask := len(t.slots) - 1
	i := t.home(slot)
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = slot
}

func (t *idTable) grow() {
	old := t.slots
	t.slots = make([]uint64, max(2*len(old), idTableMin))
	for _, s := range old {
		if s != 0 {
			t.put(s)
		}
	}
}

// remove deletes id stored under hash h, shifting back the slots after
// it that would otherwise become unreachable.
func (t *idTable) remove(h uint64, id uint32) {
	if len(t.slots) == 0 {
		return
	}
	mask := len(t.slots) - 1
	want := slotOf(h, id)
	i := t.home(want)
	for t.slots[i] != want {
		if t.slots[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	t.n--
	for j := (i + 1) & mask; t.slots[j] != 0; j = (j + 1) & mask {
		// The slot at j may move to the hole at i when its home does not
		// lie cyclically in (i, j].
		if home := t.home(t.slots[j]); (j-home)&mask >= (j-i)&mask {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = 0
}

func (t *idTable) bytes() int64 { return int64(len(t.slots)) * 8 }
