package exec

import (
	"encoding/binary"
	"errors"
	"sort"
)

// intSet is a set of int64s kept sorted in blocks of delta-coded bytes,
// for the BIGINT values of a DISTINCT set (distinctAcc). A Go map takes
// 10–20 bytes a value with its slack (more while it doubles) and a large
// one is rehashed as it grows; here a value costs the uvarint of its gap
// to the one before it, one or two bytes for ids that are dense or
// recent, plus a header of intBlockBytes per block of up to maxBlockBytes.
// Nexmark q16's 10,004 groups of eight sets hold 23 M ids at 10 M events:
// as maps they overflow the default memory budget several times over, as
// blocks they fit.
//
// A block holds its first and last values and, in buf, the gap from each
// value to the next as a uvarint (positive: the values are distinct and
// sorted). Blocks are sorted and disjoint. A lookup finds the block by a
// binary search on the first values and decodes at most maxBlockBytes; a
// value past the last of the set (an id newer than the set's, the common
// case) is appended without decoding; one inside a block replaces one gap
// by two. A block past maxBlockBytes splits in two.
type intSet struct {
	blocks []intBlock
	n      int
}

type intBlock struct {
	first, last int64
	buf         []byte
}

// maxBlockBytes bounds a block's gaps, so a lookup decodes at most this.
const maxBlockBytes = 256

// intBlockBytes is a block's header in the blocks slice.
const intBlockBytes = 40

func (s *intSet) len() int { return s.n }

// find returns the index of the block that holds v if any does: the last
// one whose first value is at most v (-1: v is below every block).
func (s *intSet) find(v int64) int {
	b := s.blocks
	if len(b) == 0 || v < b[0].first {
		return -1
	}
	if v >= b[len(b)-1].first { // the newest block: appends land here
		return len(b) - 1
	}
	return sort.Search(len(b), func(i int) bool { return b[i].first > v }) - 1
}

// has reports whether v is in the set.
func (s *intSet) has(v int64) bool {
	i := s.find(v)
	if i < 0 {
		return false
	}
	b := &s.blocks[i]
	switch {
	case v == b.first || v == b.last:
		return true
	case v > b.last:
		return false
	}
	_, _, found := b.seek(v)
	return found
}

// seek scans b for v (first < v < last): the offset of the gap that
// reaches the first value at or past v, the value before that gap, and
// whether the value it reaches is v.
func (b *intBlock) seek(v int64) (off int, prev int64, found bool) {
	prev = b.first
	for off < len(b.buf) {
		d, k := binary.Uvarint(b.buf[off:])
		next := int64(uint64(prev) + d)
		if next >= v {
			return off, prev, next == v
		}
		prev = next
		off += k
	}
	return off, prev, false // not reached while v < last
}

// add inserts v and reports whether it was new.
func (s *intSet) add(v int64) bool {
	var gaps [2 * binary.MaxVarintLen64]byte
	i := s.find(v)
	switch {
	case len(s.blocks) == 0:
		s.blocks = append(s.blocks, intBlock{first: v, last: v})
		i = 0
	case i < 0: // below every value: the first block's new first
		b := &s.blocks[0]
		k := binary.PutUvarint(gaps[:], uint64(b.first)-uint64(v))
		b.buf = spliceBytes(b.buf, 0, 0, gaps[:k])
		b.first = v
		i = 0
	default:
		b := &s.blocks[i]
		switch {
		case v == b.first || v == b.last:
			return false
		case v > b.last:
			b.buf = appendGap(b.buf, uint64(v)-uint64(b.last))
			b.last = v
		default:
			off, prev, found := b.seek(v)
			if found {
				return false
			}
			// the gap at off spans prev → next; it becomes prev → v → next
			d, k := binary.Uvarint(b.buf[off:])
			next := int64(uint64(prev) + d)
			n := binary.PutUvarint(gaps[:], uint64(v)-uint64(prev))
			n += binary.PutUvarint(gaps[n:], uint64(next)-uint64(v))
			b.buf = spliceBytes(b.buf, off, off+k, gaps[:n])
		}
	}
	s.n++
	if len(s.blocks[i].buf) > maxBlockBytes {
		s.split(i)
	}
	return true
}

// appendGap appends gap d to buf, growing it by a quarter rather than
// append's doubling: a set's blocks are most of its memory, and all but
// the newest stop growing.
func appendGap(buf []byte, d uint64) []byte {
	if cap(buf)-len(buf) < binary.MaxVarintLen64 {
		grown := make([]byte, len(buf), len(buf)+len(buf)/4+16)
		copy(grown, buf)
		buf = grown
	}
	return binary.AppendUvarint(buf, d)
}

