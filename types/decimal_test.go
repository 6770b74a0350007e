package types

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func dec(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseDecimal(s)
	if err != nil {
		t.Fatalf("ParseDecimal(%q): %v", s, err)
	}
	return v
}

func TestParseFormatDecimal(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"0.10", "0.10"}, {"1", "1"}, {"-1.50", "-1.50"}, {"+.5", "0.5"}, {"1.", "1"},
		{" 007.250 ", "7.250"}, {"1.5e3", "1500"}, {"1.5e-3", "0.0015"}, {"-0", "0"}, {"0.000", "0.000"},
		{"123456789012345678901234567890.123", "123456789012345678901234567890.123"},
		{"-9223372036854775808", "-9223372036854775808"}, {"9223372036854775808", "9223372036854775808"},
	} {
		if got := dec(t, c.in).String(); got != c.out {
			t.Errorf("%q prints %q, want %q", c.in, got, c.out)
		}
	}
	for _, bad := range []string{"", ".", "abc", "1e", "1.2.3", "--1", "NaN", "Infinity", "1 0"} {
		if _, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) succeeded", bad)
		}
	}
}

// TestDecimalArithmetic checks results and scales against what Postgres
// 16 prints for the same numeric expressions.
func TestDecimalArithmetic(t *testing.T) {
	type op func(a, b Value) (Value, error)
	big := "123456789012345678901234567890"
	for _, c := range []struct {
		name string
		f    op
		a, b string
		want string
	}{
		{"+", DecimalAdd, "0.10", "0.20", "0.30"},
		{"+", DecimalAdd, "1", "0.005", "1.005"},
		{"+", DecimalAdd, "9223372036854775807", "1", "9223372036854775808"},
		{"+", DecimalAdd, big, "-" + big, "0"},
		{"-", DecimalSub, "1.00", "0.5", "0.50"},
		{"-", DecimalSub, "-9223372036854775808", "1", "-9223372036854775809"},
		{"*", DecimalMul, "0.10", "0.20", "0.0200"},
		{"*", DecimalMul, "1.5", "2.25", "3.375"},
		{"*", DecimalMul, "4294967296", "4294967296", "18446744073709551616"},
		{"*", DecimalMul, "0.908", "100", "90.800"},
		{"/", DecimalDiv, "1", "3", "0.33333333333333333333"},
		{"/", DecimalDiv, "10", "4", "2.5000000000000000"},
		{"/", DecimalDiv, "100000", "3", "33333.333333333333"},
		{"/", DecimalDiv, "2", "3", "0.66666666666666666667"},
		{"/", DecimalDiv, "-2", "3", "-0.66666666666666666667"},
		{"/", DecimalDiv, "1.00", "8", "0.12500000000000000000"},
		{"/", DecimalDiv, "0", "7", "0.00000000000000000000"},
		{"/", DecimalDiv, "7.1234567890123456789", "1", "7.1234567890123456789"},
		{"/", DecimalDiv, big, "7", "17636684144620811271604938270"},
		{"%", DecimalMod, "7.5", "2", "1.5"},
		{"%", DecimalMod, "-7.5", "2", "-1.5"},
		{"%", DecimalMod, "10", "0.3", "0.1"},
	} {
		got, err := c.f(dec(t, c.a), dec(t, c.b))
		if err != nil {
			t.Errorf("%s %s %s: %v", c.a, c.name, c.b, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s %s %s = %s, want %s", c.a, c.name, c.b, got, c.want)
		}
	}
	if _, err := DecimalDiv(dec(t, "1"), dec(t, "0.00")); !errors.Is(err, ErrDecimalDivZero) {
		t.Errorf("1 / 0.00: %v, want division by zero", err)
	}
}

func TestDecimalRoundAndFit(t *testing.T) {
	for _, c := range []struct {
		in    string
		scale int
		want  string
	}{
		{"2.5", 0, "3"}, {"-2.5", 0, "-3"}, {"1.005", 2, "1.01"}, {"1.5", 3, "1.500"},
		{"1234.5", -2, "1200"}, {"-0.004", 2, "0.00"}, {"99.995", 2, "100.00"},
		{"123456789012345678901234567890.5", 0, "123456789012345678901234567891"},
	} {
		got, err := DecimalRound(dec(t, c.in), c.scale)
		if err != nil || got.String() != c.want {
			t.Errorf("round(%s, %d) = %s, %v; want %s", c.in, c.scale, got, err, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		p, s int
		want string // "" means 22003
	}{
		{"0.2", 12, 2, "0.20"}, {"1", 12, 2, "1.00"}, {"12345678.994", 10, 2, "12345678.99"},
		{"12345678.995", 10, 2, "12345679.00"}, {"99999999.995", 10, 2, ""}, {"123456789", 10, 2, ""}, {"0.5", 2, 2, "0.50"}, {"1", 2, 2, ""},
		{"-99.9", 3, 1, "-99.9"}, {"5", 0, 0, "5"},
	} {
		got, err := DecimalFit(dec(t, c.in), c.p, c.s)
		switch {
		case c.want == "":
			var de *DecimalError
			if !errors.As(err, &de) || de.Code != "22003" {
				t.Errorf("fit(%s, %d, %d) = %s, %v; want 22003", c.in, c.p, c.s, got, err)
			}
		case err != nil || got.String() != c.want:
			t.Errorf("fit(%s, %d, %d) = %s, %v; want %s", c.in, c.p, c.s, got, err, c.want)
		}
	}
}

func TestDecimalConversions(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{0.1 + 0.2, "0.3"}, {1, "1"}, {-2.5, "-2.5"}, {1e20, "100000000000000000000"}, {1.5e-7, "0.00000015"}} {
		v, err := DecimalFromFloat(c.f)
		if err != nil || v.String() != c.want {
			t.Errorf("DecimalFromFloat(%v) = %s, %v; want %s", c.f, v, err, c.want)
		}
	}
	if _, err := DecimalFromFloat(math.NaN()); err == nil {
		t.Error("NaN converted to DECIMAL")
	}
	if f := DecimalToFloat(dec(t, "0.30")); f != 0.3 {
		t.Errorf("0.30 as a double is %v", f)
	}
	if f := DecimalToFloat(dec(t, "123456789012345678901234567890.5")); f != 1.2345678901234568e29 {
		t.Errorf("big as a double is %v", f)
	}
	for in, want := range map[string]int64{"2.5": 3, "-2.5": -3, "2.49": 2, "9223372036854775807.4": math.MaxInt64} {
		if got, err := DecimalToInt(dec(t, in)); err != nil || got != want {
			t.Errorf("DecimalToInt(%s) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := DecimalToInt(dec(t, "9223372036854775807.5")); err == nil {
		t.Error("9223372036854775807.5 fit a bigint")
	}
	for in, want := range map[string][2]string{"1.5": {"1", "2"}, "-1.5": {"-2", "-1"}, "3": {"3", "3"}, "-0.00": {"0", "0"}} {
		f, _ := DecimalFloor(dec(t, in))
		c, _ := DecimalCeil(dec(t, in))
		if f.String() != want[0] || c.String() != want[1] {
			t.Errorf("floor/ceil(%s) = %s, %s; want %v", in, f, c, want)
		}
	}
}

func TestDecimalCompareAndHash(t *testing.T) {
	one, oneOO := dec(t, "1.0"), dec(t, "1.00")
	if Compare(one, oneOO) != 0 || Compare(one, IntValue(1)) != 0 || Compare(dec(t, "0.1"), FloatValue(0.1)) != 0 {
		t.Error("equal numbers of different scales or kinds do not compare equal")
	}
	if Compare(dec(t, "-0.5"), dec(t, "0.25")) >= 0 || Compare(dec(t, "99999999999999999999"), IntValue(math.MaxInt64)) <= 0 {
		t.Error("numeric order is wrong")
	}
	if HashValues(Row{one}, []int{0}) != HashValues(Row{oneOO}, []int{0}) {
		t.Error("1.0 and 1.00 hash apart")
	}
	big := dec(t, "1"+strings.Repeat("0", 30)+".000")
	if n := DecimalNormalize(big); n.String() != "1"+strings.Repeat("0", 30) {
		t.Errorf("normalize: %s", n)
	}
	if _, err := ParseDecimal("1e1001"); err == nil {
		t.Error("1e1001 parsed: Postgres takes exponents up to 1000")
	}
	v, err := dec(t, "1e1000"), error(nil)
	for i := 0; i < 200 && err == nil; i++ {
		v, err = DecimalMul(v, v)
	}
	if !errors.Is(err, ErrDecimalOverflow) {
		t.Errorf("squaring 1e1000: %v, want overflow", err)
	}
}

func TestNumericBinaryRoundTrip(t *testing.T) {
	for _, s := range []string{"0", "0.00", "1", "-1", "0.10", "10000", "12345.6789", "0.0001", "-0.00012",
		"123456789012345678901234567890.123456789", "100000000", "1.00000001", "9999.9999"} {
		v := dec(t, s)
		got, err := ParseNumericBinary(AppendNumericBinary(nil, v))
		if err != nil || got != v {
			t.Errorf("%s round-trips to %s, %v", s, got, err)
		}
	}
	// 12345.6789 is digits [1 2345 6789], weight 1, scale 4.
	b := AppendNumericBinary(nil, dec(t, "12345.6789"))
	want := []byte{0, 3, 0, 1, 0, 0, 0, 4, 0, 1, 0x09, 0x29, 0x1a, 0x85}
	if string(b) != string(want) {
		t.Errorf("12345.6789 encodes as %v, want %v", b, want)
	}
}

func TestDate(t *testing.T) {
	d, err := ParseDate("2024-02-29")
	if err != nil || FormatDate(d) != "2024-02-29" {
		t.Fatalf("2024-02-29: %d %v", d, err)
	}
	if d2, _ := ParseDate("2024-02-29 23:59:59"); d2 != d {
		t.Errorf("timestamp text gives day %d, want %d", d2, d)
	}
	if got := TimestampToDate(-1); FormatDate(got) != "1969-12-31" {
		t.Errorf("1 µs before the epoch is %s", FormatDate(got))
	}
	if us, ok := DateToTimestamp(d); !ok || FormatTimestamp(us) != "2024-02-29 00:00:00" {
		t.Errorf("date to timestamp: %d %v", us, ok)
	}
	if _, err := ParseDate("2024-13-01"); err == nil {
		t.Error("month 13 parsed")
	}
}

// TestFormatFloatAsPostgres checks float8 output against Postgres 16's.
func TestFormatFloatAsPostgres(t *testing.T) {
	for f, want := range map[float64]string{
		0.30000000000000004: "0.30000000000000004", 66666666.656666666: "66666666.656666666", 1e15: "1e+15",
		123456789012345: "123456789012345", 0.0001: "0.0001", 0.00001: "1e-05", 1234567: "1234567",
		-2.5: "-2.5", 0: "0", 1.5e300: "1.5e+300",
	} {
		if got := FormatFloat(f); got != want {
			t.Errorf("FormatFloat(%v) = %s, want %s", f, got, want)
		}
	}
}
