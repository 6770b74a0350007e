package format

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/datagen"
	"github.com/streamsql/streamsql/internal/benchrate"
	"github.com/streamsql/streamsql/types"
)

var allTypes = types.Schema{
	{Name: "id", Type: types.Int},
	{Name: "name", Type: types.String},
	{Name: "price", Type: types.Float},
	{Name: "ok", Type: types.Bool},
	{Name: "ts", Type: types.Timestamp},
	{Name: "dur", Type: types.Interval},
}

func ts(s string) types.Value {
	us, err := types.ParseTimestamp(s)
	if err != nil {
		panic(err)
	}
	return types.TimestampValue(us)
}

func row(vs ...types.Value) types.Row { return vs }

var null = types.NullValue

func TestJSONDecode(t *testing.T) {
	tests := []struct {
		name, in string
		want     types.Row
		err      string // substring of the error, "" for success
	}{
		{"all columns", `{"id":1,"name":"a","price":1.5,"ok":true,"ts":"2024-01-01 00:00:05.123","dur":"10 seconds"}`,
			row(types.IntValue(1), types.StringValue("a"), types.FloatValue(1.5), types.BoolValue(true), ts("2024-01-01 00:00:05.123"), types.IntervalValue(10*types.Second)), ""},
		{"missing fields are NULL", `{"id":2}`, row(types.IntValue(2), null, null, null, null, null), ""},
		{"json null", `{"id":null,"name":null}`, row(null, null, null, null, null, null), ""},
		{"case-insensitive names", `{"ID":3,"Name":"b","PRICE":2}`, row(types.IntValue(3), types.StringValue("b"), types.FloatValue(2), null, null, null), ""},
		{"unknown fields ignored", `{"id":4,"extra":{"x":[1,2]}}`, row(types.IntValue(4), null, null, null, null, null), ""},
		{"last duplicate wins", `{"name":"x","name":"y"}`, row(null, types.StringValue("y"), null, null, null, null), ""},
		{"duplicate then null", `{"name":"x","name":null}`, row(null, null, null, null, null, null), ""},
		{"bigint from numeric string", `{"id":"42"}`, row(types.IntValue(42), null, null, null, null, null), ""},
		{"double from string", `{"price":"NaN"}`, row(null, null, types.FloatValue(math.NaN()), null, null, null), ""},
		{"double from integer", `{"price":7}`, row(null, null, types.FloatValue(7), null, null, null), ""},
		{"bool from string", `{"ok":"false"}`, row(null, null, null, types.BoolValue(false), null, null), ""},
		{"varchar from number", `{"name":12.50}`, row(null, types.StringValue("12.50"), null, null, null, null), ""},
		{"varchar from object", `{"name":{"a": 1}}`, row(null, types.StringValue(`{"a":1}`), null, null, null, null), ""},
		{"varchar escapes", `{"name":"a\"b\u00e9\n"}`, row(null, types.StringValue("a\"bé\n"), null, null, null, null), ""},
		{"timestamp epoch ms", `{"ts":1704067205123}`, row(null, null, null, null, ts("2024-01-01 00:00:05.123"), null), ""},
		{"timestamp epoch ms string", `{"ts":"1704067205123"}`, row(null, null, null, null, ts("2024-01-01 00:00:05.123"), null), ""},
		{"timestamp rfc3339", `{"ts":"2024-01-01T01:00:05+01:00"}`, row(null, null, null, null, ts("2024-01-01 00:00:05"), null), ""},
		{"timestamp T and Z", `{"ts":"2024-01-01T00:00:05.5Z"}`, row(null, null, null, null, ts("2024-01-01 00:00:05.5"), null), ""},
		{"timestamp micros", `{"ts":"2024-02-29 23:59:59.999999"}`, row(null, null, null, null, ts("2024-02-29 23:59:59.999999"), null), ""},
		{"timestamp date only", `{"ts":"2024-03-01"}`, row(null, null, null, null, ts("2024-03-01 00:00:00"), null), ""},
		{"interval days", `{"dur":"1 day 00:00:10"}`, row(null, null, null, null, null, types.IntervalOf(0, 1, 10*types.Second)), ""},
		{"interval micros", `{"dur":1500}`, row(null, null, null, null, null, types.IntervalValue(1500)), ""},
		{"leading zero, as fastjson reads it", `{"id":01}`, row(types.IntValue(1), null, null, null, null, null), ""},
		{"negative zero", `{"id":-0}`, row(types.IntValue(0), null, null, null, null, null), ""},
		{"bigint 18 digits", `{"id":-123456789012345678}`, row(types.IntValue(-123456789012345678), null, null, null, null, null), ""},
		{"bigint 19 digits", `{"id":1234567890123456789}`, row(types.IntValue(1234567890123456789), null, null, null, null, null), ""},
		{"keys in another order", `{"dur":-5,"ts":-1000,"id":7}`, row(types.IntValue(7), null, null, null, ts("1969-12-31 23:59:59"), types.IntervalValue(-5)), ""},
		{"bigint exponent", `{"id":1E2}`, nil, `column id: want BIGINT, got number "1E2"`},
		{"timestamp epoch ms overflow", `{"ts":999999999999999999}`, nil, "column ts"},
		{"bigint from float", `{"id":1.5}`, nil, `column id: want BIGINT, got number "1.5"`},
		{"bigint from word", `{"id":"abc"}`, nil, `column id: want BIGINT, got string "abc"`},
		{"bigint overflow", `{"id":9223372036854775808}`, nil, "column id"},
		{"bool from number", `{"ok":1}`, nil, "column ok: want BOOLEAN, got number"},
		{"double from bool", `{"price":true}`, nil, "column price: want DOUBLE, got boolean"},
		{"double from array", `{"price":[1]}`, nil, "column price: want DOUBLE, got array"},
		{"bad timestamp", `{"ts":"yesterday"}`, nil, `column ts: want TIMESTAMP, got string "yesterday"`},
		{"bad date", `{"ts":"2023-02-29 00:00:00"}`, nil, "column ts"},
		{"timestamp float", `{"ts":1.5}`, nil, "column ts"},
		{"not an object", `[1,2]`, nil, "not a JSON object"},
		{"syntax error", `{"id":`, nil, "cannot parse"},
		{"empty", ``, nil, "cannot parse"},
	}
	d, err := NewDecoder("json", allTypes, connectors.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := d.Decode([]byte(tc.in))
			checkDecode(t, got, err, tc.want, tc.err)
		})
	}
}

