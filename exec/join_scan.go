package exec

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// The scanned side of an interval join (planner.ScannedSide): when the
// other input emits at most one row per window, this side is probed once
// per window, so its rows are not indexed by key. They are kept encoded
// in buckets of time (scanBucketParts buckets per interval), each in
// arrival order: a store appends to its bucket (no hash table, no key
// state, no timer), a probe scans the buckets its interval overlaps and
// compares hashes and keys, and the watermark drops whole buckets (a row
// whose bucket still lives but that expired is skipped by the probe, so
// the rows joined are the indexed layout's).
//
// Stored layout: a checkpoint writes each bucket's rows added since as
// one chunk, id + "s" + side + bucket (big-endian, sign flipped) +
// instances + instance (2 bytes each) + sequence (4 bytes), whose value
// is the rows as encodeRows writes them after the watermarks; a dropped
// bucket's chunks are deleted. A restore reads every chunk of its own
// instance; chunks written at another parallelism are split by owner,
// their rows written again and the chunks deleted. Rows of a checkpoint
// that indexed this side (id + side + key, before this layout) are read
// into buckets and their keys and timers deleted at the next checkpoint.
//
// Spilling: over the budget whole buckets leave memory, newest first
// (the probes of q7's windows read the oldest): the rows a checkpoint
// holds stay in its chunks, the rest go to the spill area in chunk form;
// a probe that needs the bucket reads it back.

// scanBucketParts is how many buckets one interval spans.
const scanBucketParts = 4

// scanSide is the scanned side's buckets.
type scanSide struct {
	width   int64
	buckets []*scanBucket // ascending ids
	gone    [][]byte      // chunk keys the next checkpoint deletes
	// instance and instances name this instance's chunks.
	instance, instances int
}

// scanBucket is the rows with times in [id*width, (id+1)*width). In
// memory its rows are rows, the first written of them held by
// checkpoint chunks 0…chunks-1; spilled, rows is empty and spillRows
// rows after the written ones sit in the spill area.
type scanBucket struct {
	id        int64
	buf       []byte    // the rows' encodings (time, row...) back to back
	keys      []byte    // the rows' join keys in key form back to back
	rows      []scanRow // per row, where its encoding and key end
	written   int
	chunks    int
	spilled   bool
	spillRows int
}

// scanRow is one row's time, key hash and the ends of its encoding and
// key.
type scanRow struct {
	time   int64
	hash   uint64
	end    uint32
	keyEnd uint32
}

// scanRowBytes is what a row costs a bucket besides its encoding and key.
const scanRowBytes = 24

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// newScanSide returns the scanned side of interval join n.
func newScanSide(n interval, instance, instances int) scanSide {
	return scanSide{width: max((n.upper-n.lower)/scanBucketParts, 1), instance: instance, instances: max(instances, 1)}
}

// interval is an interval join's bounds.
type interval struct{ lower, upper int64 }

// bucket returns the bucket with id, made when missing.
func (s *scanSide) bucket(id int64) *scanBucket {
	i := len(s.buckets)
	for i > 0 && s.buckets[i-1].id > id {
		i--
	}
	if i > 0 && s.buckets[i-1].id == id {
		return s.buckets[i-1]
	}
	b := &scanBucket{id: id}
	s.buckets = append(s.buckets, nil)
	copy(s.buckets[i+1:], s.buckets[i:])
	s.buckets[i] = b
	return b
}

// add appends row r (time t, key kb with hash h) to b, encoded in
// scratch.
func (b *scanBucket) add(kb []byte, h uint64, r types.Row, t int64, scratch *[]byte) {
	enc := state.AppendRowPrefix((*scratch)[:0], len(r)+1, types.IntValue(t))
	for _, v := range r {
		enc = types.AppendCodec(enc, v)
	}
	*scratch = enc
	b.buf = append(b.buf, enc...)
	b.keys = append(b.keys, kb...)
	b.rows = append(b.rows, scanRow{time: t, hash: h, end: uint32(len(b.buf)), keyEnd: uint32(len(b.keys))})
}

// from is where row i's encoding starts.
func (b *scanBucket) from(i int) uint32 {
	if i == 0 {
		return 0
	}
	return b.rows[i-1].end
}

// bytes is the memory the bucket's rows take.
func (b *scanBucket) bytes() int64 {
	return int64(cap(b.buf)+cap(b.keys)) + int64(cap(b.rows))*scanRowBytes
}

