package format

import (
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

var moneyTypes = types.Schema{
	{Name: "amount", Type: types.Decimal, Precision: 12, Scale: 2},
	{Name: "any", Type: types.Decimal},
	{Name: "day", Type: types.Date},
}

func decimalOf(t *testing.T, s string) types.Value {
	t.Helper()
	v, err := types.ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDecimalAndDateDecode reads DECIMAL and DATE columns from JSON
// (numbers read exactly from their text, strings) and CSV, fitting
// decimals to the column's (p, s).
func TestDecimalAndDateDecode(t *testing.T) {
	day := types.DateValue(19723) // 2024-01-01
	tests := []struct {
		name, format, in string
		want             types.Row
		err              string
	}{
		{"json numbers", "json", `{"amount":0.2,"any":0.10,"day":"2024-01-01"}`,
			row(decimalOf(t, "0.20"), decimalOf(t, "0.10"), day), ""},
		{"json integer and strings", "json", `{"amount":1,"any":"1.5e3","day":"2024-01-01 23:59:59"}`,
			row(decimalOf(t, "1.00"), decimalOf(t, "1500"), day), ""},
		{"json rounds half away from zero", "json", `{"amount":-0.125}`, row(decimalOf(t, "-0.13"), null, null), ""},
		{"json beyond 17 digits stays exact", "json", `{"any":12345678901234567890.123456789}`,
			row(null, decimalOf(t, "12345678901234567890.123456789"), null), ""},
		{"json overflow is an error", "json", `{"amount":12345678901.5}`, nil, "numeric field overflow"},
		{"json not a number", "json", `{"amount":"abc"}`, nil, `column amount: want DECIMAL, got string "abc"`},
		{"json bad date", "json", `{"day":"2024-13-01"}`, nil, "column day: want DATE"},
		{"csv", "csv", `0.005,-7,2024-01-01`, row(decimalOf(t, "0.01"), decimalOf(t, "-7"), day), ""},
		{"csv overflow", "csv", `1e11,,`, nil, "numeric field overflow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDecoder(tc.format, moneyTypes, connectors.Opts{Specs: Options})
			if err != nil {
				t.Fatal(err)
			}
			got, err := d.Decode([]byte(tc.in))
			checkDecode(t, got, err, tc.want, tc.err)
		})
	}
}

// TestDecimalFastjsonPath decodes through fastjson (the path records the
// single-pass scanner leaves to it take) with the same results.
func TestDecimalFastjsonPath(t *testing.T) {
	d := NewJSONDecoder(moneyTypes)
	v, err := d.p.Parse(`{"amount":2.5,"any":12345678901234567890.5,"day":"2024-01-01"}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.DecodeValue(v)
	want := row(decimalOf(t, "2.50"), decimalOf(t, "12345678901234567890.5"), types.DateValue(19723))
	if err != nil || !sameRow(got, want) {
		t.Fatalf("fastjson path: %v, %v", got, err)
	}
}

func TestDecimalAndDateJSONRoundTrip(t *testing.T) {
	r := row(decimalOf(t, "0.30"), decimalOf(t, "-98765432109876543210.000"), types.DateValue(-1))
	b := AppendJSON(nil, moneyTypes, r)
	if string(b) != `{"amount":0.30,"any":-98765432109876543210.000,"day":"1969-12-31"}` {
		t.Fatalf("encoded as %s", b)
	}
	got, err := NewJSONDecoder(moneyTypes).Decode(b)
	if err != nil || !sameRow(got, r) {
		t.Fatalf("%s decodes to %v, %v", b, got, err)
	}
}
