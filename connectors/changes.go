package connectors

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/streamsql/streamsql/types"
)

// changesVersion is the layout version EncodeChanges writes. Version 2
// added DECIMAL and DATE values, version 3 intervals with months or days
// (types.CodecIntervalParts), version 4 JSONB (its canonical text, as a
// string), version 5 TIMESTAMPTZ and TIME (varints), version 6 BYTEA
// (its bytes, as a string) and arrays (types.AppendArrayCodec);
// DecodeChanges still reads the older versions (staged by an older
// build), which hold only the older kinds.
const changesVersion = 6

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
			if types.HasIntervalParts(v) {
				b = append(b, types.CodecIntervalParts)
				b = types.AppendIntervalParts(b, v)
				continue
			}
			if v.K.IsArray() {
				b = types.AppendArrayCodec(append(b, byte(types.Array)), v)
				continue
			}
			b = append(b, byte(v.K))
			switch v.K {
			case types.Null:
			case types.Float:
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.F))
			case types.String, types.JSONB, types.Bytea:
				b = binary.AppendUvarint(b, uint64(len(v.S)))
				b = append(b, v.S...)
			case types.Decimal:
				b = types.AppendDecimalBytes(b, v)
			default:
				b = binary.AppendVarint(b, v.I)
			}
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
	if version < 1 || version > changesVersion {
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
			if len(b) < 1 {
				return nil, errBadChanges
			}
			kind := types.Kind(b[0])
			b = b[1:]
			if byte(kind) == types.CodecIntervalParts && version >= 3 {
				v, rest, err := types.DecodeIntervalParts(b)
				if err != nil {
					return nil, errBadChanges
				}
				row[j], b = v, rest
				continue
			}
			switch kind {
			case types.Array:
				if version < 6 {
					return nil, errBadChanges
				}
				v, rest, err := types.DecodeArrayCodec(b)
				if err != nil {
					return nil, errBadChanges
				}
				row[j], b = v, rest
			case types.Null:
			case types.Float:
				if len(b) < 8 {
					return nil, errBadChanges
				}
				row[j] = types.FloatValue(math.Float64frombits(binary.LittleEndian.Uint64(b)))
				b = b[8:]
			case types.String, types.JSONB, types.Bytea:
				if (version < 4 && kind == types.JSONB) || (version < 6 && kind == types.Bytea) {
					return nil, errBadChanges
				}
				l, k := binary.Uvarint(b)
				if k <= 0 || l > uint64(len(b)-k) {
					return nil, errBadChanges
				}
				row[j] = types.Value{K: kind, S: string(b[k : k+int(l)])}
				b = b[k+int(l):]
			case types.Decimal:
				if version == 1 {
					return nil, errBadChanges
				}
				v, rest, err := types.DecodeDecimalBytes(b)
				if err != nil {
					return nil, errBadChanges
				}
				row[j], b = v, rest
			case types.Bool, types.Int, types.Timestamp, types.Interval, types.Date, types.TimestampTZ, types.Time:
				if (version == 1 && kind == types.Date) || (version < 5 && (kind == types.TimestampTZ || kind == types.Time)) {
					return nil, errBadChanges
				}
				v, k := binary.Varint(b)
				if k <= 0 {
					return nil, errBadChanges
				}
				row[j] = types.Value{K: kind, I: v}
				b = b[k:]
			default:
				return nil, errBadChanges
			}
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
		b = appendKey(b, row[k])
	}
	return b
}

func appendKey(b []byte, v types.Value) []byte {
	if types.HasIntervalParts(v) {
		return types.AppendIntervalParts(append(b, types.CodecIntervalParts), v)
	}
	if v.K.IsArray() { // equal arrays of other spellings are one key
		return types.AppendArrayCodec(append(b, byte(types.Array)), types.ArrayKeyForm(v))
	}
	b = append(b, byte(v.K))
	switch v.K {
	case types.Decimal: // equal numbers of any scale are one key
		return types.AppendDecimalBytes(b, types.DecimalNormalize(v))
	case types.Float:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.F))
	case types.String, types.Bytea:
		b = binary.AppendUvarint(b, uint64(len(v.S)))
		return append(b, v.S...)
	case types.JSONB: // equal jsonb values of other spellings are one key
		s := types.JSONBKeyForm(v).S
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	return binary.AppendVarint(b, v.I)
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