// scanStore appends row r (time t, key kb, hash h) of the scanned side;
// a spilled bucket is read back first (a row out of order, or many rows
// of the newest bucket over the budget).
func (j *Join) scanStore(side int, kb []byte, h uint64, r types.Row, t int64) error {
	j.touches[side]++ // a lookup of the side, as keyOf counts one
	b := j.scan.bucket(floorDiv(t, j.scan.width))
	if b.spilled {
		if err := j.loadBucket(side, b); err != nil {
			return err
		}
	}
	b.add(kb, h, r, t, &j.scratch)
	j.resident[side]++
	return nil
}

// scanProbe appends to out the joins of row r (time t, key kb, hash h)
// of port with the scanned side's rows, and reports whether any matched.
func (j *Join) scanProbe(port int, kb []byte, h uint64, r types.Row, t int64, out *Batch) (bool, error) {
	side := 1 - port
	j.touches[side]++
	lo, hi := t-j.n.Upper, t-j.n.Lower // left times a right row at t can match
	if side == 1 {
		lo, hi = t+j.n.Lower, t+j.n.Upper
	}
	blo, bhi := floorDiv(lo, j.scan.width), floorDiv(hi, j.scan.width)
	matched := false
	for _, b := range j.scan.buckets {
		if b.id < blo || b.id > bhi {
			continue
		}
		if b.spilled {
			if err := j.loadBucket(side, b); err != nil {
				return false, err
			}
		}
		m, err := j.probeBucket(port, b, kb, h, r, t, out)
		if err != nil {
			return false, err
		}
		matched = matched || m
	}
	return matched, nil
}

// probeBucket joins row r of port with the rows of bucket b whose key is
// kb, whose time matches and which have not expired.
func (j *Join) probeBucket(port int, b *scanBucket, kb []byte, h uint64, r types.Row, t int64, out *Batch) (bool, error) {
	side := 1 - port
	matched := false
	var start, kstart uint32
	for _, sr := range b.rows {
		rs, ks := start, kstart
		start, kstart = sr.end, sr.keyEnd
		if sr.hash != h || !bytes.Equal(b.keys[ks:sr.keyEnd], kb) {
			continue
		}
		lt, rt := sr.time, t
		if side == 1 {
			lt, rt = t, sr.time
		}
		if !j.matches(lt, rt) || j.expiry(side, sr.time) < j.wm[port] {
			continue
		}
		o, _, err := state.DecodeRow(b.buf[rs:sr.end])
		if err != nil || len(o) < 1 {
			return false, fmt.Errorf("%s: decode scanned row: %w", j.id, errOr(err, state.ErrVersion))
		}
		matched = j.emitPair(port, r, o[1:], out) || matched
	}
	return matched, nil
}

