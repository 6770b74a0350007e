package stdout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/conformance"
	"github.com/streamsql/streamsql/connectors/format"
	"github.com/streamsql/streamsql/types"
)

// destinations gives each conformance test its own "terminal": a buffer
// with its own stdout factory, named by the option conformance.out (which
// the wrapper strips before the stdout factory sees the options).
type destinations struct {
	mu   sync.Mutex
	outs map[string]*destination
}

type destination struct {
	buf     *syncBuffer
	factory connectors.SinkFactory
}

// syncBuffer lets the test read what the sink's writer wrote.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (d *destinations) setup(t *testing.T) map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	name := strconv.Itoa(len(d.outs))
	buf := &syncBuffer{}
	d.outs[name] = &destination{buf: buf, factory: Factory(buf)}
	return map[string]string{"connector": "stdout", "conformance.out": name}
}

func (d *destinations) get(opts map[string]string) *destination {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.outs[opts["conformance.out"]]
}

func TestConformance(t *testing.T) {
	d := &destinations{outs: map[string]*destination{}}
	conformance.RunSink(t, conformance.SinkTarget{
		Factory: connectors.SinkFactory{
			Name: "stdout",
			New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
				dst := d.get(spec.Options)
				if dst == nil {
					return nil, errors.New("no conformance.out destination")
				}
				spec.Options = maps.Clone(spec.Options)
				delete(spec.Options, "conformance.out")
				return dst.factory.New(spec)
			},
		},
		Setup: d.setup,
		Read: func(t *testing.T, opts map[string]string) []types.Row {
			t.Helper()
			rows, err := readChangelog(d.get(opts).buf.String(), "conf_sink", conformance.Schema, conformance.Key)
			if err != nil {
				t.Fatal(err)
			}
			return rows
		},
	})
}

// readChangelog parses the lines the sink printed for sink and applies
// them by key: upsert replaces, delete removes.
func readChangelog(out, sink string, schema types.Schema, key []int) ([]types.Row, error) {
	byKey := map[string]types.Row{}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		op, row, err := parseLine(line, sink, schema)
		if err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
		var k strings.Builder
		for _, c := range key {
			k.WriteString(row[c].String())
			k.WriteByte(0)
		}
		if op == connectors.Delete {
			delete(byKey, k.String())
		} else {
			byKey[k.String()] = row
		}
	}
	return slices.Collect(maps.Values(byKey)), nil
}

// parseLine reads `<sink> <op> (<values>)`.
func parseLine(line, sink string, schema types.Schema) (connectors.Op, types.Row, error) {
	rest, ok := strings.CutPrefix(line, sink+" ")
	if !ok {
		return 0, nil, fmt.Errorf("does not start with the sink name %s", sink)
	}
	opText, vals, ok := strings.Cut(rest, " (")
	if !ok || !strings.HasSuffix(vals, ")") {
		return 0, nil, errors.New("want <op> (<values>)")
	}
	var op connectors.Op
	switch opText {
	case "upsert":
		op = connectors.Upsert
	case "delete":
		op = connectors.Delete
	default:
		return 0, nil, fmt.Errorf("unknown op %q", opText)
	}
	fields, err := splitValues(strings.TrimSuffix(vals, ")"))
	if err != nil {
		return 0, nil, err
	}
	if len(fields) != len(schema) {
		return 0, nil, fmt.Errorf("%d values for %d columns", len(fields), len(schema))
	}
	row := make(types.Row, len(schema))
	for i, f := range fields {
		switch {
		case f == "NULL":
			row[i] = types.NullValue
		case schema[i].Type == types.String:
			s, err := strconv.Unquote(f)
			if err != nil {
				return 0, nil, fmt.Errorf("column %s: string %s is not quoted: %w", schema[i].Name, f, err)
			}
			row[i] = types.StringValue(s)
		default:
			v, err := format.ParseText(schema[i], []byte(f))
			if err != nil {
				return 0, nil, err
			}
			row[i] = v
		}
	}
	return op, row, nil
}

// splitValues splits at ", " outside double-quoted strings.
func splitValues(s string) ([]string, error) {
	var out []string
	start, inStr := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case inStr && s[i] == '\\':
			i++ // the escaped byte cannot end the string
		case s[i] == '"':
			inStr = !inStr
		case !inStr && s[i] == ',' && i+1 < len(s) && s[i+1] == ' ':
			out = append(out, s[start:i])
			start = i + 2
			i++
		}
	}
	if inStr {
		return nil, errors.New("unterminated string")
	}
	return append(out, s[start:]), nil
}

// TestLinesReadBack prints rows whose values would be ambiguous without
// quoting (a string with ", ", a newline, quotes, the text NULL, an empty
// string; NULLs of every type; special floats) and parses them back.
func TestLinesReadBack(t *testing.T) {
	schema := types.Schema{
		{Name: "id", Type: types.Int},
		{Name: "s", Type: types.String},
		{Name: "f", Type: types.Float},
		{Name: "b", Type: types.Bool},
		{Name: "ts", Type: types.Timestamp},
		{Name: "iv", Type: types.Interval},
	}
	ts, err := types.ParseTimestamp("2024-01-01 00:00:01.5")
	if err != nil {
		t.Fatal(err)
	}
	rows := []types.Row{
		{types.IntValue(1), types.StringValue("Bob, Jr."), types.FloatValue(1.5), types.BoolValue(true), types.TimestampValue(ts), types.IntervalValue(90 * types.Second)},
		{types.IntValue(2), types.StringValue("NULL"), types.NullValue, types.NullValue, types.NullValue, types.NullValue},
		{types.IntValue(3), types.NullValue, types.FloatValue(-0.25), types.BoolValue(false), types.TimestampValue(0), types.IntervalValue(26 * 3600 * types.Second)},
		{types.IntValue(4), types.StringValue("line\nbreak \"quoted\" \\ back, slash), ("), types.FloatValue(1e300), types.BoolValue(true), types.TimestampValue(ts), types.IntervalValue(0)},
		{types.IntValue(5), types.StringValue(""), types.FloatValue(0), types.BoolValue(false), types.TimestampValue(ts), types.IntervalValue(-types.Second)},
	}
	var buf syncBuffer
	f := Factory(&buf)
	s, err := f.New(connectors.SinkSpec{Name: "out", Schema: schema, Key: []int{0}, Options: map[string]string{"connector": "stdout"}})
	if err != nil {
		t.Fatal(err)
	}
	var changes []connectors.Change
	for _, r := range rows {
		changes = append(changes, connectors.Change{Op: connectors.Upsert, Row: r})
	}
	changes = append(changes, connectors.Change{Op: connectors.Delete, Row: rows[4]})
	if err := s.Write(context.Background(), changes); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(buf.String(), "\n"); got != len(changes) {
		t.Fatalf("%d lines for %d changes:\n%s", got, len(changes), buf.String())
	}
	got, err := readChangelog(buf.String(), "out", schema, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b types.Row) int { return types.Compare(a[0], b[0]) })
	want := rows[:4]
	if len(got) != len(want) {
		t.Fatalf("read back %d rows, want %d:\n%s", len(got), len(want), buf.String())
	}
	for i := range want {
		for c := range want[i] {
			if got[i][c].K != want[i][c].K || got[i][c].String() != want[i][c].String() {
				t.Errorf("row %d column %s: read back %v, printed %v", i, schema[c].Name, got[i][c], want[i][c])
			}
		}
	}
	if d, ok := s.(connectors.Delivery); !ok || !strings.HasPrefix(d.Delivery(), "at-least-once") {
		t.Fatalf("stdout sink does not state at-least-once delivery")
	}
}
