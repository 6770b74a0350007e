package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// lineSource is a bounded test source over lines kept in memory: "k,ts"
// decodes to (k BIGINT, ts TIMESTAMP); anything else is a poison record.
// It stands in for a real connector so the engine's error policies can be
// tested without one (the connectors run the conformance suite).
var (
	lineMu    sync.Mutex
	lineInput = map[string][]string{}
)

func lineFactory() connectors.SourceFactory {
	return connectors.SourceFactory{Name: "lines", Options: []connectors.OptionSpec{{Name: "input", Type: "string", Required: true}, {Name: "follow", Type: "bool"}},
		New: func(_ context.Context, spec connectors.SourceSpec) (connectors.Source, error) {
			return &lineSource{input: spec.Options["input"], follow: spec.Options["follow"] == "true"}, nil
		}}
}

type lineSource struct {
	input  string
	follow bool // wait for more lines instead of ending
	off    int64
}

func (s *lineSource) Partitions() int { return 1 }
func (s *lineSource) Open(_ context.Context, offs []int64) error {
	if offs != nil {
		s.off = offs[0]
	}
	return nil
}
func (s *lineSource) Close() error { return nil }

func (s *lineSource) Read(_ context.Context, max int) (connectors.Batch, error) {
	lineMu.Lock()
	lines := lineInput[s.input]
	lineMu.Unlock()
	if int(s.off) >= len(lines) {
		if s.follow {
			return connectors.Batch{Next: s.off}, nil
		}
		return connectors.Batch{}, connectors.ErrEndOfInput
	}
	var b connectors.Batch
	for int(s.off) < len(lines) && len(b.Rows) < max {
		line := lines[s.off]
		row, err := decodeLine(line)
		if err != nil {
			b.Errors = append(b.Errors, connectors.DecodeError{Offset: s.off, Raw: []byte(line), Err: err})
		} else {
			b.Rows = append(b.Rows, row)
		}
		s.off++
	}
	b.Next = s.off
	return b, nil
}

func decodeLine(line string) (types.Row, error) {
	k, ts, ok := strings.Cut(line, ",")
	if !ok {
		return nil, fmt.Errorf("want k,ts")
	}
	n, err := strconv.ParseInt(k, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("column k: %w", err)
	}
	t, err := types.ParseTimestamp(ts)
	if err != nil {
		return nil, fmt.Errorf("column ts: %w", err)
	}
	return types.Row{types.IntValue(n), types.TimestampValue(t)}, nil
}