func checkDecode(t *testing.T, got types.Row, err error, want types.Row, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error = %v, want it to contain %q (row %v)", err, wantErr, got)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error %v", err)
	}
	if !sameRow(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

func sameRow(a, b types.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].K == types.Float && b[i].K == types.Float && math.IsNaN(a[i].F) && math.IsNaN(b[i].F) {
			continue
		}
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestJSONRowsIndependent checks that returned rows share nothing: a
// later Decode must not change an earlier row (the engine keeps rows).
func TestJSONRowsIndependent(t *testing.T) {
	d := NewJSONDecoder(allTypes)
	var rows []types.Row
	for i := range 600 { // crosses a slab boundary
		r, err := d.Decode([]byte(`{"id":` + itoa(i) + `,"name":"n` + itoa(i) + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
		if _, err := d.Decode([]byte(`{"id":"bad"}`)); err == nil {
			t.Fatal("want an error")
		}
	}
	for i, r := range rows {
		if r[0].I != int64(i) || r[1].S != "n"+itoa(i) || cap(r) != len(allTypes) {
			t.Fatalf("row %d changed: %v (cap %d)", i, r, cap(r))
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestCSVDecode(t *testing.T) {
	tests := []struct {
		name, in string
		opts     map[string]string
		header   string
		want     types.Row
		err      string
	}{
		{"in order", `1,a,1.5,true,2024-01-01 00:00:05,10 seconds`, nil, "",
			row(types.IntValue(1), types.StringValue("a"), types.FloatValue(1.5), types.BoolValue(true), ts("2024-01-01 00:00:05"), types.IntervalValue(10*types.Second)), ""},
		{"empty is NULL, quoted empty is ''", `,"",,,,`, nil, "", row(null, types.StringValue(""), null, null, null, null), ""},
		{"quotes and escapes", `2,"a,""b""",3,f,1704067205123,00:00:01` + "\r\n", nil, "",
			row(types.IntValue(2), types.StringValue(`a,"b"`), types.FloatValue(3), types.BoolValue(false), ts("2024-01-01 00:00:05.123"), types.IntervalValue(types.Second)), ""},
		{"delimiter", `3|x|||2024-01-01T00:00:00Z|`, map[string]string{"csv.delimiter": "|"}, "",
			row(types.IntValue(3), types.StringValue("x"), null, null, ts("2024-01-01 00:00:00"), null), ""},
		{"header by name", `x,7,,b`, map[string]string{"csv.header": "true"}, `Name,ID,unused,"price"`,
			nil, "column price: want DOUBLE"},
		{"header maps names", `b,7,zz`, map[string]string{"csv.header": "true"}, `Name,ID,unused`,
			row(types.IntValue(7), types.StringValue("b"), null, null, null, null), ""},
		{"header count mismatch", `b,7`, map[string]string{"csv.header": "true"}, `name,id,unused`, nil, "2 fields, the header 3"},
		{"too few fields", `1,a`, nil, "", nil, "2 fields, want 6"},
		{"bad int", `x,,,,,`, nil, "", nil, `column id: want BIGINT, got field "x"`},
		{"bad quote", `1,a"b,,,,`, nil, "", nil, "quote inside"},
		{"unterminated", `1,"ab,,,,`, nil, "", nil, "unterminated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDecoder("csv", allTypes, connectors.Opts{Values: tc.opts, Specs: Options})
			if err != nil {
				t.Fatal(err)
			}
			if tc.header != "" {
				if err := d.(HeaderSetter).SetHeaderLine([]byte(tc.header + "\n")); err != nil {
					t.Fatal(err)
				}
			}
			got, err := d.Decode([]byte(tc.in))
			checkDecode(t, got, err, tc.want, tc.err)
		})
	}
}

func TestCSVHeaderRequired(t *testing.T) {
	d, err := NewDecoder("csv", allTypes, connectors.Opts{Values: map[string]string{"csv.header": "true"}, Specs: Options})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Decode([]byte("1")); err == nil || !strings.Contains(err.Error(), "no header") {
		t.Fatalf("err = %v", err)
	}
	if err := d.(HeaderSetter).SetHeader([]string{"id", "ID"}); err == nil {
		t.Fatal("duplicate header column accepted")
	}
}

func TestNewDecoderErrors(t *testing.T) {
	if _, err := NewDecoder("avro", allTypes, connectors.Opts{}); err == nil || !strings.Contains(err.Error(), "unknown format 'avro'") {
		t.Fatalf("err = %v", err)
	}
	if _, err := NewDecoder("csv", allTypes, connectors.Opts{Values: map[string]string{"csv.delimiter": "ab"}}); err == nil {
		t.Fatal("two-byte delimiter accepted")
	}
}

func TestAppendJSONRoundTrip(t *testing.T) {
	rows := []types.Row{
		row(types.IntValue(-5), types.StringValue("q\"\\\n\t\x01é"), types.FloatValue(0.1), types.BoolValue(false), ts("2024-01-01 00:00:05.000001"), types.IntervalValue(types.Day+types.Second)),
		row(null, null, null, null, null, null),
		row(types.IntValue(math.MaxInt64), types.StringValue(""), types.FloatValue(math.Inf(-1)), types.BoolValue(true), ts("1969-12-31 23:59:59"), types.IntervalValue(-types.Second)),
		row(types.IntValue(0), types.StringValue("x"), types.FloatValue(math.NaN()), null, null, null),
		row(types.IntValue(1), types.StringValue("x"), types.FloatValue(1e300), null, null, null),
	}
	d := NewJSONDecoder(allTypes)
	for _, r := range rows {
		b := AppendJSON(nil, allTypes, r)
		got, err := d.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !sameRow(got, r) {
			t.Fatalf("%s decoded to %v, want %v", b, got, r)
		}
	}
	if got := string(AppendJSONCols(nil, allTypes, rows[0], []int{0, 3})); got != `{"id":-5,"ok":false}` {
		t.Fatalf("key = %s", got)
	}
}

func TestFastTimestampMatchesParse(t *testing.T) {
	for _, s := range []string{"1970-01-01 00:00:00", "2000-02-29 12:34:56.7", "2024-12-31T23:59:59.123456789Z", "1900-03-01 00:00:00", "2100-02-28 01:02:03.000004"} {
		want, err := types.ParseTimestamp(s)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := fastTimestamp([]byte(s))
		if !ok || got != want {
			t.Errorf("%s: fast %d (%v), want %d", s, got, ok, want)
		}
	}
}

var bid = []byte(`{"auction":1000,"bidder":2001,"price":1234,"channel":"Google","url":"https://www.nexmark.com/google/item.htm?query=1","date_time":"2024-01-01 00:00:05.123","extra":""}`)

var bidSchema = func() types.Schema {
	s, err := datagen.Schema("bid")
	if err != nil {
		panic(err)
	}
	return s
}()

// BenchmarkDecodeBid measures JSON decoding of one Nexmark bid on one
// core; events/s is the figure the issue asks for (≥ 1,000,000).
func BenchmarkDecodeBid(b *testing.B) { benchDecode(b, bidSchema, bid) }

// benchDecode decodes line with a JSON decoder of schema b.N times,
// reporting bytes, allocations and events/s.
func benchDecode(b *testing.B, schema types.Schema, line []byte) {
	d := NewJSONDecoder(schema)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	p := benchrate.Start()
	for range b.N {
		if _, err := d.Decode(line); err != nil {
			b.Fatal(err)
		}
	}
	p.Report(b, b.N)
}

// BenchmarkDecodeBidCSV measures the CSV decoder on the same bid.
func BenchmarkDecodeBidCSV(b *testing.B) {
	line := []byte(`1000,2001,1234,Google,https://www.nexmark.com/google/item.htm?query=1,2024-01-01 00:00:05.123,`)
	d, _ := NewDecoder("csv", bidSchema, connectors.Opts{})
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	p := benchrate.Start()
	for range b.N {
		if _, err := d.Decode(line); err != nil {
			b.Fatal(err)
		}
	}
	p.Report(b, b.N)
}

// BenchmarkAppendJSONBid measures encoding a bid row for a sink.
func BenchmarkAppendJSONBid(b *testing.B) {
	r, err := NewJSONDecoder(bidSchema).Decode(bid)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	b.ReportAllocs()
	p := benchrate.Start()
	for range b.N {
		buf = AppendJSON(buf[:0], bidSchema, r)
	}
	p.Report(b, b.N)
}

// FuzzJSONScan checks the single-pass scanner against the fastjson path:
// the same row, or an error from both.
func FuzzJSONScan(f *testing.F) {
	for _, s := range []string{
		string(bid), `{"id":1,"name":"a\"b\u00e9\ud83d\ude00","price":-1.5e3,"ok":true,"ts":1704067205123,"dur":"1 day 00:00:01"}`,
		`{"id":"42","name":12.50,"x":{"a":[1,"}"]},"ok":null}`, `{"name":"x","name":null}`, `{"id":01}`, `{"price":-.5}`,
		`{"ID":3,"Name":"b"}`, `{"dur":-0,"id":123456789012345678,"ts":-1}`, `{"id":-1e5}`, ` { } `, `{"id":1}x`, `{"ts":"2024-02-30 00:00:00"}`, `{"name":true}`, `{"k\u0065y":1}`,
	} {
		f.Add([]byte(s))
	}
	fast := NewJSONDecoder(allTypes)
	slow := NewJSONDecoder(allTypes)
	f.Fuzz(func(t *testing.T, in []byte) {
		got, gotErr := fast.Decode(in)
		var want types.Row
		v, wantErr := slow.p.ParseBytes(in)
		if wantErr == nil {
			want, wantErr = slow.DecodeValue(v)
		}
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: scan err %v, fastjson err %v", in, gotErr, wantErr)
		}
		if gotErr == nil && !sameRow(got, want) {
			t.Fatalf("%q: scan %v, fastjson %v", in, got, want)
		}
	})
}

func TestAppendTimestampMatchesFormat(t *testing.T) {
	for _, us := range []int64{0, 1, -1, 1704067205123000, 1704067205000001, 1704067205100000, 253402300799999999, -62135596800000000, 253402300800000000} {
		got := string(appendTimestamp(nil, us))
		if want := types.FormatTimestamp(us); got != want {
			t.Errorf("%d: %s, want %s", us, got, want)
		}
	}
}

// TestJSONBColumn: a JSONB column takes the field's value whole, on the
// single-pass scanner and on the fastjson path alike, and round-trips
// through AppendJSON; CSV fields are JSON text.
func TestJSONBColumn(t *testing.T) {
	schema := types.Schema{{Name: "id", Type: types.Int}, {Name: "payload", Type: types.JSONB}}
	js := func(s string) types.Value {
		v, err := types.ParseJSONB(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		in   string
		want types.Value
		err  bool
	}{
		{`{"id":1,"payload":{"name":"x\u00e9","tags":["a",{"b":1.50}],"a":null}}`, js(`{"a": null, "name": "xé", "tags": ["a", {"b": 1.50}]}`), false},
		{`{"payload":[1,2,"3"],"id":1}`, js(`[1, 2, "3"]`), false},
		{`{"id":1,"payload":"just text"}`, js(`"just text"`), false},
		{`{"id":1,"payload":12.50}`, js(`12.50`), false},
		{`{"id":1,"payload":false}`, js(`false`), false},
		{`{"id":1,"payload":null}`, types.NullValue, false},
		{`{"id":1}`, types.NullValue, false},
		{`{"id":1,"payload":{"a":"\u0000"}}`, types.NullValue, true},
	}
	for _, tt := range tests {
		for _, path := range []string{"scan", "fastjson"} {
			d := NewJSONDecoder(schema)
			var got types.Row
			var err error
			if path == "scan" {
				got, err = d.Decode([]byte(tt.in))
			} else {
				v, perr := d.p.Parse(tt.in)
				if perr != nil {
					t.Fatal(perr)
				}
				got, err = d.DecodeValue(v)
			}
			if (err != nil) != tt.err {
				t.Fatalf("%s %s: error %v, want error %v", path, tt.in, err, tt.err)
			}
			if err == nil && (got[1].K != tt.want.K || got[1].S != tt.want.S) {
				t.Errorf("%s %s: payload %v, want %v", path, tt.in, got[1], tt.want)
			}
		}
	}
	d := NewJSONDecoder(schema)
	r := row(types.IntValue(7), js(`{"k": [1, "x\"y"], "n": null}`))
	got, err := d.Decode(AppendJSON(nil, schema, r))
	if err != nil || !sameRow(got, r) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	c, err := NewDecoder("csv", schema, connectors.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	got, err = c.Decode([]byte(`7,"{""b"": 1, ""a"": [2]}"`))
	if err != nil || got[1].S != `{"a": [2], "b": 1}` {
		t.Fatalf("csv: %v, %v", got, err)
	}
}

// BenchmarkDecodePeersBid measures JSON decoding of the bids of
// bench/peers (four numbers, the time in epoch ms) on one core.
func BenchmarkDecodePeersBid(b *testing.B) {
	schema := types.Schema{
		{Name: "auction", Type: types.Int}, {Name: "bidder", Type: types.Int},
		{Name: "price", Type: types.Int}, {Name: "date_time", Type: types.Timestamp},
	}
	benchDecode(b, schema, []byte(`{"auction":1000,"bidder":1001,"price":50194,"date_time":1704067199806}`))
}