// errOr is err, or other when err is nil.
func errOr(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

// scanPurge drops the buckets of the scanned side whose every row
// expired before wm: their chunks are deleted at the next checkpoint.
func (j *Join) scanPurge(side int, wm int64) {
	s := &j.scan
	n := 0
	for n < len(s.buckets) && j.expiry(side, (s.buckets[n].id+1)*s.width-1) < wm {
		b := s.buckets[n]
		for c := 0; c < b.chunks; c++ {
			s.gone = append(s.gone, j.chunkKey(side, b.id, c))
		}
		if b.spilled {
			j.spill.forget(j.bucketSpillKey(side, b.id))
		} else {
			j.resident[side] -= len(b.rows)
		}
		s.buckets[n] = nil
		n++
	}
	if n > 0 {
		s.buckets = append(s.buckets[:0], s.buckets[n:]...)
	}
}

// chunkPrefix is the stored prefix of the chunks of bucket id of side.
func (j *Join) chunkPrefix(side int, id int64) []byte {
	k := []byte(j.id + "s" + string(rune('0'+side)))
	return binary.BigEndian.AppendUint64(k, uint64(id)^(1<<63))
}

// chunkKey is the stored key of this instance's chunk seq of bucket id.
func (j *Join) chunkKey(side int, id int64, seq int) []byte {
	k := j.chunkPrefix(side, id)
	k = binary.BigEndian.AppendUint16(k, uint16(j.scan.instances))
	k = binary.BigEndian.AppendUint16(k, uint16(j.scan.instance))
	return binary.BigEndian.AppendUint32(k, uint32(seq))
}

// bucketSpillKey names a spilled bucket's unwritten rows in the spill
// area, which the join's instances share ("s" cannot start a key's state
// key, which is a side digit).
func (j *Join) bucketSpillKey(side int, id int64) string {
	k := binary.BigEndian.AppendUint64([]byte{'s', byte('0' + side)}, uint64(id)^(1<<63))
	return string(binary.BigEndian.AppendUint16(k, uint16(j.scan.instance)))
}

// chunkValue is the stored value of bucket b's rows from i on.
func (j *Join) chunkValue(b *scanBucket, i int) []byte {
	hdr := state.AppendRow(nil, types.Row{types.IntValue(j.wm[0]), types.IntValue(j.wm[1])})
	rest := b.buf[b.from(i):]
	v := make([]byte, 0, 1+binary.MaxVarintLen64+len(hdr)+len(rest))
	v = append(v, state.Version)
	v = binary.AppendUvarint(v, uint64(len(b.rows)-i+1))
	v = append(v, hdr...)
	return append(v, rest...)
}

// scanCheckpoint deletes the chunks of dropped buckets and writes each
// bucket's rows added since the last checkpoint as a new chunk (a
// spilled bucket's from the spill area, which the checkpoint then
// clears).
func (j *Join) scanCheckpoint(w *state.Writer) error {
	s := &j.scan
	side := j.scanned
	for _, k := range s.gone {
		if err := w.Delete(k); err != nil {
			return err
		}
	}
	s.gone = s.gone[:0]
	for _, b := range s.buckets {
		var val []byte
		var n int
		switch {
		case b.spilled && b.spillRows > 0:
			v, err := j.spill.get(j.bucketSpillKey(side, b.id))
			if err != nil {
				return err
			}
			val, n = v, b.spillRows
		case !b.spilled && b.written < len(b.rows):
			val, n = j.chunkValue(b, b.written), len(b.rows)-b.written
		default:
			continue
		}
		if err := w.Set(j.chunkKey(side, b.id, b.chunks), val); err != nil {
			return err
		}
		b.chunks++
		b.written += n
		if b.spilled {
			b.spillRows = 0
		}
	}
	return nil
}

// decodeChunk calls fn with each row (and its time) of a chunk value.
func decodeChunk(val []byte, fn func(t int64, r types.Row)) error {
	rows, err := state.DecodeValue(val)
	if err != nil {
		return err
	}
	if len(rows) < 1 {
		return fmt.Errorf("decode scanned chunk: no header: %w", state.ErrVersion)
	}
	for _, r := range rows[1:] {
		if len(r) < 1 || r[0].IsNull() {
			return fmt.Errorf("decode scanned chunk: no time: %w", state.ErrVersion)
		}
		fn(r[0].I, r[1:])
	}
	return nil
}

// addDecoded appends a decoded row of side to bucket b, its key taken
// from the row.
func (j *Join) addDecoded(side int, b *scanBucket, t int64, r types.Row) {
	var kb []byte
	for _, c := range j.keyCols(side) {
		kb = state.AppendKey(kb, r[c])
	}
	b.add(kb, joinHashBytes(kb), r, t, &j.scratch)
}

// loadBucket reads spilled bucket b back: its chunks, then its rows in
// the spill area.
func (j *Join) loadBucket(side int, b *scanBucket) error {
	var derr error
	add := func(t int64, r types.Row) { j.addDecoded(side, b, t, r) }
	own := j.chunkKey(side, b.id, 0)
	own = own[:len(own)-4]
	err := j.store.Scan(own, func(_, val []byte) error { return decodeChunk(val, add) })
	if err != nil {
		return fmt.Errorf("%s: load bucket: %w", j.id, err)
	}
	if b.spillRows > 0 {
		sk := j.bucketSpillKey(side, b.id)
		val, err := j.spill.get(sk)
		if err != nil {
			return err
		}
		if derr = decodeChunk(val, add); derr != nil {
			return fmt.Errorf("%s: load bucket: %w", j.id, derr)
		}
		j.spill.forget(sk)
	}
	if len(b.rows) != b.written+b.spillRows {
		return fmt.Errorf("%s: load bucket: %d rows, want %d: %w", j.id, len(b.rows), b.written+b.spillRows, state.ErrVersion)
	}
	b.spilled, b.spillRows = false, 0
	j.resident[side] += len(b.rows)
	return nil
}

// evictBuckets spills whole buckets of the scanned side, newest first,
// until it holds at most target rows: the rows no checkpoint holds go to
// the spill area in one batch.
func (j *Join) evictBuckets(side, target int) error {
	var keys []string
	var vals [][]byte
	var victims []*scanBucket
	for i := len(j.scan.buckets) - 1; i >= 0 && j.resident[side] > target; i-- {
		b := j.scan.buckets[i]
		if b.spilled {
			continue
		}
		if b.written < len(b.rows) {
			keys = append(keys, j.bucketSpillKey(side, b.id))
			vals = append(vals, j.chunkValue(b, b.written))
		}
		victims = append(victims, b)
		j.resident[side] -= len(b.rows)
	}
	if err := j.spill.write(keys, vals); err != nil {
		return err
	}
	for _, b := range victims {
		b.spillRows = len(b.rows) - b.written
		b.buf, b.keys, b.rows, b.spilled = nil, nil, nil, true
	}
	return nil
}

// restoreScan reads the scanned side's chunks (and the rows of a
// checkpoint that indexed this side) into buckets.
func (j *Join) restoreScan(s *state.Store) error {
	side := j.scanned
	type pending struct {
		t int64
		r types.Row
	}
	var adopted []pending
	prefix := []byte(j.id + "s" + string(rune('0'+side)))
	err := s.Scan(prefix, func(key, val []byte) error {
		rest := key[len(prefix):]
		if len(rest) != 16 {
			return errCorrupt(j.id)
		}
		id := int64(binary.BigEndian.Uint64(rest) ^ (1 << 63))
		n, i := int(binary.BigEndian.Uint16(rest[8:])), int(binary.BigEndian.Uint16(rest[10:]))
		seq := int(binary.BigEndian.Uint32(rest[12:]))
		switch {
		case n == j.scan.instances && i != j.scan.instance:
			return nil // a sibling's
		case n == j.scan.instances:
			b := j.scan.bucket(id)
			err := decodeChunk(val, func(t int64, r types.Row) { j.addDecoded(side, b, t, r) })
			b.written, b.chunks = len(b.rows), max(b.chunks, seq+1)
			return err
		}
		// written at another parallelism: take this instance's rows
		j.scan.gone = append(j.scan.gone, append([]byte(nil), key...))
		return decodeChunk(val, func(t int64, r types.Row) {
			if j.ownsRow(side, r) {
				adopted = append(adopted, pending{t, r})
			}
		})
	})
	if err != nil {
		return fmt.Errorf("%s: restore: %w", j.id, err)
	}
	for _, p := range adopted {
		j.addDecoded(side, j.scan.bucket(floorDiv(p.t, j.scan.width)), p.t, p.r)
	}
	if err := j.restoreIndexedScan(s); err != nil {
		return err
	}
	for _, b := range j.scan.buckets {
		j.resident[side] += len(b.rows)
	}
	return nil
}

// restoreIndexedScan reads the scanned side's rows a checkpoint stored
// by key (a build that indexed this side) into buckets; the next
// checkpoint writes them as chunks and deletes the keys and their
// timers.
func (j *Join) restoreIndexedScan(s *state.Store) error {
	side := j.scanned
	own := func(key []byte) (bool, error) { return j.ownsKey(side, string(key[len(j.id)+1:])) }
	return s.ScanOwned([]byte(j.id+string(rune('0'+side))), own, func(key, val []byte) error {
		jk, err := j.decodeKey(side, val, false)
		if err != nil {
			return err
		}
		for i := range jk.rows.len() {
			r, err := jk.rows.row(i)
			if err != nil {
				return fmt.Errorf("%s: %w", j.id, err)
			}
			t := jk.rows.time(i)
			j.addDecoded(side, j.scan.bucket(floorDiv(t, j.scan.width)), t, r)
		}
		j.gone[side][string(key[len(j.id)+1:])] = jk.indexed
		return nil
	})
}

// ownsRow reports whether this instance keeps row r of side, by its key.
func (j *Join) ownsRow(side int, r types.Row) bool {
	if j.keep == nil {
		return true
	}
	kr := make(types.Row, 0, len(j.keyCols(side)))
	for _, c := range j.keyCols(side) {
		kr = append(kr, r[c])
	}
	return j.keep(side, kr)
}

// scanRows is the rows of the scanned side, in memory or not.
func (j *Join) scanRows() int64 {
	var n int64
	for _, b := range j.scan.buckets {
		n += int64(len(b.rows) + b.spillRows)
		if b.spilled {
			n += int64(b.written)
		}
	}
	return n
}

// sampleBuckets adds the scanned side's buckets in memory to s.
func (j *Join) sampleBuckets(s *sampler) {
	for i := len(j.scan.buckets) - 1; i >= 0 && !s.full(); i-- {
		b := j.scan.buckets[i]
		if b.spilled || len(b.rows) == 0 {
			continue
		}
		s.n += int64(len(b.rows)) - 1
		s.add(int(b.bytes()))
	}
}
