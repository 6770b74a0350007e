package main

import (
	"io"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/blackhole"
	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/connectors/file"
	"github.com/streamsql/streamsql/connectors/kafka"
	"github.com/streamsql/streamsql/connectors/postgres"
	"github.com/streamsql/streamsql/connectors/stdout"
	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/sqllogic"
)

// registry wires the concrete connectors; cmd/streamsql is the only place
// that knows them all.
func registry(out io.Writer) *connectors.Registry {
	r := connectors.NewRegistry()
	r.AddSource(datagen.Factory())
	r.AddSource(file.SourceFactory())
	r.AddSource(kafka.SourceFactory(kafka.WithLogger(logger)))
	r.AddSink(file.SinkFactory())
	r.AddSink(kafka.SinkFactory(kafka.WithLogger(logger)))
	r.AddSink(postgres.Factory(logger))
	r.AddSink(stdout.Factory(out))
	r.AddSink(blackhole.Factory())
	return r
}

// sltDB adapts the engine to the sqllogictest runner.
type sltDB struct{ e *engine.Engine }

func openSLT(out io.Writer) sqllogic.Opener {
	return func(dir string, settings map[string]string) (sqllogic.DB, error) {
		e, err := engine.Open(engine.Options{StateDir: dir, Registry: registry(out), Settings: settings})
		if err != nil {
			return nil, err
		}
		return &sltDB{e: e}, nil
	}
}