func openLines(t *testing.T, dir string) (*Engine, func(string) (*Result, error)) {
	t.Helper()
	reg := connectors.NewRegistry()
	reg.AddSource(lineFactory())
	e, err := Open(Options{StateDir: dir, Registry: reg, Settings: map[string]string{"parallelism": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	return e, func(sql string) (*Result, error) { return e.Exec(context.Background(), sql) }
}

func TestSourceErrorPolicies(t *testing.T) {
	lineMu.Lock()
	lineInput["in"] = []string{"1,2024-01-01 00:00:01", "garbage", "2,2024-01-01 00:00:02", "x,2024-01-01 00:00:03", "3,not a time", "4,2024-01-01 00:00:04"}
	lineMu.Unlock()
	view := `CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(k) AS s FROM src`
	for _, tc := range []struct {
		policy  string
		wantErr string // FLUSH error
		rows    string
	}{
		{"fail", "undecodable record at partition 0 offset 1", ""},
		{"skip", "", "3 7"},
		{"dead_letter", "", "3 7"},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			e, exec := openLines(t, t.TempDir())
			defer e.Close()
			if _, err := exec(fmt.Sprintf(`CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', input = 'in', on_error = '%s', dead_letter = 'bad')`, tc.policy)); err != nil {
				t.Fatal(err)
			}
			if _, err := exec(`SET strict = off`); err != nil {
				t.Fatal(err)
			}
			if _, err := exec(view); err != nil {
				t.Fatal(err)
			}
			_, err := exec(`FLUSH`)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("FLUSH error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := exec(`SELECT n, s FROM m`)
			if err != nil || len(r.Rows) != 1 || r.Rows[0].String() != tc.rows {
				t.Fatalf("view = %v (%v), want %s", r, err, tc.rows)
			}
			m, _ := exec(`SHOW METRICS`)
			if !strings.Contains(fmt.Sprint(m.Rows), "decode_errors_total 3") {
				t.Fatalf("metrics %v lack decode_errors_total 3", m.Rows)
			}
			_, err = exec(`SELECT * FROM bad`)
			if tc.policy == "skip" {
				if err == nil {
					t.Fatal("skip created a dead-letter table")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDeadLettersSurviveCrash checks that poison records land in the
// dead-letter table exactly once, with their offsets, across a crash and
// a replay from the last checkpoint.
func TestDeadLettersSurviveCrash(t *testing.T) {
	lineMu.Lock()
	lineInput["crash"] = []string{"1,2024-01-01 00:00:01", "{bad", "2,2024-01-01 00:00:02"}
	lineMu.Unlock()
	dir := t.TempDir()
	e, exec := openLines(t, dir)
	for _, q := range []string{
		`CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', input = 'crash', follow = true, on_error = 'dead_letter')`,
		`SET strict = off`,
		`CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM src`,
		`FLUSH`,
	} {
		if _, err := exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	lineMu.Lock()
	lineInput["crash"] = append(lineInput["crash"], "\xff\xfe,bytes", "3,2024-01-01 00:00:03")
	lineMu.Unlock()
	if _, err := exec(`FLUSH`); err != nil {
		t.Fatal(err)
	}
	if err := e.Crash(); err != nil {
		t.Fatal(err)
	}
	// The crash lost the second FLUSH's work: it is replayed from offset 3.
	e, exec = openLines(t, dir)
	defer e.Close()
	if _, err := exec(`FLUSH`); err != nil {
		t.Fatal(err)
	}
	r, err := exec(`SELECT source, "partition", "offset", raw, error FROM src_dead_letter`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`src 0 1 {bad want k,ts`,
		`src 0 3 \xff\xfe,bytes column k: strconv.ParseInt: parsing "\xff\xfe": invalid syntax`,
	}
	if len(r.Rows) != len(want) {
		t.Fatalf("dead letters %v, want %d rows", r.Rows, len(want))
	}
	for i, w := range want {
		if got := r.Rows[i].String(); got != w {
			t.Errorf("dead letter %d = %q, want %q", i, got, w)
		}
	}
	n, err := exec(`SELECT n FROM m`)
	if err != nil || n.Rows[0][0].I != 3 {
		t.Fatalf("view after replay = %v (%v), want 3 good rows", n, err)
	}
	if _, err := exec(`DROP TABLE src_dead_letter`); err == nil || !strings.Contains(err.Error(), "dead_letter table of source") {
		t.Fatalf("dropping a dead-letter table in use: %v", err)
	}
}

func TestUnknownOptionSuggests(t *testing.T) {
	e, exec := openLines(t, t.TempDir())
	defer e.Close()
	_, err := exec(`CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', inptu = 'x')`)
	if err == nil || !strings.Contains(err.Error(), "unknown option 'inptu' for connector lines; did you mean 'input'?") {
		t.Fatalf("error %v", err)
	}
	_, err = exec(`CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', input = 'x', on_error = 'ignore')`)
	if err == nil || !strings.Contains(err.Error(), "on_error must be fail, skip or dead_letter") {
		t.Fatalf("error %v", err)
	}
}

// TestDeadLettersLeaveMemoryAtCheckpoint: a dead-letter table's rows live
// in the store once checkpointed, so memory holds only the poison records
// since the last checkpoint, while queries still see every row, and a
// replayed poison record is recorded once.
func TestDeadLettersLeaveMemoryAtCheckpoint(t *testing.T) {
	var lines []string
	for i := range 3000 {
		if i%3 == 0 {
			lines = append(lines, fmt.Sprintf("bad %d", i))
		} else {
			lines = append(lines, fmt.Sprintf("%d,2024-01-01 00:00:01", i))
		}
	}
	lineMu.Lock()
	lineInput["bounded"] = lines[:1500]
	lineMu.Unlock()
	e, exec := openLines(t, t.TempDir())
	defer e.Close()
	for _, q := range []string{
		`CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', input = 'bounded', follow = true, on_error = 'dead_letter')`,
		`SET strict = off`,
		`CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM src`,
		`CREATE MATERIALIZED VIEW m2 AS SELECT k FROM src WHERE k > 10`,
		`FLUSH`,
	} {
		if _, err := exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	count := func(want int) {
		t.Helper()
		r, err := exec(`SELECT count(*) FROM src_dead_letter`)
		if err != nil || r.Rows[0][0].I != int64(want) {
			t.Fatalf("dead letters: %v (%v), want %d", r, err, want)
		}
	}
	pending := func() int {
		e.mu.Lock()
		defer e.mu.Unlock()
		return len(e.dlq["src_dead_letter"].pending)
	}
	count(500)
	if n := pending(); n != 500 {
		t.Fatalf("before the checkpoint %d dead letters are in memory, want 500", n)
	}
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n != 0 {
		t.Fatalf("after the checkpoint %d dead letters are still in memory", n)
	}
	count(500)
	lineMu.Lock()
	lineInput["bounded"] = lines
	lineMu.Unlock()
	if _, err := exec(`FLUSH`); err != nil {
		t.Fatal(err)
	}
	count(1000)
	if n := pending(); n != 500 {
		t.Fatalf("after more input %d dead letters are in memory, want the 500 new ones", n)
	}
	r, err := exec(`SELECT "offset" FROM src_dead_letter ORDER BY "offset"`)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range r.Rows {
		if row[0].I != int64(3*i) {
			t.Fatalf("dead letter %d has offset %d, want %d (stored and pending rows merged)", i, row[0].I, 3*i)
		}
	}
}

// TestSinkFromDeadLetterTable: a sink FROM a dead-letter table gets the
// rows already there as a snapshot, then each new poison record once as
// an insert keyed by (source, partition, offset); it is in the contract,
// comes back after a crash, and holds the table against DROP.
func TestSinkFromDeadLetterTable(t *testing.T) {
	lineMu.Lock()
	lineInput["dlq_sink"] = []string{"1,2024-01-01 00:00:01", "bad one", "2,2024-01-01 00:00:02"}
	lineMu.Unlock()
	rec := &recordSink{}
	reg := connectors.NewRegistry()
	reg.AddSource(lineFactory())
	reg.AddSink(connectors.SinkFactory{Name: "record", New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
		if fmt.Sprint(spec.Key) != "[0 1 2]" || !spec.AppendOnly {
			t.Errorf("the dead-letter sink's spec: key %v, append-only %v; want [0 1 2], true", spec.Key, spec.AppendOnly)
		}
		return rec, nil
	}})
	dir := t.TempDir()
	open := func() (*Engine, func(string)) {
		e, err := Open(Options{StateDir: dir, Registry: reg, Settings: map[string]string{"parallelism": "1"}})
		if err != nil {
			t.Fatal(err)
		}
		return e, func(q string) {
			t.Helper()
			if _, err := e.Exec(context.Background(), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	got := func() string {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var out []string
		for _, c := range rec.changes {
			f := strings.Fields(c) // op source partition offset ...
			out = append(out, strings.Join(f[:4], " "))
		}
		return strings.Join(out, "; ")
	}
	e, exec := open()
	exec(`CREATE SOURCE src (k BIGINT, ts TIMESTAMP) WITH (connector = 'lines', input = 'dlq_sink', follow = true, on_error = 'dead_letter')`)
	exec(`SET strict = off`)
	exec(`CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM src`)
	exec(`FLUSH`)
	exec(`CREATE SINK dl_out FROM src_dead_letter WITH (connector = 'record')`)
	if want := "upsert src 0 1"; got() != want {
		t.Fatalf("after CREATE SINK the sink has %q, want the snapshot %q", got(), want)
	}
	text, _ := e.Explain()
	if !strings.Contains(text, "table src_dead_letter\ncontract:\n  sink dl_out: record, at-least-once, key [source, partition, offset]") {
		t.Errorf("the contract lacks the dead-letter sink:\n%s", text)
	}
	lineMu.Lock()
	lineInput["dlq_sink"] = append(lineInput["dlq_sink"], "bad two", "3,2024-01-01 00:00:03")
	lineMu.Unlock()
	exec(`FLUSH`)
	if err := e.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if want := "upsert src 0 1; upsert src 0 3"; got() != want {
		t.Fatalf("after a new poison record the sink has %q, want %q", got(), want)
	}
	// A poison record read after the checkpoint, then a crash: the
	// restart replays it and writes it again under the same key (this
	// sink is at-least-once; an exactly-once one never committed the
	// first write: see TestKafkaToPostgresExactlyOnceSurvivesKill9).
	lineMu.Lock()
	lineInput["dlq_sink"] = append(lineInput["dlq_sink"], "bad three")
	lineMu.Unlock()
	exec(`FLUSH`)
	if err := e.Crash(); err != nil {
		t.Fatal(err)
	}
	e, exec = open()
	defer e.Close()
	exec(`FLUSH`)
	if want := "upsert src 0 1; upsert src 0 3; upsert src 0 5; upsert src 0 5"; got() != want {
		t.Fatalf("after the crash the sink has %q, want %q", got(), want)
	}
	if _, err := e.Exec(context.Background(), `DROP TABLE src_dead_letter`); err == nil {
		t.Fatal("dropped a dead-letter table a sink reads")
	}
	exec(`DROP SINK dl_out`)
}
