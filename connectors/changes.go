package connectors

import (
	"encoding/binary"
	"errors"
	"fmt"

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
// key is hashed once, where collapsing a growing buffer again and again
// hashes it at every pass. The zero value with Key unset keeps every
// change.
type Collapser struct {
	Key []int
	idx map[string]int
	out []Change
	kb  []byte
}

// Add appends changes, replacing the earlier change of a key already held
// (in that key's first position, as Collapse does).
func (c *Collapser) Add(changes []Change) {
	if len(c.Key) == 0 {
		c.out = append(c.out, changes...)
		return
	}
	if c.idx == nil {
		c.idx = make(map[string]int, len(changes))
	}
	for _, ch := range changes {
		c.kb = appendRowKey(c.kb[:0], ch.Row, c.Key)
		if i, ok := c.idx[string(c.kb)]; ok {
			c.out[i] = ch
			continue
		}
		c.idx[string(c.kb)] = len(c.out)
		c.out = append(c.out, ch)
	}
}

// Len is the number of changes held (one per key).
func (c *Collapser) Len() int { return len(c.out) }

// Changes returns the changes held, collapsed per key; they stay held.
func (c *Collapser) Changes() []Change { return c.out }

// Reset forgets every change held.
func (c *Collapser) Reset() { c.idx, c.out = nil, nil }
