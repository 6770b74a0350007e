package exec

import (
	"encoding/binary"
	"fmt"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// keyedPart is one partition of a TopN: its rows, sorted, kept encoded
// back to back (state.AppendRow) in one byte slice between batches, so
// the garbage collector does not scan them and the memory estimate is
// their encoded size. A batch that touches the partition decodes them
// into rows (open), works on those and encodes them again when it changed
// them (seal).
type keyedPart struct {
	enc    []byte
	n      int32 // rows in enc
	lastAt int32 // where the last row's encoding starts in enc
	// rows are the decoded rows while open.
	rows      []types.Row
	open      bool
	edited    bool // changed since it was opened
	dirty     bool // changed since the last checkpoint
	persisted bool // a checkpoint holds it
}

// len is the partition's row count.
func (p *keyedPart) len() int {
	if p.open {
		return len(p.rows)
	}
	return int(p.n)
}

// openRows decodes p's rows for a batch to work on.
func (p *keyedPart) openRows() error {
	if p.open {
		return nil
	}
	p.rows = make([]types.Row, 0, p.n+1)
	b := p.enc
	for range p.n {
		r, rest, err := state.DecodeRow(b)
		if err != nil {
			return fmt.Errorf("decode Top-N partition: %w", err)
		}
		p.rows, b = append(p.rows, r), rest
	}
	p.open, p.edited = true, false
	return nil
}

// seal encodes p's rows again when the batch changed them and lets the
// decoded rows go.
func (p *keyedPart) seal() {
	if p.edited {
		p.setRows(p.rows)
	}
	p.rows, p.open, p.edited = nil, false, false
}

// setRows encodes rows as p's, reusing p's buffer.
func (p *keyedPart) setRows(rows []types.Row) {
	p.enc, p.n, p.lastAt = p.enc[:0], int32(len(rows)), 0
	for _, r := range rows {
		p.lastAt = int32(len(p.enc))
		p.enc = state.AppendRow(p.enc, r)
	}
	p.enc = p.enc[:len(p.enc):len(p.enc)]
}

// last decodes p's last row (p holds rows).
func (p *keyedPart) last() (types.Row, error) {
	if p.open {
		return p.rows[len(p.rows)-1], nil
	}
	r, _, err := state.DecodeRow(p.enc[p.lastAt:])
	if err != nil {
		return nil, fmt.Errorf("decode Top-N partition: %w", err)
	}
	return r, nil
}

// value is p's checkpointed value (state.EncodeValue of its rows),
// preceded by extra rows.
func (p *keyedPart) value(extra ...types.Row) []byte {
	b := make([]byte, 0, len(p.enc)+16)
	b = append(b, state.Version)
	b = binary.AppendUvarint(b, uint64(len(extra))+uint64(p.n))
	for _, r := range extra {
		b = state.AppendRow(b, r)
	}
	return append(b, p.enc...)
}

// newKeyedPart is a sealed partition of rows.
func newKeyedPart(rows []types.Row, persisted, dirty bool) *keyedPart {
	p := &keyedPart{persisted: persisted, dirty: dirty}
	p.setRows(rows)
	return p
}
