package exec

import (
	"bytes"
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
// after a header (encodeRows) instead of encoding every row again. The
// first row's span is kept inline: most keys of a nearly unique join key
// (q7's price) hold one row, which then costs no span slice, so neither
// its allocation nor a cache miss when a probe or purge reads its time.
type joinRows struct {
	buf   []byte
	first rowSpan   // row 0, when there are rows (buf is not empty)
	rest  []rowSpan // rows 1…
}

// rowSpan is one encoded row's time and the end of its encoding in buf.
type rowSpan struct {
	time int64
	end  int
}

// len returns the number of rows (an encoded row is never empty).
func (rs *joinRows) len() int {
	if len(rs.buf) == 0 {
		return 0
	}
	return 1 + len(rs.rest)
}

// span returns row i's span.
func (rs *joinRows) span(i int) rowSpan {
	if i == 0 {
		return rs.first
	}
	return rs.rest[i-1]
}

// setSpan sets row i's span; i is at most len.
func (rs *joinRows) setSpan(i int, m rowSpan) {
	switch {
	case i == 0:
		rs.first = m
	case i-1 < len(rs.rest):
		rs.rest[i-1] = m
	default:
		rs.rest = append(rs.rest, m)
	}
}

// time returns row i's time.
func (rs *joinRows) time(i int) int64 { return rs.span(i).time }

// start returns where row i's encoding starts in buf.
func (rs *joinRows) start(i int) int {
	if i == 0 {
		return 0
	}
	return rs.span(i - 1).end
}

// add appends row r with time t, encoding it in scratch (when given) so
// that buf grows once per row rather than once per value.
func (rs *joinRows) add(t int64, r types.Row, scratch *[]byte) { rs.addFlagged(t, r, nil, scratch) }

// addFlagged is add with a matched flag (join_outer.go) after the row's
// columns when flag is set.
func (rs *joinRows) addFlagged(t int64, r types.Row, flag *bool, scratch *[]byte) {
	var enc []byte
	if scratch != nil {
		enc = (*scratch)[:0]
	}
	n := len(r) + 1
	if flag != nil {
		n++
	}
	enc = state.AppendRowPrefix(enc, n, types.IntValue(t))
	for _, v := range r {
		enc = types.AppendCodec(enc, v)
	}
	if flag != nil {
		enc = types.AppendCodec(enc, types.BoolValue(*flag))
	}
	i := rs.len()
	rs.buf = append(rs.buf, enc...)
	if scratch != nil {
		*scratch = enc
	}
	rs.setSpan(i, rowSpan{time: t, end: len(rs.buf)})
}

// matched reports whether row i, stored with a matched flag, matched.
func (rs *joinRows) matched(i int) bool {
	return rs.buf[rs.span(i).end-1] == matchedFlag[len(matchedFlag)-1]
}

// setMatched sets row i's matched flag, in place.
func (rs *joinRows) setMatched(i int) { rs.buf[rs.span(i).end-1] = matchedFlag[len(matchedFlag)-1] }

// setUnmatched clears row i's matched flag, in place (its last match
// left: join_retract.go).
func (rs *joinRows) setUnmatched(i int) {
	rs.buf[rs.span(i).end-1] = unmatchedFlag[len(unmatchedFlag)-1]
}

// row decodes row i (without its time).
func (rs *joinRows) row(i int) (types.Row, error) {
	r, _, err := state.DecodeRow(rs.buf[rs.start(i):rs.span(i).end])
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
	w, prev, n, total := 0, 0, 0, rs.len()
	for i := range total {
		m := rs.span(i)
		s := prev
		prev = m.end
		if !keep(i) {
			continue
		}
		if w != s {
			copy(rs.buf[w:], rs.buf[s:m.end])
		}
		w += m.end - s
		rs.setSpan(n, rowSpan{time: m.time, end: w})
		n++
	}
	rs.buf = rs.buf[:w]
	if n > 0 {
		rs.rest = rs.rest[:n-1]
	} else {
		rs.first, rs.rest = rowSpan{}, rs.rest[:0]
	}
	return total - n
}

// bytes is the memory the rows take.
func (rs *joinRows) bytes() int64 {
	return int64(cap(rs.buf)) + int64(cap(rs.rest))*int64(16)
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
	if len(enc) > 2 {
		rs.rest = make([]rowSpan, 0, len(enc)-2)
	}
	for _, r := range enc[1:] {
		if len(r) < 1 {
			return nil, joinRows{}, fmt.Errorf("decode join rows: no time: %w", state.ErrVersion)
		}
		rs.add(r[0].I, r[1:], nil)
	}
	return enc[0], rs, nil
}

// probedRows is how many decoded rows a join keeps per side for its
// probes (probeRow), in slots chosen by the key's hash.
const probedRows = 16

// probedRow is a stored row a probe decoded, with a copy of its
// encoding.
type probedRow struct {
	enc []byte
	row types.Row
}

// probeRow is rowAt for a probe of key jk, whose caller only reads the
// row (pair copies it): when row i encodes to the bytes of the row last
// decoded in the key's slot, that decoded row is returned again, shared.
// Half of Nexmark's bids go to the hot auction, and decoding its row
// (its strings allocated anew) for each was a sixth of q9's CPU. A row
// with a matched flag (an outer join's preserved side) is decoded as
// rowAt does.
func (j *Join) probeRow(side int, jk *joinKey, i int) (types.Row, error) {
	rs := &jk.rows
	if j.flags(side) {
		return j.rowAt(side, rs, i)
	}
	enc := rs.buf[rs.start(i):rs.span(i).end]
	c := &j.probed[side][jk.hash%probedRows]
	if c.row != nil && bytes.Equal(enc, c.enc) {
		return c.row, nil
	}
	r, err := j.rowAt(side, rs, i)
	if err != nil {
		return nil, err
	}
	c.enc, c.row = append(c.enc[:0], enc...), r
	return r, nil
}
