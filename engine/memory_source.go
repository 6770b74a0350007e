package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// memoryConnector names the engine's own connector, the default of
// CREATE SOURCE and CREATE TABLE: rows come from INSERT (and COPY FROM).
// A memory source's rows are appended to the engine's durable log
// (memory log, synced before the INSERT is acknowledged) and read back by
// memorySource; a memory TABLE's rows are written to the table at once.
const memoryConnector = "memory"

// MemoryOptions are the WITH options of the engine's memory source.
var MemoryOptions = []connectors.OptionSpec{
	{Name: "partitions", Type: "int", Default: "1", Doc: "Number of partitions; `INSERT INTO s PARTITION (pN)` writes to one.", Example: "4"},
}

// logged reports whether o takes its rows from INSERT: a source or
// TABLE of the engine's memory connector.
func logged(o *catalog.Object) bool {
	return o.Options["connector"] == memoryConnector
}

// memoryFactory is the memory connector as a source factory, registered
// with the engine's connectors so a memory source is read like any other.
func (e *Engine) memoryFactory() connectors.SourceFactory {
	return connectors.SourceFactory{
		Name:    memoryConnector,
		Doc:     "The rows INSERT and COPY FROM write, kept in the engine's durable log; a view reads them at FLUSH (and at recovery), in insertion order.",
		Options: MemoryOptions,
		Typed:   true,
		New: func(_ context.Context, spec connectors.SourceSpec) (connectors.Source, error) {
			parts := 1
			if p, err := strconv.Atoi(spec.Options["partitions"]); err == nil && p > 0 {
				parts = p
			}
			return &memorySource{e: e, name: spec.Name, parts: parts}, nil
		},
	}
}

// memorySource reads one memory source's entries of the engine's log, in
// log order. An offset is a log sequence number: per partition, the last
// entry read. A Read returns one INSERT's rows (as many as it wrote), in
// the source's input columns, with the ingestion time the INSERT stored
// as the rows' times, so a replay after a crash sees the same rows.
//
// State: the offsets and a cursor (the last log entry looked at; entries
// of other sources before it are never looked at again).
type memorySource struct {
	e      *Engine
	name   string
	parts  int
	offs   []int64
	cursor uint64
	// in are the input columns and ingest the INGESTION_TIME() columns
	// of the source's full rows as the log holds them (set at Open).
	in, ingest []int
}

// Partitions implements connectors.Source.
func (m *memorySource) Partitions() int { return m.parts }

// Open implements connectors.Source.
func (m *memorySource) Open(_ context.Context, offsets []int64) error {
	o, ok := m.e.cat.Get(m.name)
	if !ok {
		return fmt.Errorf("memory source %q is not in the catalog", m.name)
	}
	m.in, m.ingest = o.InputColumns(), nil
	for c, g := range o.Generated {
		if g == catalog.GenIngestion {
			m.ingest = append(m.ingest, c)
		}
	}
	m.offs = make([]int64, m.parts)
	copy(m.offs, offsets)
	m.cursor = uint64(m.offs[0])
	for _, off := range m.offs {
		m.cursor = min(m.cursor, uint64(off))
	}
	return nil
}

// errFound stops a log scan at the entry Read returns.
var errFound = errors.New("found")

// Read implements connectors.Source: the next entry of this source after
// its partition's offset, or an empty batch when the log has none.
func (m *memorySource) Read(_ context.Context, _ int) (connectors.Batch, error) {
	b := connectors.Batch{Next: m.offs[0]}
	if m.cursor >= m.e.logSeq {
		return b, nil
	}
	err := m.e.store.ScanFrom(prefixLog, logKey(m.cursor+1), func(k, val []byte) error {
		seq := binary.BigEndian.Uint64(k[len(prefixLog):])
		rows, err := state.DecodeValue(val)
		if err != nil {
			return err
		}
		part := int(rows[0][1].I)
		if !strings.EqualFold(rows[0][0].S, m.name) || part < 0 || part >= m.parts || int64(seq) <= m.offs[part] {
			m.cursor = seq
			return nil
		}
		b = m.batch(part, seq, rows[1:])
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return connectors.Batch{}, fmt.Errorf("read memory log: %w", err)
	}
	if errors.Is(err, errFound) {
		m.cursor = uint64(b.Next)
		m.offs[b.Partition] = b.Next
	}
	return b, nil
}

// batch is log entry seq of partition part: its full rows cut to the
// input columns, with their stored ingestion time.
func (m *memorySource) batch(part int, seq uint64, full []types.Row) connectors.Batch {
	b := connectors.Batch{Partition: part, Next: int64(seq), Rows: make([]types.Row, len(full))}
	for i, row := range full {
		in := make(types.Row, len(m.in))
		for j, c := range m.in {
			in[j] = row[c]
		}
		b.Rows[i] = in
		if len(m.ingest) > 0 {
			b.Times = append(b.Times, row[m.ingest[0]].I)
		}
	}
	return b
}

// Close implements connectors.Source.
func (m *memorySource) Close() error { return nil }
