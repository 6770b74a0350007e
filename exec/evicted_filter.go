package exec

// evictedFilter is a Bloom filter over the hashes of the keys an
// operator moved out of memory: a key it does not hold was never
// evicted, so a lookup of a key memory lacks can skip reading Badger
// for it (new keys are most keys at first sight: a deduplication's new
// (bidder, auction) pair, a view's newly inserted row). A false
// positive costs the read it would have done anyway; keys are never
// taken out (a dropped key just reads nothing).
//
// It grows as a series of filters, each twice the keys of the one
// before at evictedBitsPerKey bits a key (a power of two of bits, for a
// mask), so it needs no size up front: 2 bytes per distinct evicted key
// and about 0.06% false positives per full filter (some 0.5% over the
// dozen filters of millions of keys).
type evictedFilter struct {
	parts []bloomPart
}

// bloomPart is one filter of an evictedFilter: bits (a power of two of
// them), and the keys it took (n) of the keys it is sized for (cap).
type bloomPart struct {
	bits   []uint64
	n, cap int
}

const (
	evictedBitsPerKey = 16
	evictedProbes     = 8
	evictedFirstKeys  = 1 << 13
)

// add records key hash h.
func (f *evictedFilter) add(h uint64) {
	if f.has(h) {
		return
	}
	if len(f.parts) == 0 || f.parts[len(f.parts)-1].n >= f.parts[len(f.parts)-1].cap {
		c := evictedFirstKeys
		if len(f.parts) > 0 {
			c = f.parts[len(f.parts)-1].cap * 2
		}
		f.parts = append(f.parts, bloomPart{bits: make([]uint64, c*evictedBitsPerKey/64), cap: c})
	}
	p := &f.parts[len(f.parts)-1]
	mask := uint64(len(p.bits)*64 - 1)
	a, b := h, h>>32|h<<32|1
	for i := range uint64(evictedProbes) {
		bit := (a + i*b) & mask
		p.bits[bit>>6] |= 1 << (bit & 63)
	}
	p.n++
}

// has reports whether h may have been added: false means it was not.
func (f *evictedFilter) has(h uint64) bool {
	a, b := h, h>>32|h<<32|1
	for i := range f.parts {
		p := &f.parts[i]
		mask := uint64(len(p.bits)*64 - 1)
		all := true
		for j := range uint64(evictedProbes) {
			bit := (a + j*b) & mask
			if p.bits[bit>>6]&(1<<(bit&63)) == 0 {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// bytes is the filter's memory.
func (f *evictedFilter) bytes() int64 {
	n := int64(0)
	for _, p := range f.parts {
		n += int64(len(p.bits)) * 8
	}
	return n
}
