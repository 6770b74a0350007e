package connectors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"

	"github.com/streamsql/streamsql/types"
)

// changesVersion is the layout version EncodeChanges writes: the value
// codec's (types.CodecVersion, whose comment has the history).
// DecodeChanges still reads the older versions (staged by an older
// build), which hold only the older kinds.
const changesVersion = types.CodecVersion

// EncodeChanges serialises changes for a sink's staged bytes (see
// Recoverer). The layout starts with a version byte.
func EncodeChanges(changes []Change) []byte {
	b := make([]byte, 0, 64+len(changes)*32)
	b = append(b, changesVersion)
	b = binary.AppendUvarint(b, uint64(len(changes)))
	for _, c := range changes {
		b = append(b, byte(c.Op))
		b = binary.AppendUvarint(b, uint64(len(c.Row)))
		for _, v := range c.Row {
			b = types.AppendCodec(b, v)
		}
	}
	return b
}

var errBadChanges = errors.New("staged changes: corrupt encoding")

// DecodeChanges reverses EncodeChanges.
func DecodeChanges(b []byte) ([]Change, error) {
	if len(b) == 0 {
		return nil, nil
	}
	version := b[0]
	if version < types.OldestCodecVersion || version > changesVersion {
		return nil, errBadChanges
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errBadChanges
	}
	b = b[k:]
	out := make([]Change, 0, n)
	for i := uint64(0); i < n; i++ {
		if len(b) < 1 {
			return nil, errBadChanges
		}
		op := Op(b[0])
		cols, k := binary.Uvarint(b[1:])
		if k <= 0 || cols > uint64(len(b)) {
			return nil, errBadChanges
		}
		b = b[1+k:]
		row := make(types.Row, cols)
		for j := range row {
			v, rest, err := types.DecodeCodec(b, version)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", errBadChanges, err)
			}
			row[j], b = v, rest
		}
		out = append(out, Change{Op: op, Row: row})
	}
	return out, nil
}

// Collapse keeps the last change per key (key column positions), in the
// order keys were first seen: what an upsert destination needs before one
// bulk statement, which may not touch a key twice. With no key every
// change is kept.
func Collapse(changes []Change, key []int) []Change {
	c := Collapser{Key: key}
	c.Add(changes)
	return c.Changes()
}

// Split deals collapsed changes into n parts by a hash of their key
// (key column positions), so every change to one key lands in the same
// part, in its original order; a sink writing through n connections
// gives each one part. The hash (FNV-1a over the key's encoding, mixed) is the
// same in every process. n <= 1 or no key returns one part.
func Split(changes []Change, key []int, n int) [][]Change {
	if n <= 1 || len(key) == 0 {
		return [][]Change{changes}
	}
	parts := make([][]Change, n)
	for i := range parts {
		parts[i] = make([]Change, 0, len(changes)/n+len(changes)/(4*n)+1)
	}
	var kb []byte
	for _, c := range changes {
		kb = appendRowKey(kb[:0], c.Row, key)
		h := uint64(14695981039346656037)
		for _, b := range kb {
			h = (h ^ uint64(b)) * 1099511628211
		}
		// FNV's low bits depend only on the bytes' low bits (a varint of
		// an even number has an even last byte): mix the high bits down.
		h ^= h >> 33
		h *= 0xff51afd7ed558ccd
		h ^= h >> 33
		parts[h%uint64(n)] = append(parts[h%uint64(n)], c)
	}
	return parts
}

// appendRowKey appends the encoding of row's key columns.
func appendRowKey(b []byte, row types.Row, key []int) []byte {
	for _, k := range key {
		b = types.AppendKeyCodec(b, row[k]) // equal values of other spellings are one key
	}
	return b
}

// Collapser is Collapse over changes that arrive in pieces: each change's
// key is encoded and hashed once, where collapsing a growing buffer again
// and again hashes it at every pass. It indexes the keys itself rather
// than in a map[string]int: an exactly-once sink collapses a whole
// checkpoint (a million keys and more), and there the map's per-key
// string, its hashing of that string on every growth and its rehashes
// were half of the sink's CPU (BenchmarkMillion); here a key costs its
// encoding in one shared buffer, its hash and a slot, and growing the
// table moves only slots. The zero value with Key unset keeps every
// change.
type Collapser struct {
	Key []int
	out []Change
	kb  []byte // scratch: the key being added

	// keys holds out[i]'s key encoding at keys[ends[i-1]:ends[i]], and
	// hashes[i] its hash; slots is an open-addressing table (linear
	// probing, a power of two long, at most half full) of indexes into
	// out plus one, 0 for an empty slot.
	keys   []byte
	ends   []int
	hashes []uint64
	slots  []uint32
	seed   maphash.Seed
}

// Add appends changes, replacing the earlier change of a key already held
// (in that key's first position, as Collapse does).
func (c *Collapser) Add(changes []Change) {
	if len(c.Key) == 0 {
		c.out = append(c.out, changes...)
		return
	}
	if c.slots == nil {
		c.seed = maphash.MakeSeed()
		c.slots = make([]uint32, 64)
	}
	for _, ch := range changes {
		c.kb = appendRowKey(c.kb[:0], ch.Row, c.Key)
		h := maphash.Bytes(c.seed, c.kb)
		j, found := c.find(h, c.kb)
		if found {
			c.out[c.slots[j]-1] = ch
			continue
		}
		c.out = append(c.out, ch)
		c.keys = append(c.keys, c.kb...)
		c.ends = append(c.ends, len(c.keys))
		c.hashes = append(c.hashes, h)
		c.slots[j] = uint32(len(c.out))
		if 2*len(c.out) > len(c.slots) {
			c.grow()
		}
	}
}

// find returns the slot holding key (hash h) and true, or the empty slot
// where it belongs and false.
func (c *Collapser) find(h uint64, key []byte) (int, bool) {
	mask := uint64(len(c.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		s := c.slots[j]
		if s == 0 {
			return int(j), false
		}
		if i := int(s - 1); c.hashes[i] == h && bytes.Equal(c.key(i), key) {
			return int(j), true
		}
	}
}

// key is out[i]'s key encoding.
func (c *Collapser) key(i int) []byte {
	start := 0
	if i > 0 {
		start = c.ends[i-1]
	}
	return c.keys[start:c.ends[i]]
}

// grow doubles the slot table and re-files every held key by its stored
// hash.
func (c *Collapser) grow() {
	c.slots = make([]uint32, 2*len(c.slots))
	mask := uint64(len(c.slots) - 1)
	for i, h := range c.hashes {
		j := h & mask
		for c.slots[j] != 0 {
			j = (j + 1) & mask
		}
		c.slots[j] = uint32(i + 1)
	}
}

// Len is the number of changes held (one per key).
func (c *Collapser) Len() int { return len(c.out) }

// Changes returns the changes held, collapsed per key; they stay held.
func (c *Collapser) Changes() []Change { return c.out }

// Reset forgets every change held. The slice Changes returned stays the
// caller's: the next changes go to a new one.
func (c *Collapser) Reset() {
	c.out, c.keys, c.ends, c.hashes, c.slots = nil, nil, nil, nil, nil
}
