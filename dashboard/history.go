package dashboard

import (
	"sync"
	"time"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/types"
)

// Sample is what the history keeps of one engine snapshot: the figures
// the charts and rates need, by view, reader and sink.
type Sample struct {
	// T is the engine clock's time of the snapshot, in Unix milliseconds.
	T       int64                   `json:"t"`
	Views   map[string]ViewSample   `json:"views"`
	Sources map[string]SourceSample `json:"sources"` // by pipeline + "/" + source
	Sinks   map[string]int64        `json:"sinks"`   // rows written
	// Checkpoint is the id of the last stored checkpoint.
	Checkpoint uint64 `json:"checkpoint"`
}

// ViewSample is one view's figures in a Sample. Watermark and Lag are
// seconds (a Unix time and a duration) and absent without a watermark.
type ViewSample struct {
	RowsIn    int64    `json:"rowsIn"`
	RowsOut   int64    `json:"rowsOut"`
	Late      int64    `json:"late"`
	Watermark *float64 `json:"watermark,omitempty"`
	Lag       *float64 `json:"lag,omitempty"`
	Stalled   bool     `json:"stalled"`
	// OpsOut has its plan nodes' rows out by operator number, for their
	// rates.
	OpsOut []int64 `json:"opsOut"`
}

// SourceSample is one reader's figures in a Sample.
type SourceSample struct {
	Read         int64    `json:"read"`
	Bytes        int64    `json:"bytes"`
	ConsumerLag  *int64   `json:"consumerLag,omitempty"` // summed over the partitions that know it
	DecodeErrors int64    `json:"decodeErrors"`
	Watermark    *float64 `json:"watermark,omitempty"`
	Lag          *float64 `json:"lag,omitempty"`
}

// sampleOf reduces a snapshot to a Sample.
func sampleOf(s engine.Snapshot) Sample {
	now := s.Now
	out := Sample{T: now.UnixMilli(), Views: map[string]ViewSample{}, Sources: map[string]SourceSample{},
		Sinks: map[string]int64{}, Checkpoint: s.Checkpoints.LastID}
	for _, v := range s.Views {
		vs := ViewSample{RowsIn: v.RowsIn, RowsOut: v.RowsOut, Stalled: v.Stalled, OpsOut: make([]int64, len(v.Operators))}
		for i, o := range v.Operators {
			vs.OpsOut[i] = o.RowsOut
		}
		for _, n := range v.Late {
			vs.Late += n
		}
		vs.Watermark, vs.Lag = watermark(v.HasWatermark, v.Watermark, now)
		out.Views[v.Name] = vs
	}
	for _, src := range s.Sources {
		ss := SourceSample{DecodeErrors: src.DecodeErrors}
		for _, p := range src.Partitions {
			ss.Read += p.Read
			ss.Bytes += p.Bytes
			if p.HasLag {
				ss.ConsumerLag = new(int64)
			}
		}
		if ss.ConsumerLag != nil {
			for _, p := range src.Partitions {
				*ss.ConsumerLag += p.Lag
			}
		}
		ss.Watermark, ss.Lag = watermark(src.HasWatermark, src.Watermark, now)
		out.Sources[src.Pipeline+"/"+src.Source] = ss
	}
	for _, k := range s.Sinks {
		out.Sinks[k.Name] = k.Rows
	}
	return out
}

// watermark returns a watermark (microseconds) and its lag behind now as
// seconds, or nils when there is none yet.
func watermark(has bool, us int64, now time.Time) (wm, lag *float64) {
	if !has || us == types.MinTime {
		return nil, nil
	}
	w := float64(us) / 1e6
	l := float64(now.UnixMicro()-us) / 1e6
	return &w, &l
}

// history is a ring buffer of the samples of the last window.
type history struct {
	mu      sync.Mutex
	samples []Sample
	next    int // where the next sample goes once the ring is full
	size    int
}

func newHistory(size int) *history {
	if size < 2 {
		size = 2
	}
	return &history{size: size}
}

// add appends s, dropping the oldest sample when full.
func (h *history) add(s Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.samples) < h.size {
		h.samples = append(h.samples, s)
		return
	}
	h.samples[h.next] = s
	h.next = (h.next + 1) % h.size
}

// since returns the samples taken after t (Unix milliseconds), oldest
// first.
func (h *history) since(t int64) []Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Sample, 0, len(h.samples))
	n := len(h.samples)
	for i := 0; i < n; i++ {
		s := h.samples[(h.next+i)%n]
		if s.T > t {
			out = append(out, s)
		}
	}
	return out
}
