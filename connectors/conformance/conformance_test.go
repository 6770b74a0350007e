package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// The suite is checked against a reference connector that keeps its input
// and destination in memory and implements the contract literally, so a
// failing connector fails because of itself, not the suite.

var (
	refMu     sync.Mutex
	refInputs = map[string][][][]byte{}          // input name → partition → records
	refDests  = map[string]map[int64]types.Row{} // destination → committed rows by id
	refProg   = map[string]uint64{}              // destination → last committed checkpoint
	refSeq    int
)

func refSourceFactory() connectors.SourceFactory {
	return connectors.SourceFactory{Name: "ref", New: func(_ context.Context, spec connectors.SourceSpec) (connectors.Source, error) {
		return &refSource{input: spec.Options["input"]}, nil
	}}
}

type refSource struct {
	input string
	offs  []int64
	next  int
}

func (s *refSource) Partitions() int {
	refMu.Lock()
	defer refMu.Unlock()
	return len(refInputs[s.input])
}

func (s *refSource) Open(_ context.Context, offsets []int64) error {
	s.offs = make([]int64, s.Partitions())
	copy(s.offs, offsets)
	return nil
}

func (s *refSource) Read(_ context.Context, max int) (connectors.Batch, error) {
	refMu.Lock()
	defer refMu.Unlock()
	parts := refInputs[s.input]
	for i := range parts {
		p := (s.next + i) % len(parts)
		if int(s.offs[p]) >= len(parts[p]) {
			continue
		}
		s.next = p + 1
		b := connectors.Batch{Partition: p}
		for int(s.offs[p]) < len(parts[p]) && len(b.Rows) < max {
			off := s.offs[p]
			rec := parts[p][off]
			s.offs[p]++
			row, err := decode(rec)
			if err != nil {
				b.Errors = append(b.Errors, connectors.DecodeError{Partition: p, Offset: off, Raw: rec, Err: err})
				continue
			}
			b.Rows = append(b.Rows, row)
		}
		b.Next = s.offs[p]
		return b, nil
	}
	return connectors.Batch{}, connectors.ErrEndOfInput
}

func (s *refSource) Close() error { return nil }

func decode(rec []byte) (types.Row, error) {
	var m struct {
		ID    *int64  `json:"id"`
		Name  string  `json:"name"`
		Price float64 `json:"price"`
		TS    string  `json:"ts"`
	}
	if err := json.Unmarshal(rec, &m); err != nil {
		return nil, err
	}
	if m.ID == nil {
		return nil, fmt.Errorf("no id")
	}
	ts, err := types.ParseTimestamp(m.TS)
	if err != nil {
		return nil, err
	}
	return types.Row{types.IntValue(*m.ID), types.StringValue(m.Name), types.FloatValue(m.Price), types.TimestampValue(ts)}, nil
}

func refSinkFactory() connectors.SinkFactory {
	return connectors.SinkFactory{Name: "ref", New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
		return &refSink{dest: spec.Options["dest"], key: spec.Key}, nil
	}}
}

type refSink struct {
	dest    string
	key     []int
	pending []connectors.Change
	staged  []connectors.Change
}

func (s *refSink) Write(_ context.Context, ch []connectors.Change) error {
	s.pending = append(s.pending, ch...)
	return nil
}

func (s *refSink) PreCommit(_ context.Context, _ uint64) ([]byte, error) {
	s.staged = connectors.Collapse(s.pending, s.key)
	s.pending = nil
	return connectors.EncodeChanges(s.staged), nil
}

func (s *refSink) Commit(_ context.Context, id uint64) error {
	s.apply(id, s.staged)
	s.staged = nil
	return nil
}

func (s *refSink) Recover(_ context.Context, id uint64, staged []byte) error {
	ch, err := connectors.DecodeChanges(staged)
	if err != nil {
		return err
	}
	s.apply(id, ch)
	return nil
}

func (s *refSink) apply(id uint64, ch []connectors.Change) {
	refMu.Lock()
	defer refMu.Unlock()
	if refProg[s.dest] >= id {
		return
	}
	for _, c := range ch {
		if c.Op == connectors.Delete {
			delete(refDests[s.dest], c.Row[0].I)
		} else {
			refDests[s.dest][c.Row[0].I] = c.Row
		}
	}
	refProg[s.dest] = id
}

func (s *refSink) Close() error { return nil }

func TestReferenceSource(t *testing.T) {
	RunSource(t, SourceTarget{
		Factory: refSourceFactory(),
		Bounded: true,
		Setup: func(t *testing.T, parts int) map[string]string {
			refMu.Lock()
			defer refMu.Unlock()
			refSeq++
			name := fmt.Sprintf("in%d", refSeq)
			refInputs[name] = make([][][]byte, parts)
			return map[string]string{"connector": "ref", "input": name}
		},
		Append: func(t *testing.T, opts map[string]string, p int, records ...[]byte) {
			refMu.Lock()
			defer refMu.Unlock()
			refInputs[opts["input"]][p] = append(refInputs[opts["input"]][p], records...)
		},
	})
}

func TestReferenceSink(t *testing.T) {
	RunSink(t, SinkTarget{
		Factory:     refSinkFactory(),
		ExactlyOnce: true,
		Setup: func(t *testing.T) map[string]string {
			refMu.Lock()
			defer refMu.Unlock()
			refSeq++
			name := fmt.Sprintf("out%d", refSeq)
			refDests[name] = map[int64]types.Row{}
			return map[string]string{"connector": "ref", "dest": name}
		},
		Read: func(t *testing.T, opts map[string]string) []types.Row {
			refMu.Lock()
			defer refMu.Unlock()
			var out []types.Row
			for _, r := range refDests[opts["dest"]] {
				out = append(out, r)
			}
			return out
		},
	})
}

// TestStagedChangesRoundTrip checks that collapsing keeps the last change
// per key and that staged bytes decode to it.
func TestStagedChangesRoundTrip(t *testing.T) {
	tg := SinkTarget{Factory: refSinkFactory()}
	opts := map[string]string{"dest": "broken"}
	refMu.Lock()
	refDests["broken"] = map[int64]types.Row{}
	refMu.Unlock()
	s := tg.open(t, opts)
	write(t, s, up(Row(1, 0)), del(Row(1, 0)))
	staged, _ := s.PreCommit(context.Background(), 1)
	got, err := connectors.DecodeChanges(staged)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Op != connectors.Delete {
		t.Fatalf("collapse kept %v, want the delete only", got)
	}
	if !strings.Contains(got[0].Row.String(), "n1-v0") {
		t.Fatalf("staged row lost its values: %v", got[0].Row)
	}
}
