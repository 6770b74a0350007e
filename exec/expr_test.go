package exec

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

var exprSchema = types.Schema{
	{Name: "a", Type: types.Int},
	{Name: "b", Type: types.Int},
	{Name: "f", Type: types.Float},
	{Name: "s", Type: types.String},
	{Name: "ts", Type: types.Timestamp},
	{Name: "ok", Type: types.Bool},
	{Name: "iv", Type: types.Interval},
	{Name: "n", Type: types.Int},
	{Name: "ns", Type: types.String},
	{Name: "nb", Type: types.Bool},
	{Name: "z", Type: types.Int},
	{Name: "price", Type: types.Int},
}

func exprRow(t testing.TB) types.Row {
	ts, err := types.ParseTimestamp("2024-01-01 10:11:12.5") // a Monday
	if err != nil {
		t.Fatal(err)
	}
	return types.Row{
		types.IntValue(7), types.IntValue(-2), types.FloatValue(2.5), types.StringValue("Hello"),
		types.TimestampValue(ts), types.BoolValue(true), types.IntervalValue(10 * types.Second),
		types.NullValue, types.NullValue, types.NullValue, types.IntValue(0), types.IntValue(1000),
	}
}

func bindSQL(t testing.TB, expr string) planner.Scalar {
	t.Helper()
	q, err := parser.ParseExpr(expr)
	if err != nil {
		t.Fatalf("parse %q: %v", expr, err)
	}
	s, err := planner.BindExpr(q, exprSchema)
	if err != nil {
		t.Fatalf("bind %q: %v", expr, err)
	}
	return s
}