// spliceBytes replaces buf[from:to] by with, in place when it has room.
func spliceBytes(buf []byte, from, to int, with []byte) []byte {
	n := len(buf) - (to - from) + len(with)
	if n > cap(buf) {
		grown := make([]byte, len(buf), n+n/4+16)
		copy(grown, buf)
		buf = grown
	}
	tail := len(buf) - to
	buf = buf[:n]
	copy(buf[from+len(with):], buf[to:to+tail])
	copy(buf[from:], with)
	return buf
}

// split cuts block i in two at the gap nearest its middle.
func (s *intSet) split(i int) {
	b := &s.blocks[i]
	off, prev := 0, b.first
	var d uint64
	var k int
	for off < len(b.buf)/2 {
		d, k = binary.Uvarint(b.buf[off:])
		prev = int64(uint64(prev) + d)
		off += k
	}
	// prev, which the gaps up to off reach, opens the second block; the
	// first ends at the value before it, reached by the last gap read
	second := intBlock{first: prev, last: b.last, buf: append([]byte(nil), b.buf[off:]...)}
	first := intBlock{first: b.first, last: int64(uint64(prev) - d), buf: append(make([]byte, 0, off-k+16), b.buf[:off-k]...)}
	s.blocks[i] = first
	s.blocks = append(s.blocks, intBlock{})
	copy(s.blocks[i+2:], s.blocks[i+1:])
	s.blocks[i+1] = second
}

// each calls fn with every value in ascending order.
func (s *intSet) each(fn func(int64)) {
	for i := range s.blocks {
		b := &s.blocks[i]
		v := b.first
		fn(v)
		for off := 0; off < len(b.buf); {
			d, k := binary.Uvarint(b.buf[off:])
			v = int64(uint64(v) + d)
			fn(v)
			off += k
		}
	}
}

// bytes is the set's memory: the block headers and their buffers.
func (s *intSet) bytes() int64 {
	n := intBlockBytes * int64(cap(s.blocks))
	for i := range s.blocks {
		n += allocBytes(int64(cap(s.blocks[i].buf)))
	}
	return n
}

// appendBlocks appends the set in its block form: the count and the
// number of blocks (uvarints), then per block its first and last values
// (8 bytes each, big-endian) and its gaps (a uvarint length and the
// bytes). loadBlocks reads it back by copying, without decoding a value.
func (s *intSet) appendBlocks(dst []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(s.n))
	dst = binary.AppendUvarint(dst, uint64(len(s.blocks)))
	for i := range s.blocks {
		b := &s.blocks[i]
		dst = binary.BigEndian.AppendUint64(dst, uint64(b.first))
		dst = binary.BigEndian.AppendUint64(dst, uint64(b.last))
		dst = binary.AppendUvarint(dst, uint64(len(b.buf)))
		dst = append(dst, b.buf...)
	}
	return dst
}

// loadBlocks adds the values of appendBlocks' form src. An empty set
// takes the blocks as they are, their gaps in one copy of src (each
// block's slice full, so the first growth of one moves it out); a set
// holding values already adds them one by one. It checks the form as it
// goes: corrupt bytes are an error, never a wrong set.
func (s *intSet) loadBlocks(src string) error {
	b := []byte(src)
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return errIntSetForm
	}
	b = b[k:]
	nb, k := binary.Uvarint(b)
	if k <= 0 || nb > uint64(len(b))/17 {
		return errIntSetForm
	}
	b = b[k:]
	blocks := make([]intBlock, 0, nb)
	var count uint64
	for range nb {
		if len(b) < 16 {
			return errIntSetForm
		}
		blk := intBlock{first: int64(binary.BigEndian.Uint64(b)), last: int64(binary.BigEndian.Uint64(b[8:]))}
		l, k := binary.Uvarint(b[16:])
		if k <= 0 || l > uint64(len(b)-16-k) {
			return errIntSetForm
		}
		b = b[16+k:]
		blk.buf, b = b[:l:l], b[l:]
		// the gaps must reach last from first, each positive, and the
		// blocks must be sorted and disjoint
		v := blk.first
		for off := 0; off < len(blk.buf); {
			d, k := binary.Uvarint(blk.buf[off:])
			if k <= 0 || int64(uint64(v)+d) <= v { // zero, or past MaxInt64
				return errIntSetForm
			}
			v = int64(uint64(v) + d)
			off += k
			count++
		}
		count++
		if v != blk.last || (len(blocks) > 0 && blocks[len(blocks)-1].last >= blk.first) {
			return errIntSetForm
		}
		blocks = append(blocks, blk)
	}
	if len(b) != 0 || count != n {
		return errIntSetForm
	}
	if s.n == 0 {
		s.blocks, s.n = blocks, int(n)
		return nil
	}
	loaded := intSet{blocks: blocks, n: int(n)}
	loaded.each(func(v int64) { s.add(v) })
	return nil
}

var errIntSetForm = errors.New("corrupt BIGINT set")
