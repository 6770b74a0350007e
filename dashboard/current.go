package dashboard

import (
	"slices"

	"github.com/streamsql/streamsql/engine"
)

// Current is the JSON form of one engine snapshot, the same figures
// /metrics serves, for the dashboard's tables.
type Current struct {
	Now              int64              `json:"now"` // Unix milliseconds
	Sources          []CurrentSource    `json:"sources"`
	Views            []CurrentView      `json:"views"`
	Sinks            []CurrentSink      `json:"sinks"`
	Checkpoints      CurrentCheckpoints `json:"checkpoints"`
	Restored         bool               `json:"restored"`
	RestoreSeconds   float64            `json:"restoreSeconds"`
	RestoreBytes     int64              `json:"restoreBytes"`
	ExpressionErrors int64              `json:"expressionErrors"`
}

// CurrentSource is one reader: a source as one pipeline reads it.
type CurrentSource struct {
	Pipeline     string             `json:"pipeline"`
	Source       string             `json:"source"`
	OnError      string             `json:"onError"`
	DecodeErrors int64              `json:"decodeErrors"`
	Watermark    *float64           `json:"watermark,omitempty"`
	Lag          *float64           `json:"lag,omitempty"`
	Partitions   []CurrentPartition `json:"partitions"`
}

// CurrentPartition is one partition of a reader.
type CurrentPartition struct {
	Read      int64    `json:"read"`
	Bytes     int64    `json:"bytes"`
	Lag       *int64   `json:"consumerLag,omitempty"` // records behind the partition's end, when known
	Watermark *float64 `json:"watermark,omitempty"`
	Idle      bool     `json:"idle"`
}

// CurrentView is one view or query sink's pipeline.
type CurrentView struct {
	Name      string           `json:"name"`
	RowsIn    int64            `json:"rowsIn"`
	RowsOut   int64            `json:"rowsOut"`
	Late      map[string]int64 `json:"late"` // by "policy/reason"
	Watermark *float64         `json:"watermark,omitempty"`
	Lag       *float64         `json:"lag,omitempty"`
	Stalled   bool             `json:"stalled"`
	// Operators has its plan nodes' figures by operator number (the plan
	// graph's PlanNode.Operator).
	Operators []CurrentOperator `json:"operators"`
}

// CurrentOperator is one plan node's figures; the state fields are
// absent for stateless nodes.
type CurrentOperator struct {
	ID                int     `json:"id"`
	RowsIn            int64   `json:"rowsIn"`
	RowsOut           int64   `json:"rowsOut"`
	StateKeys         *int64  `json:"stateKeys,omitempty"`
	MemoryBytes       *int64  `json:"memoryBytes,omitempty"`
	SpilledBytes      *int64  `json:"spilledBytes,omitempty"`
	SpillReads        *int64  `json:"spillReads,omitempty"`
	ProcessingSeconds float64 `json:"processingSeconds"`
}

// operatorsOf converts a view's operator figures.
func operatorsOf(ops []engine.OperatorStats) []CurrentOperator {
	out := make([]CurrentOperator, 0, len(ops))
	for _, o := range ops {
		co := CurrentOperator{ID: o.ID, RowsIn: o.RowsIn, RowsOut: o.RowsOut, ProcessingSeconds: o.Processing.Seconds()}
		if o.HasState {
			co.StateKeys, co.MemoryBytes, co.SpilledBytes, co.SpillReads = &o.StateKeys, &o.MemoryBytes, &o.SpilledBytes, &o.SpillReads
		}
		out = append(out, co)
	}
	return out
}

// CurrentSink is one sink.
type CurrentSink struct {
	Name          string  `json:"name"`
	Connector     string  `json:"connector"`
	Rows          int64   `json:"rows"`
	Commits       uint64  `json:"commits"`
	CommitSeconds float64 `json:"commitSeconds"` // their total time
	Retries       int64   `json:"retries"`
}

// CurrentCheckpoints are the checkpoint figures and recent attempts.
type CurrentCheckpoints struct {
	LastID      uint64              `json:"lastId"`
	LastSuccess int64               `json:"lastSuccess,omitempty"` // Unix milliseconds
	Failures    int64               `json:"failures"`
	Count       uint64              `json:"count"`
	Seconds     float64             `json:"seconds"` // their total time
	Recent      []CurrentCheckpoint `json:"recent"`
}

// CurrentCheckpoint is one checkpoint attempt.
type CurrentCheckpoint struct {
	ID      uint64  `json:"id"`
	At      int64   `json:"at"` // Unix milliseconds
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"bytes"` // what it wrote (keys and values)
	Error   string  `json:"error,omitempty"`
}

// currentOf converts a snapshot.
func currentOf(s engine.Snapshot) Current {
	c := Current{Now: s.Now.UnixMilli(), Restored: s.Restored, RestoreSeconds: s.Restore.Duration.Seconds(),
		RestoreBytes: s.Restore.Bytes, ExpressionErrors: s.ExpressionErrors,
		Sources: []CurrentSource{}, Views: []CurrentView{}, Sinks: []CurrentSink{}}
	for _, src := range s.Sources {
		cs := CurrentSource{Pipeline: src.Pipeline, Source: src.Source, OnError: src.OnError, DecodeErrors: src.DecodeErrors,
			Partitions: []CurrentPartition{}}
		cs.Watermark, cs.Lag = watermark(src.HasWatermark, src.Watermark, s.Now)
		for _, p := range src.Partitions {
			wm, _ := watermark(src.HasWatermark, p.Watermark, s.Now)
			cp := CurrentPartition{Read: p.Read, Bytes: p.Bytes, Watermark: wm, Idle: p.Idle}
			if p.HasLag {
				cp.Lag = &p.Lag
			}
			cs.Partitions = append(cs.Partitions, cp)
		}
		c.Sources = append(c.Sources, cs)
	}
	for _, v := range s.Views {
		cv := CurrentView{Name: v.Name, RowsIn: v.RowsIn, RowsOut: v.RowsOut, Stalled: v.Stalled, Late: map[string]int64{},
			Operators: operatorsOf(v.Operators)}
		for k, n := range v.Late {
			cv.Late[k.Policy+"/"+k.Reason] = n
		}
		cv.Watermark, cv.Lag = watermark(v.HasWatermark, v.Watermark, s.Now)
		c.Views = append(c.Views, cv)
	}
	for _, k := range s.Sinks {
		c.Sinks = append(c.Sinks, CurrentSink{Name: k.Name, Connector: k.Connector, Rows: k.Rows, Commits: k.Commit.Count, CommitSeconds: k.Commit.Sum, Retries: k.Retries})
	}
	c.Checkpoints = checkpointsOf(s.Checkpoints)
	return c
}

func checkpointsOf(cs engine.CheckpointStats) CurrentCheckpoints {
	out := CurrentCheckpoints{LastID: cs.LastID, Failures: cs.Failures, Count: cs.Duration.Count, Seconds: cs.Duration.Sum,
		Recent: []CurrentCheckpoint{}}
	if !cs.LastSuccess.IsZero() {
		out.LastSuccess = cs.LastSuccess.UnixMilli()
	}
	for _, r := range slices.Backward(cs.Recent) {
		out.Recent = append(out.Recent, CurrentCheckpoint{ID: r.ID, At: r.At.UnixMilli(), Seconds: r.Duration.Seconds(), Bytes: r.Bytes, Error: r.Err})
	}
	return out
}
