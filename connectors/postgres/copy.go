package postgres

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// copyHeader opens a COPY ... (FORMAT binary) stream: the signature, no
// flags, no header extension.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// copyReader streams changes' rows as COPY binary tuples, encoding a few
// hundred rows at a time into one reused buffer, so a COPY of a million
// rows holds no second copy of them.
type copyReader struct {
	schema  types.Schema
	kinds   []types.Kind // each column's kind on the wire (see copyKinds)
	changes []connectors.Change
	buf     []byte
	off     int
	started bool
	done    bool
	err     error // why encoding stopped (permanent), for the caller
}

// newCopyReader returns a reader of changes' rows (every column of
// schema) in COPY binary format.
func newCopyReader(schema types.Schema, changes []connectors.Change) *copyReader {
	return &copyReader{schema: schema, kinds: copyKinds(schema), changes: changes, buf: make([]byte, 0, 64<<10)}
}

// copyKinds is the kind each column is encoded as: its own where Postgres
// has a binary form for it (arrayOIDs), else text. Decided once per COPY,
// not per value: the lookup was half of the encoding's CPU.
func copyKinds(schema types.Schema) []types.Kind {
	kinds := make([]types.Kind, len(schema))
	for c, col := range schema {
		kind := col.Type
		if _, ok := arrayOIDs[kind]; !ok && !(kind.IsArray() && arrayOIDs[kind.Elem()] != [2]uint32{}) {
			kind = types.String
		}
		kinds[c] = kind
	}
	return kinds
}

// Read fills p from the encoded rows, encoding more when the buffer is
// drained.
func (r *copyReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.done {
			return 0, io.EOF
		}
		if err := r.fill(); err != nil {
			r.err = permanent(err)
			return 0, r.err
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// fill encodes the next rows (about 64 KiB), or the trailer after the
// last one.
func (r *copyReader) fill() error {
	r.buf, r.off = r.buf[:0], 0
	if !r.started {
		r.buf, r.started = append(r.buf, copyHeader...), true
	}
	for len(r.changes) > 0 && len(r.buf) < cap(r.buf)-1024 {
		var err error
		if r.buf, err = appendTuple(r.buf, r.schema, r.kinds, r.changes[0].Row); err != nil {
			return err
		}
		r.changes = r.changes[1:]
	}
	if len(r.changes) == 0 {
		r.buf, r.done = binary.BigEndian.AppendUint16(r.buf, 0xffff), true
	}
	return nil
}

// appendTuple appends one row as a COPY binary tuple: the field count,
// then each field as appendElem writes an array element (the formats
// agree) of kinds[c] (copyKinds), -1 for NULL.
func appendTuple(b []byte, schema types.Schema, kinds []types.Kind, row types.Row) ([]byte, error) {
	b = binary.BigEndian.AppendUint16(b, uint16(len(schema)))
	for c, col := range schema {
		v := at(row, c)
		if v.K == types.Null {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		var err error
		if b, err = appendElem(b, kinds[c], v); err != nil {
			return b, fmt.Errorf("column %s is %s but a change carries a %s value (%s)", col.Name, col.Type, v.K, v)
		}
	}
	return b, nil
}