func TestExprEval(t *testing.T) {
	tests := []struct {
		expr   string
		want   string // Value.String(); "NULL" for NULL
		errors int64  // runtime errors counted
	}{
		// Columns, literals, NULL propagation.
		{"a", "7", 0},
		{"n", "NULL", 0},
		{"NULL", "NULL", 0},
		{"a + n", "NULL", 0},
		{"n * 2", "NULL", 0},
		{"-a", "-7", 0},
		{"-f", "-2.5", 0},
		// Integer arithmetic with Postgres semantics.
		{"a + b", "5", 0},
		{"a - b", "9", 0},
		{"a * b", "-14", 0},
		{"a / 2", "3", 0},
		{"-7 / 2", "-3", 0},
		{"a / b", "-3", 0},
		{"a % 3", "1", 0},
		{"-7 % 3", "-1", 0},
		{"a % b", "1", 0},
		{"a % -1", "0", 0},
		{"a / z", "NULL", 1},
		{"a % z", "NULL", 1},
		{"a / 0", "NULL", 1},
		{"9223372036854775807 + a", "NULL", 1},
		{"-9223372036854775807 - a", "NULL", 1},
		{"4611686018427387904 * a", "NULL", 1},
		{"a DIV 2", "3", 0},
		// Float arithmetic.
		{"f * 2", "5", 0},
		{"0.908 * price", "908.000", 0},
		{"price * 0.5", "500.0", 0},
		{"f + a", "9.5", 0},
		{"a - f", "4.5", 0},
		{"f - 1", "1.5", 0},
		{"a / 2.0", "3.5000000000000000", 0},
		{"f / 0", "NULL", 1},
		{"f % 2", "0.5", 0},
		{"1 + 2.5 * a", "18.5", 0},
		// Decimal arithmetic: exact, with Postgres's result scales.
		{"0.10 + 0.20", "0.30", 0},
		{"0.10 * 0.20", "0.0200", 0},
		{"1 / 3.0", "0.33333333333333333333", 0},
		{"1.5 / 0", "NULL", 1},
		{"7.5 % 2", "1.5", 0},
		{"-(a + 0.5)", "-7.5", 0},
		{"f + 0.5", "3", 0},
		{"CAST(f AS DECIMAL)", "2.5", 0},
		{"CAST(f * 100 AS DECIMAL(3,1))", "NULL", 1},
		{"CAST(0.5 AS SIGNED)", "1", 0},
		{"CAST(-2.5 AS SIGNED)", "-3", 0},
		{"CAST(0.1 AS DOUBLE) + 0.2", "0.30000000000000004", 0},
		{"CAST('1.005' AS DECIMAL(4,2))", "1.01", 0},
		{"round(2.5)", "3", 0},
		{"round(-2.5)", "-3", 0},
		{"round(1.005, 2)", "1.01", 0},
		{"round(1.5, 3)", "1.500", 0},
		{"floor(-1.5)", "-2", 0},
		{"ceil(1.2)", "2", 0},
		{"abs(-1.50)", "1.50", 0},
		{"sign(-1.5)", "-1", 0},
		{"0.1 = 0.10", "t", 0},
		{"a = 7.0", "t", 0},
		{"f = 2.50", "t", 0},
		{"a < 7.01", "t", 0},
		// Dates.
		{"CAST(ts AS DATE) + 1", "2024-01-02", 0},
		{"1 + CAST(ts AS DATE)", "2024-01-02", 0},
		{"CAST('2024-03-01' AS DATE) - 1", "2024-02-29", 0},
		{"CAST(ts AS DATE) - CAST('2023-12-25' AS DATE)", "7", 0},
		{"CAST(ts AS DATE) < ts", "t", 0},
		{"CAST(ts AS DATE) = '2024-01-01'", "t", 0},
		{"CAST(CAST(ts AS DATE) AS DATETIME)", "2024-01-01 00:00:00", 0},
		{"CAST(ts AS DATE) + INTERVAL '1' HOUR", "2024-01-01 01:00:00", 0},
		{"extract(year FROM CAST(ts AS DATE))", "2024", 0},
		{"CAST(CAST(ts AS DATE) AS CHAR)", "2024-01-01", 0},
		{"CAST(s AS DATE)", "NULL", 1},
		// Comparisons.
		{"a = 7", "t", 0},
		{"a <> 7", "f", 0},
		{"a < b", "f", 0},
		{"a >= 7.0", "t", 0},
		{"f > a", "f", 0},
		{"f < 3", "t", 0},
		{"a % 7 = 0", "t", 0},
		{"n = 1", "NULL", 0},
		{"s = 'Hello'", "t", 0},
		{"s < 'Z'", "t", 0},
		{"ts > '2024-01-01'", "t", 0},
		{"ts = '2024-01-01 10:11:12.5'", "t", 0},
		{"iv > '5 seconds'", "t", 0},
		{"ok = TRUE", "t", 0},
		{"n <=> NULL", "t", 0},
		{"a <=> NULL", "f", 0},
		{"a <=> 7", "t", 0},
		// Three-valued logic.
		{"ok AND nb", "NULL", 0},
		{"NOT ok AND nb", "f", 0},
		{"nb AND FALSE", "f", 0},
		{"ok OR nb", "t", 0},
		{"nb OR FALSE", "NULL", 0},
		{"nb OR TRUE", "t", 0},
		{"NOT nb", "NULL", 0},
		{"NOT ok", "f", 0},
		{"ok XOR ok", "f", 0},
		{"n IS NULL", "t", 0},
		{"a IS NULL", "f", 0},
		{"n IS NOT NULL", "f", 0},
		{"nb IS TRUE", "f", 0},
		{"nb IS NOT TRUE", "t", 0},
		{"nb IS FALSE", "f", 0},
		{"nb IS NOT FALSE", "t", 0},
		{"ok IS TRUE", "t", 0},
		{"ok IS FALSE", "f", 0},
		// BETWEEN and IN.
		{"a BETWEEN 1 AND 10", "t", 0},
		{"a NOT BETWEEN 1 AND 10", "f", 0},
		{"a BETWEEN 8 AND 10", "f", 0},
		{"n BETWEEN 1 AND 10", "NULL", 0},
		{"ts BETWEEN ts - INTERVAL 1 MINUTE AND ts + INTERVAL 1 HOUR", "t", 0},
		{"a IN (1, 7)", "t", 0},
		{"a IN (1, 2)", "f", 0},
		{"a IN (1, NULL)", "NULL", 0},
		{"a IN (7, NULL)", "t", 0},
		{"a NOT IN (1, 2)", "t", 0},
		{"n IN (1, 2)", "NULL", 0},
		{"a IN (b, 7.0)", "t", 0},
		{"a IN (b, n)", "NULL", 0},
		{"s IN ('x', 'Hello')", "t", 0},
		// LIKE.
		{"s LIKE 'He%'", "t", 0},
		{"s LIKE '%llo'", "t", 0},
		{"s LIKE '%ll%'", "t", 0},
		{"s LIKE 'Hello'", "t", 0},
		{"s LIKE 'hello'", "f", 0},
		{"s LIKE 'H_llo'", "t", 0},
		{"s LIKE 'H%l_'", "t", 0},
		{"s LIKE '%'", "t", 0},
		{"s LIKE '_'", "f", 0},
		{"s LIKE 'H%x%'", "f", 0},
		{"s NOT LIKE 'x%'", "t", 0},
		{"ns LIKE 'x%'", "NULL", 0},
		{"s ILIKE 'hE%'", "t", 0},
		{"'a%b' LIKE 'a\\%b'", "t", 0},
		{"'axb' LIKE 'a\\\\%b'", "f", 0},
		{"'a%b' LIKE 'a!%b' ESCAPE '!'", "t", 0},
		{"'aé€c' LIKE 'a__c'", "t", 0},
		{"s LIKE concat('%', 'l', '%')", "t", 0},
		{"s LIKE concat('H', '_', 'llo')", "t", 0},
		// CASE, COALESCE and friends.
		{"CASE WHEN a > 5 THEN 'big' ELSE 'small' END", "big", 0},
		{"CASE WHEN nb THEN 1 ELSE 2 END", "2", 0},
		{"CASE WHEN a > 50 THEN 1 END", "NULL", 0},
		{"CASE a WHEN 1 THEN 'one' WHEN 7 THEN 'seven' END", "seven", 0},
		{"CASE n WHEN 1 THEN 'one' ELSE 'other' END", "other", 0},
		{"CASE WHEN ok THEN a ELSE f END", "7", 0},
		{"coalesce(n, a)", "7", 0},
		{"coalesce(n, NULL)", "NULL", 0},
		{"coalesce(ns, 'none')", "none", 0},
		{"ifnull(n, 3)", "3", 0},
		{"nullif(a, 7)", "NULL", 0},
		{"nullif(a, 1)", "7", 0},
		{"nullif(a, n)", "7", 0},
		{"if(ok, 'y', 'n')", "y", 0},
		{"greatest(a, b, n, 3)", "7", 0},
		{"least(a, b, n, 3)", "-2", 0},
		{"greatest(a, f)", "7", 0},
		{"greatest(n, NULL)", "NULL", 0},
		// Casts.
		{"CAST(a AS CHAR)", "7", 0},
		{"CAST(f AS SIGNED)", "3", 0},
		{"CAST(-2.5 AS SIGNED)", "-3", 0},
		{"CAST(CAST(2.4 AS DOUBLE) AS SIGNED)", "2", 0},
		{"CAST(s AS SIGNED)", "NULL", 1},
		{"CAST(concat('4', '2') AS SIGNED)", "42", 0},
		{"CAST(concat('1', '.5') AS DOUBLE)", "1.5", 0},
		{"CAST(a AS DOUBLE)", "7", 0},
		{"CAST(ts AS CHAR)", "2024-01-01 10:11:12.5", 0},
		{"CAST(ok AS CHAR)", "true", 0},
		{"CAST(ok AS SIGNED)", "1", 0},
		{"CAST(concat('2024-02-03', ' 04:05:06') AS DATETIME)", "2024-02-03 04:05:06", 0},
		{"CAST(s AS DATETIME)", "NULL", 1},
		{"CAST(ts AS DATE)", "2024-01-01", 0},
		{"CAST(f AS DECIMAL(10,2))", "2.50", 0},
		{"CAST(n AS CHAR)", "NULL", 0},
		{"CAST(iv AS CHAR)", "00:00:10", 0},
		// Timestamps and intervals.
		{"ts - INTERVAL '5' SECOND", "2024-01-01 10:11:07.5", 0},
		{"ts + INTERVAL 1 DAY", "2024-01-02 10:11:12.5", 0},
		{"ts + INTERVAL '1.5' SECOND", "2024-01-01 10:11:14", 0},
		{"ts + iv", "2024-01-01 10:11:22.5", 0},
		{"ts - '2024-01-01'", "10:11:12.5", 0},
		{"ts - ts", "00:00:00", 0},
		{"iv * 3", "00:00:30", 0},
		{"iv * 1.5", "00:00:15", 0},
		{"iv / 4", "00:00:02.5", 0},
		{"iv / z", "NULL", 1},
		{"-iv", "-00:00:10", 0},
		{"EXTRACT(HOUR FROM ts)", "10", 0},
		{"EXTRACT(MINUTE FROM ts)", "11", 0},
		{"EXTRACT(SECOND FROM ts)", "12.5", 0},
		{"EXTRACT(MICROSECOND FROM ts)", "12500000", 0},
		{"EXTRACT(DAY FROM ts)", "1", 0},
		{"EXTRACT(MONTH FROM ts)", "1", 0},
		{"EXTRACT(YEAR FROM ts)", "2024", 0},
		{"EXTRACT(QUARTER FROM ts)", "1", 0},
		{"EXTRACT(WEEK FROM ts)", "1", 0},
		{"date_part('dow', ts)", "1", 0},
		{"date_part('isodow', ts)", "1", 0},
		{"date_part('doy', ts)", "1", 0},
		{"date_part('epoch', ts)", "1704103872.5", 0},
		{"date_part('milliseconds', ts)", "12500", 0},
		{"date_trunc('second', ts)", "2024-01-01 10:11:12", 0},
		{"date_trunc('minute', ts)", "2024-01-01 10:11:00", 0},
		{"date_trunc('hour', ts)", "2024-01-01 10:00:00", 0},
		{"date_trunc('day', ts)", "2024-01-01 00:00:00", 0},
		{"date_trunc('week', ts + INTERVAL 3 DAY)", "2024-01-01 00:00:00", 0},
		{"date_trunc('month', ts + INTERVAL 40 DAY)", "2024-02-01 00:00:00", 0},
		{"date_trunc('quarter', ts + INTERVAL 100 DAY)", "2024-04-01 00:00:00", 0},
		{"date_trunc('year', ts)", "2024-01-01 00:00:00", 0},
		{"date_trunc('minute', CAST('1969-12-31 23:59:59.5' AS DATETIME))", "1969-12-31 23:59:00", 0},
		{"EXTRACT(SECOND FROM CAST('1969-12-31 23:59:59.5' AS DATETIME))", "59.5", 0},
		{"to_timestamp(1704067200)", "2024-01-01 00:00:00", 0},
		{"to_timestamp(1.5)", "1970-01-01 00:00:01.5", 0},
		// Strings.
		{"lower(s)", "hello", 0},
		{"upper(s)", "HELLO", 0},
		{"length(s)", "5", 0},
		{"char_length('héllo')", "5", 0},
		{"length(ns)", "NULL", 0},
		{"substr(s, 2)", "ello", 0},
		{"substr(s, 2, 3)", "ell", 0},
		{"substring(s FROM 0 FOR 2)", "H", 0},
		{"substr(s, 10)", "", 0},
		{"substr(s, 2, -1)", "NULL", 1},
		{"substr('héllo', 2, 2)", "él", 0},
		{"concat(s, ' ', a, ' ', ok)", "Hello 7 true", 0},
		{"s || '!'", "Hello!", 0},
		{"s || ns", "NULL", 0},
		{"trim('  x  ')", "x", 0},
		{"trim('x' FROM 'xxaxx')", "a", 0},
		{"trim(LEADING 'x' FROM 'xxaxx')", "axx", 0},
		{"trim(TRAILING 'x' FROM 'xxaxx')", "xxa", 0},
		{"replace(s, 'l', 'L')", "HeLLo", 0},
		{"replace(s, '', 'L')", "Hello", 0},
		{"position('l' IN s)", "3", 0},
		{"instr(s, 'z')", "0", 0},
		{"position('l' IN 'héllo')", "3", 0},
		{"split_part('a,b,c', ',', 2)", "b", 0},
		{"split_part('a,b,c', ',', -1)", "c", 0},
		{"split_part('a,b,c', ',', 5)", "", 0},
		{"split_part('a,b,c', ',', 0)", "NULL", 1},
		{"left(s, 2)", "He", 0},
		{"left(s, -2)", "Hel", 0},
		{"right(s, 2)", "lo", 0},
		{"right(s, -2)", "llo", 0},
		{"right(s, 10)", "Hello", 0},
		// Math.
		{"abs(b)", "2", 0},
		{"abs(-2.5)", "2.5", 0},
		{"floor(f)", "2", 0},
		{"ceil(f)", "3", 0},
		{"ceil(a)", "7", 0},
		{"round(f)", "3", 0},
		{"round(-2.5)", "-3", 0},
		{"round(3.14159, 2)", "3.14", 0},
		{"round(a, 1)", "7.0", 0},
		{"power(2, 10)", "1024", 0},
		{"power(-8, 0.5)", "NULL", 1},
		{"power(0, -1)", "NULL", 1},
		{"sqrt(16)", "4", 0},
		{"sqrt(-1)", "NULL", 1},
		{"ln(1)", "0", 0},
		{"ln(0)", "NULL", 1},
		{"log(100)", "2", 0},
		{"log(2, 8)", "3.0000000000000000", 0}, // numeric, as in Postgres
		{"sqrt(2.0)", "1.414213562373095", 0},
		{"ln(0.0)", "NULL", 1},
		{"log(-1)", "NULL", 1},
		{"mod(a, 4)", "3", 0},
	}
	row := exprRow(t)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s := bindSQL(t, tt.expr)
			errs := &EvalErrors{}
			ev, err := CompileScalar(s, errs)
			if err != nil {
				t.Fatalf("compile %s: %v", s, err)
			}
			v := ev(row)
			if got := v.String(); got != tt.want {
				t.Errorf("%s = %q, want %q", s, got, tt.want)
			}
			if v.K != types.Null && v.K != s.Type() {
				t.Errorf("%s: value kind %v, expression type %v", s, v.K, s.Type())
			}
			if got := errs.Count.Load(); got != tt.errors {
				t.Errorf("%s: %d errors counted, want %d (last %v)", s, got, tt.errors, errs.Last.Load())
			}
			if tt.errors > 0 && errs.Last.Load() == nil {
				t.Errorf("%s: Last not set", s)
			}
		})
	}
}

