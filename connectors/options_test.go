package connectors

import (
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

func TestValidateOptions(t *testing.T) {
	specs := []OptionSpec{
		{Name: "topic", Type: "string", Required: true},
		{Name: "brokers", Type: "string", Required: true},
		{Name: "delivery", Type: "string", Enum: []string{"at_least_once", "exactly_once"}},
		{Name: "batch_rows", Type: "int"},
		{Name: "follow", Type: "bool"},
		{Name: "poll_interval", Type: "duration"},
	}
	cases := []struct {
		opts map[string]string
		want string // "" = valid
	}{
		{map[string]string{"connector": "kafka", "topic": "t", "brokers": "b"}, ""},
		{map[string]string{"topc": "t", "brokers": "b"}, "unknown option 'topc' for connector kafka; did you mean 'topic'?"},
		{map[string]string{"topic": "t", "brokers": "b", "zzzzzzzz": "1"}, "unknown option 'zzzzzzzz' for connector kafka"},
		{map[string]string{"topic": "t", "brokers": "b", "on_eror": "skip"}, "did you mean 'on_error'?"},
		{map[string]string{"brokers": "b"}, "needs option 'topic'"},
		{map[string]string{"topic": "t", "brokers": "b", "batch_rows": "many"}, "option 'batch_rows' must be an int, got 'many'"},
		{map[string]string{"topic": "t", "brokers": "b", "follow": "perhaps"}, "must be a bool"},
		// A WITH option's boolean is Postgres's (types.ParseBool), as SET's is.
		{map[string]string{"topic": "t", "brokers": "b", "follow": "on"}, ""},
		{map[string]string{"topic": "t", "brokers": "b", "follow": "Off"}, ""},
		{map[string]string{"topic": "t", "brokers": "b", "follow": "yes"}, ""},
		{map[string]string{"topic": "t", "brokers": "b", "poll_interval": "soon"}, "must be a duration"},
		{map[string]string{"topic": "t", "brokers": "b", "poll_interval": "250"}, ""},
		{map[string]string{"topic": "t", "brokers": "b", "delivery": "EXACTLY_ONCE"}, ""},
		{map[string]string{"topic": "t", "brokers": "b", "delivery": "twice"}, "must be one of at_least_once, exactly_once, got 'twice'"},
	}
	for _, c := range cases {
		err := ValidateOptions("kafka", specs, CommonSourceOptions, c.opts)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: unexpected error %v", c.opts, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: error %v, want it to contain %q", c.opts, err, c.want)
		}
	}
}

func TestOptsDefaults(t *testing.T) {
	o := Opts{Values: map[string]string{"a": "7"}, Specs: []OptionSpec{{Name: "a", Default: "1"}, {Name: "b", Default: "2s"}, {Name: "c", Default: "on"}}}
	if o.Int("a") != 7 || o.Duration("b").Seconds() != 2 || !o.Bool("c") || o.String("d") != "" {
		t.Fatalf("opts: a=%d b=%v c=%v d=%q", o.Int("a"), o.Duration("b"), o.Bool("c"), o.String("d"))
	}
}

