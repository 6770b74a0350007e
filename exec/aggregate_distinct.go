package exec

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// The DISTINCT sets of an Aggregate's groups are stored apart from the
// rest of the group, in chunks, so that a checkpoint writes what changed
// since the last one rather than the whole sets again (a hot group's sets
// grow with the input: rewriting them at every checkpoint made the
// checkpoints' cost grow quadratically over a run).
//
// Layout: the group's value (id + group key) holds its scalar part (last
// update, group, emitted row, the other accumulators, the DISTINCT sets
// smaller than minChunkedEntries; a set over an append-only input in
// distinctAcc.appendState's form, its BIGINT values as one BYTEA of
// their intSet blocks, which builds before it wrote a value each and
// which it still reads) and, per DISTINCT accumulator, a chunk
// header: how many chunks it has (0: the set is in the value), how many
// entries the first (a whole copy of the set) and the others (changes)
// hold. Chunk seq of DISTINCT accumulator i is stored under
//
//	base + "@d/" + group key + uvarint(i) + seq (4 bytes, big-endian)
//
// (base is the id without its trailing slash, as the timers' space), so
// a group's chunks are one key prefix: a group key is a fixed number of
// self-delimiting values, so no other group's key extends it. Chunk 0 is
// the whole set when it was last written whole; chunk 1, 2, ... each hold
// the changes one checkpoint made: the values new to the set (append-only
// input) or, over a retracting input, each value whose count changed with
// its count then (0: it left the set). Reading the chunks in order gives
// the set. Only a set with stored chunks lists its changes in memory
// (chunkedSet.track): a set in the value is written whole, and one
// chunked for the first time is written whole as chunk 0.
//
// A checkpoint writes a changed group's scalar value and, per DISTINCT
// set that changed, one more chunk of its changes; it writes the set
// whole again (chunk 0, deleting the others) when the changes since the
// last whole copy outnumber that copy's entries, or there are
// maxSetChunks chunks, so each value is written a bounded number of times
// on average and a set is read back from at most maxSetChunks keys. A
// group removed (emptied, or expired under STATE TTL) deletes its value
// and every chunk its header lists. A group evicted while changed goes to
// the spill area whole (its sets inline, with the headers of its stored
// chunks) and is written whole at the next checkpoint. Values written
// before this layout hold the sets inline, with no header; they are read
// as such and the group is written in this layout at its next
// checkpoint.

// maxSetChunks bounds a DISTINCT set's chunks: past it the set is
// written whole again.
const maxSetChunks = 16

// minChunkedEntries is the size (in entries: a value, or over a
// retracting input a value and its count) from which a set is stored in
// chunks: a smaller one stays in the group's value, whose one point read
// loads it, and is rewritten whole when it changes. Nexmark q16 has
// 10,000 cold channels with sets of tens to hundreds of values besides
// its four hot ones: chunked from 64 entries, loading evicted cold
// groups back by prefix scans took more CPU at 3 M events than
// rewriting their sets (docs/benchmarks.md). A variable for tests.
var minChunkedEntries = 1024

// Chunk header modes, the first value of the header row.
const (
	setsInline  = 0 // the sets are in the value (spill areas of earlier builds)
	setsChunked = 1 // the sets with chunks are in them, the others in the value
	setsSpilled = 2 // the sets with chunks are in them plus the value's changes (the spill area)
)

// chunkedSet is a DISTINCT accumulator whose set an Aggregate stores in
// chunks: distinctAcc over an append-only input, distinctSetAcc over a
// retracting one.
type chunkedSet interface {
	// track starts (on) or stops listing the set's changes (not while it
	// is loaded). Only a set with stored chunks lists them: a set in the
	// group's value is written whole, and one written in chunks for the
	// first time is written whole as chunk 0.
	track(on bool)
	// changes is how many entries appendChanges would write.
	changes() int
	// appendChanges appends, in AppendRow's form, the changes since the
	// last chunk, and forgets them.
	appendChanges(dst []byte) []byte
	// appendPending is appendChanges without forgetting them.
	appendPending(dst []byte) []byte
	// appendWhole appends the whole set in AppendRow's form, and forgets
	// the changes; entries is how many entries it wrote.
	appendWhole(dst []byte) (out []byte, entries int)
	// entries is how many entries appendWhole would write.
	entries() int
	// forget forgets the changes.
	forget()
	// replay applies one chunk read back, in order; once tracking, it
	// lists what it changes.
	replay(r types.Row) error
	// settle finishes a load once every chunk is replayed.
	settle()
}

