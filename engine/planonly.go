package engine

import (
	"context"
	"strings"

	"github.com/streamsql/streamsql/connectors"
)

// In plan-only mode (Options.PlanOnly: `streamsql explain` and `check`)
// the engine validates every connector's options but opens nothing: no
// connection to Kafka or Postgres, no table created. Sources read as
// empty and ended; sinks discard and report the delivery their options
// declare.

// plannedSource stands in for a source in plan-only mode.
type plannedSource struct{}

func (plannedSource) Partitions() int                     { return 1 }
func (plannedSource) Open(context.Context, []int64) error { return nil }
func (plannedSource) Close() error                        { return nil }
func (plannedSource) Read(context.Context, int) (connectors.Batch, error) {
	return connectors.Batch{}, connectors.ErrEndOfInput
}

// plannedSink stands in for a sink in plan-only mode.
type plannedSink struct{ delivery string }

func (plannedSink) Write(context.Context, []connectors.Change) error  { return nil }
func (plannedSink) PreCommit(context.Context, uint64) ([]byte, error) { return nil, nil }
func (plannedSink) Commit(context.Context, uint64) error              { return nil }
func (plannedSink) Close() error                                      { return nil }
func (p plannedSink) Delivery() string                                { return p.delivery }

// newPlannedSink describes sink f with options opts without building it.
func newPlannedSink(f connectors.SinkFactory, opts map[string]string) plannedSink {
	d := connectors.Opts{Values: opts, Specs: f.Options}.String("delivery")
	switch strings.ToLower(d) {
	case "exactly_once":
		return plannedSink{delivery: "exactly-once (as declared; not connected)"}
	case "":
		return plannedSink{delivery: "at-least-once (not connected)"}
	}
	return plannedSink{delivery: strings.ReplaceAll(strings.ToLower(d), "_", "-") + " (as declared; not connected)"}
}
