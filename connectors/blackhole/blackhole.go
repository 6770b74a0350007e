// Package blackhole is the sink that consumes a changelog and counts it;
// the Nexmark benchmark uses it so sinks do not dominate the figures.
package blackhole

import (
	"context"
	"sync/atomic"

	"github.com/streamsql/streamsql/connectors"
)

// Rows counts every change delivered to any blackhole sink.
var Rows atomic.Int64

// Factory returns the blackhole sink factory.
func Factory() connectors.SinkFactory {
	return connectors.SinkFactory{
		Name: "blackhole",
		Doc:  "Discards the changelog (counts it).",
		New:  func(connectors.SinkSpec) (connectors.Sink, error) { return sink{}, nil },
	}
}

type sink struct{}

func (sink) Write(_ context.Context, ch []connectors.Change) error {
	Rows.Add(int64(len(ch)))
	return nil
}
func (sink) PreCommit(context.Context, uint64) ([]byte, error) { return nil, nil }
func (sink) Commit(context.Context, uint64) error              { return nil }
func (sink) Close() error                                      { return nil }