func (a *distinctAcc) entries() int { return a.size() }

// track lists the set's new values from now on, or stops: a set in the
// group's value would hold, besides its compact values, an 8-byte entry
// per value added since the last checkpoint.
func (a *distinctAcc) track(on bool) {
	a.tracking = on
	if !on {
		a.freshInts, a.freshVals = nil, nil
	}
}

func (a *distinctAcc) changes() int { return len(a.freshInts) + len(a.freshVals) }

func (a *distinctAcc) appendChanges(dst []byte) []byte {
	dst = a.appendPending(dst)
	a.forget()
	return dst
}

func (a *distinctAcc) appendPending(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(a.changes()))
	for _, i := range a.freshInts {
		dst = types.AppendCodec(dst, types.IntValue(i))
	}
	for _, v := range a.freshVals {
		dst = types.AppendCodec(dst, v)
	}
	return dst
}

func (a *distinctAcc) appendWhole(dst []byte) ([]byte, int) {
	a.forget()
	return a.appendState(dst), a.size()
}

// forget drops the list of new values, keeping a small one's array.
func (a *distinctAcc) forget() {
	a.freshInts, a.freshVals = a.freshInts[:0], a.freshVals[:0]
	if cap(a.freshInts) > 1024 {
		a.freshInts = nil
	}
	if cap(a.freshVals) > 1024 {
		a.freshVals = nil
	}
}

func (a *distinctAcc) replay(r types.Row) error { return a.decode(r) }
func (a *distinctAcc) settle()                  {}

func (a *distinctSetAcc) track(on bool) {
	if !on {
		a.forget()
		a.fresh = nil
	}
	a.tracking = on
}

func (a *distinctSetAcc) entries() int { return 2 * len(a.seen) }
func (a *distinctSetAcc) changes() int { return 2 * len(a.fresh) }

func (a *distinctSetAcc) appendChanges(dst []byte) []byte {
	dst = a.appendPending(dst)
	a.forget()
	return dst
}

func (a *distinctSetAcc) appendPending(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(2*len(a.fresh)))
	for _, c := range a.fresh {
		dst = types.AppendCodec(dst, c.v)
		dst = types.AppendCodec(dst, types.IntValue(c.n))
	}
	return dst
}

func (a *distinctSetAcc) appendWhole(dst []byte) ([]byte, int) {
	a.forget()
	dst = binary.AppendUvarint(dst, uint64(2*len(a.seen)))
	for _, c := range a.seen {
		dst = types.AppendCodec(dst, c.v)
		dst = types.AppendCodec(dst, types.IntValue(c.n))
	}
	return dst, 2 * len(a.seen)
}

// forget drops the list of changed values.
func (a *distinctSetAcc) forget() {
	for _, c := range a.fresh {
		c.fresh = false
	}
	clear(a.fresh)
	a.fresh = a.fresh[:0]
	if cap(a.fresh) > 1024 {
		a.fresh = nil
	}
}

// replay sets the count of each value of chunk r (value, count pairs):
// a later chunk's count of a value replaces an earlier one's.
func (a *distinctSetAcc) replay(r types.Row) error {
	if len(r)%2 != 0 {
		return fmt.Errorf("DISTINCT chunk: want value, count pairs, got %d values", len(r))
	}
	for i := 0; i < len(r); i += 2 {
		a.buf = state.AppendKey(a.buf[:0], r[i])
		c, n := a.seen[string(a.buf)], r[i+1].I
		switch {
		case n <= 0 && c == nil:
			c = &counted{v: r[i]} // listed as gone (tracking)
		case n <= 0:
			delete(a.seen, string(a.buf))
			c.n = 0
		case c != nil:
			c.n = n
		default:
			c = &counted{v: r[i], n: n}
			a.seen[string(a.buf)] = c
		}
		a.touch(c)
	}
	return nil
}

// settle folds the loaded set into inner.
func (a *distinctSetAcc) settle() {
	if a.inner == nil {
		return
	}
	for _, c := range a.seen {
		a.inner.add(c.v)
	}
}

// setChunks is the chunk header of one DISTINCT set of a group: the
// chunks stored, the entries of chunk 0 and of the others together.
type setChunks struct {
	n, whole, changes int64
}

