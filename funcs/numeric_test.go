package funcs

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/types"
)

// TestNumericMath checks the NUMERIC overloads of LN, LOG, EXP, SQRT and
// POWER against the text Postgres 15 prints for the same calls (every
// argument a numeric literal).
func TestNumericMath(t *testing.T) {
	tests := []struct{ call, want string }{
		{"ln(2.0)", "0.6931471805599453"},
		{"ln(10.0)", "2.3025850929940457"},
		{"ln(1.0000000001)", "0.00000000009999999999500000"},
		{"ln(0.5)", "-0.6931471805599453"},
		{"ln(123456789012345678901234567890.123)", "66.985688719142977"},
		{"ln(0.00000000000000000001)", "-46.05170185988091368036"},
		{"ln(1.05)", "0.048790164169432003"},
		{"ln(0.95)", "-0.051293294387550533"},
		{"ln(9999.9999)", "9.2103403619761827"},
		{"log(2.0)", "0.3010299956639812"},
		{"log(100.0)", "2.0000000000000000"},
		{"log(0.001)", "-3.0000000000000000"},
		{"log(1.5)", "0.1760912590556812"},
		{"log(2.0, 1.125)", "0.1699250014423124"},
		{"log(2.0, 1024)", "10.0000000000000000"},
		{"log(10.0, 0.5)", "-0.3010299956639812"},
		{"log(1.0000001, 2.0)", "6931472.152173038"},
		{"log(0.5, 8.000)", "-3.0000000000000000"},
		{"log(3, 81)", "4.0000000000000000"},
		{"exp(1.0)", "2.7182818284590452"},
		{"exp(0.0)", "1.0000000000000000"},
		{"exp(-1.5)", "0.2231301601484298"},
		{"exp(100.5)", "44319559098458954160107061979564816895899481.9"},
		{"exp(-100.5)", "0.00000000000000000000000000000000000000000002256340135917036"},
		{"exp(10.123456789012345678)", "24920.767949317574211654"},
		{"exp(1000.0)", "197007111401704699388887935224332312531693798532384578995280299138506385078244119347497807656302688993096381798752022693598298173054461289923262783660152825232320535169584566756192271567602788071422466826314006855168508653497941660316045367817938092905299728580132869945856470286534375900456564355589156220422320260518826112288638358372248724725214506150418881937494100871264232248436315760560377439930623959705844189509050047074217568.2"},
		{"sqrt(2.0)", "1.414213562373095"},
		{"sqrt(0.0)", "0.000000000000000"},
		{"sqrt(16.0)", "4.000000000000000"},
		{"sqrt(123456789.123456789)", "11111.11106611111"},
		{"sqrt(0.0000000001)", "0.000010000000000000000"},
		{"sqrt(1e100)", "100000000000000000000000000000000000000000000000000"},
		{"sqrt(99999999.0)", "9999.9999499999999"},
		{"power(2.0, 10)", "1024.0000000000000000"},
		{"power(2.0, 0.5)", "1.4142135623730950"},
		{"power(2.0, -3)", "0.1250000000000000"},
		{"power(1.5, 3.0)", "3.3750000000000000"},
		{"power(-2.0, 3)", "-8.0000000000000000"},
		{"power(-2.0, -3)", "-0.1250000000000000"},
		{"power(0.0, 0)", "1.0000000000000000"},
		{"power(0.0, 0.5)", "0.0000000000000000"},
		{"power(10.0, 20)", "100000000000000000000.0000000000000000"},
		{"power(1.1, 1000)", "246993291800582633412408838508522147770973.3385238396234869"},
		{"power(3.0, -5)", "0.0041152263374486"},
		{"power(0.5, 60)", "0.0000000000000000"},
		{"power(1.0001, 100000)", "22015.4560485521986457"},
		{"power(2.5, 1.5)", "3.9528470752104742"},
		{"power(12.5, -2.25)", "0.003403709374044793"},
		{"power(0.9, 100.5)", "0.00002519835549751174"},
		{"power(1.00000001, 2.5)", "1.0000000250000002"},
		{"power(7.123456, 3)", "361.4699827029512028"},
		{"power(100.0, 0.000001)", "1.0000046051807898"},
	}
	for _, tt := range tests {
		if got := numCall(t, tt.call); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.call, got, tt.want)
		}
	}
}

// TestNumericMathErrors checks the errors against Postgres 15's SQLSTATE
// and message for the same calls.
func TestNumericMathErrors(t *testing.T) {
	tests := []struct{ call, want string }{
		{"log(1, 2.0)", "22012: division by zero"},
		{"ln(0.0)", "2201E: cannot take logarithm of zero"},
		{"ln(-1.0)", "2201E: cannot take logarithm of a negative number"},
		{"log(0.0, 2)", "2201E: cannot take logarithm of zero"},
		{"log(2.0, -1)", "2201E: cannot take logarithm of a negative number"},
		{"log(-0.001)", "2201E: cannot take logarithm of a negative number"},
		{"sqrt(-1.0)", "2201F: cannot take square root of a negative number"},
		{"power(0.0, -1)", "2201F: zero raised to a negative power is undefined"},
		{"power(0.0, -1.5)", "2201F: zero raised to a negative power is undefined"},
		{"power(-2.0, 0.5)", "2201F: a negative number raised to a non-integer power yields a complex result"},
		{"exp(6000.0)", "22003: value overflows numeric format"},
		{"power(10.0, 200000)", "22003: value overflows numeric format"},
		{"power(10.0, 7000.5)", "22003: value overflows numeric format"},
	}
	for _, tt := range tests {
		if got := numCall(t, tt.call); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.call, got, tt.want)
		}
	}
}

// TestLogBaseOfDoubles checks that LOG(b, x) converts double arguments
// as float8::numeric does and answers in numeric: log(2, 1.125::float8)
// is Postgres's log(2::numeric, 1.125::float8::numeric). (The
// differential test found 0.16992500144231237, the double quotient.)
func TestLogBaseOfDoubles(t *testing.T) {
	f, _ := Lookup("log")
	got, err := f.Impl.Call([]types.Value{types.FloatValue(2), types.FloatValue(1.125)})
	if err != nil || got.K != types.Decimal || types.FormatDecimal(got) != "0.1699250014423124" {
		t.Fatalf("log(2, 1.125::float8) = %v, %v; want numeric 0.1699250014423124", got, err)
	}
}

// numCall evaluates a call written as name(numeric literals) and returns
// its numeric text or "SQLSTATE: message".
func numCall(t *testing.T, call string) string {
	t.Helper()
	name, rest, _ := strings.Cut(call, "(")
	var args []types.Value
	for _, a := range strings.Split(strings.TrimSuffix(rest, ")"), ", ") {
		v, err := types.ParseDecimal(a)
		if err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		args = append(args, v)
	}
	f, _ := Lookup(name)
	got, err := f.Impl.Call(args)
	switch {
	case err != nil:
		return err.Code + ": " + err.Msg
	case got.K != types.Decimal:
		return "not numeric: " + got.String()
	}
	return types.FormatDecimal(got)
}
