package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
)

// TestSinkSpecSaysWhetherTheViewOnlyInserts: a sink learns from its spec
// whether the view ever replaces a row it emitted (the postgres sink sizes
// a created table's fillfactor by it).
func TestSinkSpecSaysWhetherTheViewOnlyInserts(t *testing.T) {
	specs := map[string]connectors.SinkSpec{}
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
		specs[spec.Name] = spec
		return nopSink{}, nil
	}})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	for _, q := range []string{
		`CREATE SOURCE s (k BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)`,
		`CREATE MATERIALIZED VIEW final AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
			GROUP BY k, window_start LATE DATA DROP EMIT ON WINDOW CLOSE`,
		`CREATE MATERIALIZED VIEW early AS SELECT k, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
			GROUP BY k, window_start LATE DATA DROP EMIT ON UPDATE`,
		`CREATE MATERIALIZED VIEW passthrough AS SELECT k, ts FROM s WHERE k > 0`,
		`CREATE SINK out_final FROM final WITH (connector = 'record')`,
		`CREATE SINK out_early FROM early WITH (connector = 'record')`,
		`CREATE SINK out_pass FROM passthrough WITH (connector = 'record')`,
	} {
		if _, err := e.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for sink, want := range map[string]bool{"out_final": true, "out_early": false, "out_pass": true} {
		spec, ok := specs[sink]
		if !ok {
			t.Fatalf("sink %s was not built", sink)
		}
		if spec.AppendOnly != want {
			t.Errorf("sink %s: AppendOnly %v, want %v", sink, spec.AppendOnly, want)
		}
	}
}

// nopSink accepts everything and keeps nothing.
type nopSink struct{}

func (nopSink) Write(context.Context, []connectors.Change) error  { return nil }
func (nopSink) PreCommit(context.Context, uint64) ([]byte, error) { return nil, nil }
func (nopSink) Commit(context.Context, uint64) error              { return nil }
func (nopSink) Close() error                                      { return nil }

// TestContractNamesTheSinkKey: the contract shows the key a sink writes
// by: its primary_key option when given, else the view's key.
func TestContractNamesTheSinkKey(t *testing.T) {
	reg := connectors.NewRegistry()
	reg.AddSink(connectors.SinkFactory{Name: "keyed", Options: []connectors.OptionSpec{{Name: "primary_key", Type: "string"}},
		New: func(connectors.SinkSpec) (connectors.Sink, error) { return nopSink{}, nil }})
	e, err := Open(Options{StateDir: t.TempDir(), Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	for _, q := range []string{
		`CREATE SOURCE s (a BIGINT, b BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts)`,
		`CREATE MATERIALIZED VIEW m AS SELECT a, window_start, count(*) AS n FROM TUMBLE(s, ts, INTERVAL '10' SECOND)
			GROUP BY a, window_start LATE DATA DROP EMIT ON WINDOW CLOSE`,
		`CREATE SINK by_view FROM m WITH (connector = 'keyed')`,
		`CREATE SINK by_option FROM m WITH (connector = 'keyed', primary_key = 'window_start, a')`,
	} {
		if _, err := e.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	text, _ := e.Explain()
	for _, want := range []string{"sink by_view: keyed, at-least-once, key [a, window_start]", "sink by_option: keyed, at-least-once, key [window_start, a]"} {
		if !strings.Contains(text, want) {
			t.Errorf("the contract lacks %q:\n%s", want, text)
		}
	}
}