// goneGroup is a stored group removed since the last checkpoint: its
// stored timer and the chunks of its sets, which the checkpoint deletes.
type goneGroup struct {
	indexed int64
	chunks  []setChunks
}

// setIndexes lists the accumulators of acc that are chunked sets.
func setIndexes(acc accs) []int {
	var out []int
	for i, x := range acc {
		if _, ok := x.(chunkedSet); ok {
			out = append(out, i)
		}
	}
	return out
}

// trackSets starts listing the changes of e's sets that have stored
// chunks (the others are written whole). An aggregate with no store to
// checkpoint to (an ad-hoc query's) lists none, which would only grow;
// should it checkpoint after all, it writes e's sets whole.
func (a *Aggregate) trackSets(e *aggEntry) {
	if a.db == nil {
		e.rewrite = true
		return
	}
	for j, i := range a.sets {
		e.acc[i].(chunkedSet).track(e.chunks[j].n > 0)
	}
}

// chunkKey appends the key of chunk seq of set i of group k to dst.
func (a *Aggregate) chunkKey(dst []byte, k string, i int, seq int64) []byte {
	dst = append(dst, a.setSpace...)
	dst = append(dst, k...)
	dst = binary.AppendUvarint(dst, uint64(i))
	return binary.BigEndian.AppendUint32(dst, uint32(seq))
}

// appendHeader appends the header row of e's sets in mode (setsChunked
// or setsSpilled).
func (a *Aggregate) appendHeader(dst []byte, e *aggEntry, mode int64) []byte {
	dst = binary.AppendUvarint(dst, uint64(1+3*len(a.sets)))
	dst = types.AppendCodec(dst, types.IntValue(mode))
	for j := range a.sets {
		h := e.chunks[j]
		dst = types.AppendCodec(dst, types.IntValue(h.n))
		dst = types.AppendCodec(dst, types.IntValue(h.whole))
		dst = types.AppendCodec(dst, types.IntValue(h.changes))
	}
	return dst
}

// readHeader reads a header row written by appendHeader into e.chunks
// and returns its mode.
func (a *Aggregate) readHeader(e *aggEntry, r types.Row) (int64, error) {
	if len(r) != 1+3*len(a.sets) {
		return 0, errCorrupt(a.id)
	}
	for j := range a.sets {
		e.chunks[j] = setChunks{n: r[1+3*j].I, whole: r[2+3*j].I, changes: r[3+3*j].I}
	}
	return r[0].I, nil
}

// writeSets writes, within checkpoint w, the chunks of e's sets that
// changed since the last checkpoint (the whole sets when e.rewrite).
func (a *Aggregate) writeSets(w *state.Writer, e *aggEntry) error {
	for j, i := range a.sets {
		set, h := e.acc[i].(chunkedSet), &e.chunks[j]
		n := int64(set.changes())
		switch {
		case e.partial && h.n > 0: // appendable: its changes are all it holds
			if n > 0 {
				if err := a.appendChunk(w, e, j); err != nil {
					return err
				}
			}
		case set.entries() < minChunkedEntries: // in the group's value
			if err := a.deleteChunks(w, e.key, i, 0, h.n); err != nil {
				return err
			}
			*h = setChunks{}
			set.forget()
		case e.rewrite || h.n == 0 || h.n >= maxSetChunks || h.changes+n > h.whole:
			if err := a.writeWhole(w, e, j); err != nil {
				return err
			}
		case n > 0:
			if err := a.appendChunk(w, e, j); err != nil {
				return err
			}
		}
		set.track(h.n > 0 && a.db != nil)
	}
	e.rewrite = false
	return nil
}

// appendChunk writes the changes of set j of e as its next chunk.
func (a *Aggregate) appendChunk(w *state.Writer, e *aggEntry, j int) error {
	i, h := a.sets[j], &e.chunks[j]
	set := e.acc[i].(chunkedSet)
	n := int64(set.changes())
	a.valBuf = set.appendChanges(append(a.valBuf[:0], state.Version, 1))
	a.chunkBuf = a.chunkKey(a.chunkBuf[:0], e.key, i, h.n)
	if err := w.Set(a.chunkBuf, a.valBuf); err != nil {
		return err
	}
	h.n++
	h.changes += n
	return nil
}