func TestExprFilter(t *testing.T) {
	tests := []struct {
		expr string
		want bool
	}{
		{"a % 7 = 0", true},
		{"a % 2 = 0", false},
		{"nb", false},
		{"NOT nb", false},
		{"nb OR a > 1", true},
		{"nb AND a > 1", false},
		{"a > 1 AND (b < 0 OR nb)", true},
		{"n = 1 OR s LIKE 'H%'", true},
		{"a / z = 1", false},
	}
	row := exprRow(t)
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			f, err := CompileFilter(bindSQL(t, tt.expr), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := f(row); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if _, err := CompileFilter(bindSQL(t, "a + 1"), nil); sqlerr.Code(err) != sqlerr.DatatypeMismatch {
		t.Errorf("non-boolean filter: got %v", err)
	}
}

func TestExprShortRowIsNull(t *testing.T) {
	for _, e := range []string{"a", "a % 3", "0.5 * price", "a + b", "a = 1"} {
		ev, err := CompileScalar(bindSQL(t, e), nil)
		if err != nil {
			t.Fatal(err)
		}
		if v := ev(types.Row{}); v.K != types.Null {
			t.Errorf("%s over an empty row = %v, want NULL", e, v)
		}
	}
}

func TestExprCompileErrors(t *testing.T) {
	tests := []struct {
		expr, code string
	}{
		{"now()", sqlerr.FeatureNotSupport},
		{"s LIKE 'ab\\'", "22025"},
	}
	for _, tt := range tests {
		_, err := CompileScalar(bindSQL(t, tt.expr), nil)
		if sqlerr.Code(err) != tt.code {
			t.Errorf("%s: got %v, want %s", tt.expr, err, tt.code)
		}
	}
	if _, err := CompileScalar(&planner.Call{Fn: "nosuch", T: types.Int}, nil); err == nil {
		t.Error("unknown function compiled")
	}
}

func TestExprCastMatrix(t *testing.T) {
	tests := []struct {
		in   types.Value
		to   types.Kind
		want string
		code string
	}{
		{types.StringValue(" 42 "), types.Int, "42", ""},
		{types.StringValue("4.2"), types.Int, "", "22P02"},
		{types.StringValue("1e3"), types.Float, "1000", ""},
		{types.StringValue("Infinity"), types.Float, "Infinity", ""},
		{types.StringValue("yes"), types.Bool, "t", ""},
		{types.StringValue("F"), types.Bool, "f", ""},
		{types.StringValue("maybe"), types.Bool, "", "22P02"},
		{types.StringValue("2024-01-01T00:00:05Z"), types.Timestamp, "2024-01-01 00:00:05", ""},
		{types.StringValue("nope"), types.Timestamp, "", sqlerr.InvalidDatetime},
		{types.StringValue("1 minute"), types.Interval, "00:01:00", ""},
		{types.FloatValue(2.5), types.Int, "3", ""},
		{types.FloatValue(-0.5), types.Int, "-1", ""},
		{types.FloatValue(1e300), types.Int, "", "22003"},
		{types.IntValue(3), types.Float, "3", ""},
		{types.IntValue(0), types.Bool, "f", ""},
		{types.BoolValue(false), types.String, "false", ""},
		{types.FloatValue(0.1), types.String, "0.1", ""},
		{types.TimestampValue(0), types.Int, "", "42846"},
	}
	for _, tt := range tests {
		v, err := castValue(tt.in, tt.to)
		switch {
		case tt.code != "":
			if err == nil || err.Code != tt.code {
				t.Errorf("cast %v to %v: got %v, %v; want code %s", tt.in, tt.to, v, err, tt.code)
			}
		case err != nil || v.String() != tt.want || v.K != tt.to:
			t.Errorf("cast %v to %v = %v (%v), %v; want %s", tt.in, tt.to, v, v.K, err, tt.want)
		}
	}
}

func TestEvalConst(t *testing.T) {
	v, err := EvalConst(bindSQL(t, "1 + 2 * 3"))
	if err != nil || v != types.IntValue(7) {
		t.Fatalf("got %v, %v", v, err)
	}
	v, err = EvalConst(bindSQL(t, "CAST('2024-01-01' AS DATETIME) + INTERVAL 1 HOUR"))
	if err != nil || v.String() != "2024-01-01 01:00:00" {
		t.Fatalf("got %v, %v", v, err)
	}
	if _, err = EvalConst(bindSQL(t, "1 / 0")); sqlerr.Code(err) != sqlerr.DivisionByZero {
		t.Fatalf("1/0: got %v", err)
	}
	if _, err = EvalConst(bindSQL(t, "a + 1")); err == nil || !strings.Contains(err.Error(), "reads columns") {
		t.Fatalf("column: got %v", err)
	}
}

func TestLikeMatch(t *testing.T) {
	tests := []struct {
		s, p string
		want bool
	}{
		{"", "", true},
		{"", "%", true},
		{"", "_", false},
		{"abc", "a%c", true},
		{"abc", "%b%", true},
		{"abcbd", "a%b_", true},
		{"aaa", "%a%a%a%", true},
		{"aa", "%a%a%a%", false},
		{"mississippi", "m%iss%pi", true},
		{"mississippi", "m%iss%px", false},
	}
	for _, tt := range tests {
		toks, err := parseLike(tt.p, '\\')
		if err != nil {
			t.Fatal(err)
		}
		if got := likeMatch(tt.s, toks); got != tt.want {
			t.Errorf("likeMatch(%q, %q) = %v", tt.s, tt.p, got)
		}
		if got := likeMatcher(toks)(tt.s); got != tt.want {
			t.Errorf("likeMatcher(%q)(%q) = %v", tt.p, tt.s, got)
		}
	}
}
