package file

import (
	"context"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/format"
)

// sourceOptions are the WITH options of the file source, in the order the
// docs list them; the decoders' options (csv.header, csv.delimiter) follow.
var sourceOptions = append([]connectors.OptionSpec{
	{Name: "path", Type: "string", Required: true, Example: "'data/bids-*.jsonl'",
		Doc: "What to read: a file, a glob (`*`, `?`, `[...]` as in Go's filepath.Match) or a directory, meaning every regular file in it whose name does not start with a dot. Files are taken in sorted path order."},
	{Name: "format", Type: "string", Default: "json", Enum: format.Names, Example: "'csv'",
		Doc: "How a line decodes: `json` (one object per line, fields matched to columns by name) or `csv` (fields in column order, or by name with `csv.header`)."},
	{Name: "follow", Type: "bool", Default: "false", Example: "'true'",
		Doc: "Keep reading: wait for bytes appended to the files and, for a glob or directory, for new files (read one after another in name order, like rotated logs). Without it the source is bounded and ends once every file is read."},
	{Name: "poll_interval", Type: "duration", Default: "100ms", Example: "'1s'",
		Doc: "With `follow`: how often to look for appended bytes and new files."},
}, format.Options...)

// sinkOptions are the WITH options of the file sink.
var sinkOptions = []connectors.OptionSpec{
	{Name: "path", Type: "string", Required: true, Example: "'out/q7.jsonl'",
		Doc: "The file the changelog is appended to, created with its directories if missing; one JSON object per change: the row's columns plus `\"__op\": \"upsert\"` or `\"delete\"`."},
	{Name: "delivery", Type: "string", Default: atLeastOnce, Enum: []string{atLeastOnce, exactlyOnce}, Example: "'exactly_once'",
		Doc: "`at_least_once` appends as changes arrive and syncs at each checkpoint (after a crash the changes since the last checkpoint appear again); `exactly_once` appends a checkpoint's changes, collapsed per key, only once the checkpoint is stored, and records it in `<path>.progress`, so each change appears once."},
}

// SourceFactory returns the file source factory (connector 'file').
func SourceFactory() connectors.SourceFactory {
	return connectors.SourceFactory{
		Name: "file",
		Doc: "Reads JSON lines or CSV from a file, a glob or a directory; with follow it tails " +
			"them. Offsets are byte positions after the last consumed line, so a restart resumes " +
			"exactly; undecodable lines are reported as poison records.",
		Options: append([]connectors.OptionSpec(nil), sourceOptions...),
		New:     func(_ context.Context, spec connectors.SourceSpec) (connectors.Source, error) { return newSource(spec) },
	}
}

// SinkFactory returns the file sink factory (connector 'file').
func SinkFactory() connectors.SinkFactory {
	return connectors.SinkFactory{
		Name: "file",
		Doc: "Appends a view's changelog to a file as JSON lines (columns plus \"__op\"), " +
			"at-least-once or exactly-once per checkpoint.",
		Options: append([]connectors.OptionSpec(nil), sinkOptions...),
		New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
			s, err := newSink(spec)
			if err != nil {
				return nil, err
			}
			if s.exact {
				return exactSink{s}, nil
			}
			return s, nil
		},
	}
}