// appendable reports whether writeSets, for partial entry e, appends
// each stored set's changes as a chunk rather than writing it whole
// (which needs the whole set).
func (a *Aggregate) appendable(e *aggEntry) bool {
	for j, i := range a.sets {
		h, n := e.chunks[j], int64(e.acc[i].(chunkedSet).changes())
		if h.n > 0 && n > 0 && (h.n >= maxSetChunks || h.changes+n > h.whole) {
			return false
		}
	}
	return true
}

// writeWhole writes set j of e whole as its chunk 0 (none when it is
// empty) and deletes its other chunks.
func (a *Aggregate) writeWhole(w *state.Writer, e *aggEntry, j int) error {
	i, h := a.sets[j], &e.chunks[j]
	var entries int
	a.valBuf, entries = e.acc[i].(chunkedSet).appendWhole(append(a.valBuf[:0], state.Version, 1))
	a.chunkBuf = a.chunkKey(a.chunkBuf[:0], e.key, i, 0)
	var err error
	if entries > 0 {
		err = w.Set(a.chunkBuf, a.valBuf)
	} else if h.n > 0 {
		err = w.Delete(a.chunkBuf)
	}
	if err != nil {
		return err
	}
	if err := a.deleteChunks(w, e.key, i, 1, h.n); err != nil {
		return err
	}
	*h = setChunks{whole: int64(entries)}
	if entries > 0 {
		h.n = 1
	}
	return nil
}

// deleteChunks deletes chunks from to n-1 of set i of group k.
func (a *Aggregate) deleteChunks(w *state.Writer, k string, i int, from, n int64) error {
	for seq := from; seq < n; seq++ {
		a.chunkBuf = a.chunkKey(a.chunkBuf[:0], k, i, seq)
		if err := w.Delete(a.chunkBuf); err != nil {
			return err
		}
	}
	return nil
}

// deleteGroup deletes, within checkpoint w, the stored value of removed
// group k and its sets' chunks.
func (a *Aggregate) deleteGroup(w *state.Writer, k string, g goneGroup) error {
	if err := w.Delete([]byte(a.id + k)); err != nil {
		return err
	}
	for j, h := range g.chunks {
		if err := a.deleteChunks(w, k, a.sets[j], 0, h.n); err != nil {
			return err
		}
	}
	return nil
}

// readSets loads e's sets that have chunks from them in store s (e's
// header is read, those sets empty and not tracking), then starts
// tracking e's sets and replays pending, the changes since the chunks
// of the sets (a spilled value's; nil for none).
func (a *Aggregate) readSets(s *state.Store, e *aggEntry, pending []types.Row) error {
	if err := a.readChunks(s, e); err != nil {
		return err
	}
	a.trackSets(e)
	for j, i := range a.sets {
		if pending != nil && pending[j] != nil {
			if err := e.acc[i].(chunkedSet).replay(pending[j]); err != nil {
				return err
			}
		}
		if e.chunks[j].n > 0 { // its value held none of it: fold it whole
			e.acc[i].(chunkedSet).settle()
		}
	}
	return nil
}

// readChunks replays the chunks of e's sets from store s.
func (a *Aggregate) readChunks(s *state.Store, e *aggEntry) error {
	if !e.stored() {
		return nil
	}
	prefix := append([]byte(a.setSpace), e.key...)
	err := s.Scan(prefix, func(key, val []byte) error {
		i, k := binary.Uvarint(key[len(prefix):])
		if k <= 0 || len(key) != len(prefix)+k+4 {
			return errCorrupt(a.id)
		}
		j := a.setOf(int(i))
		seq := int64(binary.BigEndian.Uint32(key[len(prefix)+k:]))
		if j < 0 || seq >= e.chunks[j].n {
			return nil // not listed: a chunk left by a checkpoint that was not committed
		}
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		if len(rows) != 1 {
			return errCorrupt(a.id)
		}
		return e.acc[i].(chunkedSet).replay(rows[0])
	})
	if err != nil {
		return fmt.Errorf("read DISTINCT sets: %w", err)
	}
	return nil
}

// stored reports whether any of e's sets is stored in chunks.
func (e *aggEntry) stored() bool {
	for _, h := range e.chunks {
		if h.n > 0 {
			return true
		}
	}
	return false
}

// setOf returns the position in a.sets of accumulator i, or -1.
func (a *Aggregate) setOf(i int) int {
	for j, x := range a.sets {
		if x == i {
			return j
		}
	}
	return -1
}