func TestChangesRoundTrip(t *testing.T) {
	in := []Change{
		{Op: Upsert, Row: types.Row{types.IntValue(-5), types.StringValue("héllo"), types.FloatValue(2.5), types.NullValue, types.TimestampValue(1), types.BoolValue(true), types.IntervalValue(9)}},
		{Op: Delete, Row: types.Row{types.IntValue(1)}},
	}
	out, err := DecodeChanges(EncodeChanges(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Op != Upsert || out[1].Op != Delete || out[0].Row.String() != in[0].Row.String() || out[1].Row.String() != in[1].Row.String() {
		t.Fatalf("round trip: %v", out)
	}
	if out[0].Row[4].K != types.Timestamp || out[0].Row[6].K != types.Interval {
		t.Fatalf("kinds lost: %v", out[0].Row)
	}
}

func TestChangesDecimalAndDate(t *testing.T) {
	big, _ := types.ParseDecimal("123456789012345678901234567890.50")
	in := []Change{{Op: Upsert, Row: types.Row{types.DecimalValue(30, 2), big, types.DateValue(19723)}}}
	out, err := DecodeChanges(EncodeChanges(in))
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out[0].Row {
		if v != in[0].Row[i] {
			t.Errorf("value %d: %#v decodes to %#v", i, in[0].Row[i], v)
		}
	}
	// Staged bytes of an older build (version 1) still decode: an upsert
	// of (BIGINT 7, VARCHAR "x").
	old, err := DecodeChanges([]byte{1, 1, byte(Upsert), 2, byte(types.Int), 14, byte(types.String), 1, 'x'})
	if err != nil || len(old) != 1 || old[0].Row.String() != "7 x" {
		t.Fatalf("version 1 bytes decode to %v, %v", old, err)
	}
	// Collapse takes 1.0 and 1.00 for one key.
	got := Collapse([]Change{{Upsert, types.Row{types.DecimalValue(10, 1)}}, {Delete, types.Row{types.DecimalValue(100, 2)}}}, []int{0})
	if len(got) != 1 || got[0].Op != Delete {
		t.Fatalf("collapse over equal decimals: %v", got)
	}
}

func FuzzDecodeChanges(f *testing.F) {
	f.Add(EncodeChanges([]Change{{Op: Upsert, Row: types.Row{types.IntValue(1), types.StringValue("x")}}}))
	f.Add(EncodeChanges([]Change{{Op: Delete, Row: types.Row{types.DecimalValue(-105, 2), types.DateValue(-3)}}}))
	f.Add(EncodeChanges([]Change{{Op: Upsert, Row: types.Row{{K: types.JSONB, S: `{"a": [1, 2]}`}}}}))
	f.Add(EncodeChanges([]Change{{Op: Upsert, Row: types.Row{types.ByteaValue("\x00\xff")}}}))
	f.Add(EncodeChanges([]Change{{Op: Upsert, Row: types.Row{types.ArrayValue(types.String, []types.Value{types.StringValue("a"), {}})}}}))
	f.Add([]byte{1, 1, 1, 1, byte(types.Decimal), 0, 2})
	f.Add([]byte{1, 200, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		ch, err := DecodeChanges(b)
		if err != nil {
			return
		}
		if _, err := DecodeChanges(EncodeChanges(ch)); err != nil {
			t.Fatalf("re-encoding a decoded value fails: %v", err)
		}
	})
}

func TestCollapse(t *testing.T) {
	r := func(k int64, v string) types.Row { return types.Row{types.IntValue(k), types.StringValue(v)} }
	in := []Change{{Upsert, r(1, "a")}, {Upsert, r(2, "b")}, {Delete, r(1, "a")}, {Upsert, r(3, "c")}, {Upsert, r(2, "d")}}
	got := Collapse(in, []int{0})
	want := "[{2 [1 a]} {1 [2 d]} {1 [3 c]}]"
	if s := strings.ReplaceAll(strings.ReplaceAll(fmtChanges(got), "\n", ""), "  ", " "); s != want {
		t.Fatalf("collapse = %s, want %s", s, want)
	}
	if len(Collapse(in, nil)) != len(in) {
		t.Fatal("collapse without a key dropped changes")
	}
}

// TestCollapserInPieces: changes added in pieces collapse as the whole
// list does.
func TestCollapserInPieces(t *testing.T) {
	r := func(k int64, v string) types.Row { return types.Row{types.IntValue(k), types.StringValue(v)} }
	in := []Change{{Upsert, r(1, "a")}, {Upsert, r(2, "b")}, {Delete, r(1, "a")}, {Upsert, r(3, "c")}, {Upsert, r(2, "d")}}
	for _, key := range [][]int{{0}, nil} {
		c := Collapser{Key: key}
		c.Add(in[:2])
		c.Add(in[2:3])
		c.Add(in[3:])
		if got, want := fmtChanges(c.Changes()), fmtChanges(Collapse(in, key)); got != want || c.Len() != len(Collapse(in, key)) {
			t.Fatalf("key %v: in pieces %s, whole %s", key, got, want)
		}
		c.Reset()
		if c.Len() != 0 {
			t.Fatalf("key %v: %d changes after Reset", key, c.Len())
		}
	}
}

func fmtChanges(ch []Change) string {
	var b strings.Builder
	b.WriteString("[")
	for i, c := range ch {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString("{")
		b.WriteString(string(rune('0' + c.Op)))
		b.WriteString(" [")
		b.WriteString(strings.ReplaceAll(c.Row.String(), ", ", " "))
		b.WriteString("]}")
	}
	b.WriteString("]")
	return b.String()
}

func TestChangesJSONB(t *testing.T) {
	a, _ := types.ParseJSONB(`{"a": [1.0, {"b": "c"}]}`)
	out, err := DecodeChanges(EncodeChanges([]Change{{Op: Upsert, Row: types.Row{a}}}))
	if err != nil || out[0].Row[0] != a {
		t.Fatalf("round trip = %v, %v", out, err)
	}
	// Version 2 bytes (a DATE) decode; version 2 bytes with a JSONB do not.
	if old, err := DecodeChanges([]byte{2, 1, byte(Upsert), 1, byte(types.Date), 2}); err != nil || old[0].Row.String() != "1970-01-02" {
		t.Fatalf("version 2 bytes decode to %v, %v", old, err)
	}
	if _, err := DecodeChanges([]byte{2, 1, byte(Upsert), 1, byte(types.JSONB), 1, '1'}); err == nil {
		t.Fatal("version 2 bytes holding a JSONB decoded")
	}
	b, _ := types.ParseJSONB(`{"a": [1, {"b": "c"}]}`)
	got := Collapse([]Change{{Upsert, types.Row{a}}, {Delete, types.Row{b}}}, []int{0})
	if len(got) != 1 || got[0].Op != Delete {
		t.Fatalf("collapse over equal jsonb: %v", got)
	}
}

func TestChangesBytea(t *testing.T) {
	a := types.ByteaValue("\x00\xff")
	out, err := DecodeChanges(EncodeChanges([]Change{{Op: Upsert, Row: types.Row{a}}}))
	if err != nil || out[0].Row[0] != a {
		t.Fatalf("round trip = %v, %v", out, err)
	}
	if _, err := DecodeChanges([]byte{4, 1, byte(Upsert), 1, byte(types.Bytea), 1, 'x'}); err == nil {
		t.Fatal("version 4 bytes holding a BYTEA decoded")
	}
	got := Collapse([]Change{{Upsert, types.Row{a}}, {Delete, types.Row{types.ByteaValue("\x00\xff")}}}, []int{0})
	if len(got) != 1 || got[0].Op != Delete {
		t.Fatalf("collapse over equal bytea: %v", got)
	}
}

func TestChangesArray(t *testing.T) {
	a := types.ArrayValue(types.Int, []types.Value{types.IntValue(1), types.NullValue})
	enc := EncodeChanges([]Change{{Op: Upsert, Row: types.Row{a}}})
	out, err := DecodeChanges(enc)
	if err != nil || out[0].Row[0] != a {
		t.Fatalf("round trip = %v, %v", out, err)
	}
	enc[0] = 4
	if _, err := DecodeChanges(enc); err == nil {
		t.Fatal("version 4 bytes holding an array decoded")
	}
}

// TestCollapserManyKeys: a checkpoint's worth of keys (the slot table
// grows many times), each updated a few times and some deleted, in two
// key columns of different kinds, collapses to the last change per key
// in first-seen order, as a reference built with a map does; after Reset
// the held changes stay the caller's.
func TestCollapserManyKeys(t *testing.T) {
	const keys = 50_000
	var in []Change
	for round := int64(0); round < 3; round++ {
		for k := int64(0); k < keys; k++ {
			op := Upsert
			if round == 2 && k%7 == 0 {
				op = Delete
			}
			in = append(in, Change{op, types.Row{types.IntValue(k % 1000), types.StringValue(strconv.FormatInt(k/1000, 10)), types.IntValue(round)}})
		}
	}
	first := map[string]int{}
	var want []Change
	for _, ch := range in {
		k := strconv.FormatInt(ch.Row[0].I, 10) + "/" + ch.Row[1].S
		if i, ok := first[k]; ok {
			want[i] = ch
			continue
		}
		first[k] = len(want)
		want = append(want, ch)
	}
	c := Collapser{Key: []int{0, 1}}
	for len(in) > 0 {
		n := min(len(in), 4096)
		c.Add(in[:n])
		in = in[n:]
	}
	got := c.Changes()
	if c.Len() != keys || fmtChanges(got) != fmtChanges(want) {
		t.Fatalf("collapsed %d changes, want %d (equal: %v)", c.Len(), len(want), fmtChanges(got) == fmtChanges(want))
	}
	c.Reset()
	c.Add([]Change{{Upsert, types.Row{types.IntValue(1), types.StringValue("x"), types.IntValue(9)}}})
	if c.Len() != 1 || fmtChanges(got) != fmtChanges(want) {
		t.Fatalf("after Reset: %d held, earlier changes kept: %v", c.Len(), fmtChanges(got) == fmtChanges(want))
	}
}
