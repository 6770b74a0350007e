package exec

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// joinRows is the rows one join key holds on one side, pointer-free: the
// rows' encodings back to back in buf, each the state codec's encoding of
// (time, row...) as a checkpointed value lists it, and per row its time
// and where its encoding ends. Nothing in it points anywhere, so the
// garbage collector does not scan buffered rows; a probe reads the times
// and decodes only the rows whose time matches; a checkpoint copies buf
// after a header (encodeRows) instead of encoding every row again.
type joinRows struct {
	buf  []byte
	meta []rowSpan
}

// rowSpan is one encoded row's time and the end of its encoding in buf.
type rowSpan struct {
	time int64
	end  int
}

// len returns the number of rows.
func (rs *joinRows) len() int { return len(rs.meta) }

// time returns row i's time.
func (rs *joinRows) time(i int) int64 { return rs.meta[i].time }

// start returns where row i's encoding starts in buf.
func (rs *joinRows) start(i int) int {
	if i == 0 {
		return 0
	}
	return rs.meta[i-1].end
}

// add appends row r with time t, encoding it in scratch (when given) so
// that buf grows once per row rather than once per value.
func (rs *joinRows) add(t int64, r types.Row, scratch *[]byte) {
	var enc []byte
	if scratch != nil {
		enc = (*scratch)[:0]
	}
	enc = state.AppendRowPrefix(enc, len(r)+1, types.IntValue(t))
	for _, v := range r {
		enc = types.AppendCodec(enc, v)
	}
	rs.buf = append(rs.buf, enc...)
	if scratch != nil {
		*scratch = enc
	}
	rs.meta = append(rs.meta, rowSpan{time: t, end: len(rs.buf)})
}

// row decodes row i (without its time).
func (rs *joinRows) row(i int) (types.Row, error) {
	r, _, err := state.DecodeRow(rs.buf[rs.start(i):rs.meta[i].end])
	if err != nil {
		return nil, fmt.Errorf("decode join row: %w", err)
	}
	if len(r) < 1 {
		return nil, fmt.Errorf("decode join row: no time: %w", state.ErrVersion)
	}
	return r[1:], nil
}

// filter keeps the rows keep accepts, in order, compacting buf in place,
// and returns how many it dropped.
func (rs *joinRows) filter(keep func(i int) bool) int {
	w, prev, n := 0, 0, 0
	for i, m := range rs.meta {
		s := prev
		prev = m.end
		if !keep(i) {
			continue
		}
		if w != s {
			copy(rs.buf[w:], rs.buf[s:m.end])
		}
		w += m.end - s
		rs.meta[n] = rowSpan{time: m.time, end: w}
		n++
	}
	dropped := len(rs.meta) - n
	rs.buf, rs.meta = rs.buf[:w], rs.meta[:n]
	return dropped
}

// bytes is the memory the rows take.
func (rs *joinRows) bytes() int64 {
	return int64(cap(rs.buf)) + int64(cap(rs.meta))*int64(16)
}

// encodeRows is the state value of rows after a header row (state.
// EncodeValue(header, (time, row...)...) byte for byte), copying their
// encodings.
func encodeRows(header types.Row, rs *joinRows) []byte {
	hdr := state.AppendRow(nil, header)
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(hdr)+len(rs.buf))
	b = append(b, state.Version)
	b = binary.AppendUvarint(b, uint64(rs.len()+1))
	b = append(b, hdr...)
	return append(b, rs.buf...)
}

// decodeRows reads the rows of a state value EncodeValue wrote as
// (time, row...) after a header: the header, and the rows encoded again in
// this build's layout (a value of an older layout decodes differently).
func decodeRows(val []byte) (types.Row, joinRows, error) {
	enc, err := state.DecodeValue(val)
	if err != nil {
		return nil, joinRows{}, err
	}
	if len(enc) < 1 {
		return nil, joinRows{}, fmt.Errorf("decode join rows: no header: %w", state.ErrVersion)
	}
	var rs joinRows
	rs.meta = make([]rowSpan, 0, len(enc)-1)
	for _, r := range enc[1:] {
		if len(r) < 1 {
			return nil, joinRows{}, fmt.Errorf("decode join rows: no time: %w", state.ErrVersion)
		}
		rs.add(r[0].I, r[1:], nil)
	}
	return enc[0], rs, nil
}
