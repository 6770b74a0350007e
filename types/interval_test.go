package types

import (
	"errors"
	"testing"
)

// TestIntervalTextRoundTrip checks interval input against the text
// Postgres prints for it (its default IntervalStyle), and that the
// printed text reads back as the same parts.
func TestIntervalTextRoundTrip(t *testing.T) {
	cases := []struct{ in, unit, want string }{
		{"1", "mon", "1 mon"},
		{"1 year 2 mons", "", "1 year 2 mons"},
		{"1 day 02:00:00", "", "1 day 02:00:00"},
		{"36 hours", "", "36:00:00"},
		{"90", "min", "01:30:00"},
		{"10", "", "00:00:10"},
		{"10s", "", "00:00:10"},
		{"1.5 months", "", "1 mon 15 days"},
		{"1.5 days", "", "1 day 12:00:00"},
		{"1.5 years", "", "1 year 6 mons"},
		{"2 decades 1 century", "", "120 years"},
		{"1 week", "", "7 days"},
		{"1 day ago", "", "-1 days"},
		{"@ 3 days 4 hours", "", "3 days 04:00:00"},
		{"-1 day +02:00", "", "-1 days +02:00:00"},
		{"1 mon -1 days", "", "1 mon -1 days"},
		{"-00:00:00.5", "", "-00:00:00.5"},
		{"0", "", "00:00:00"},
		{"1500 ms", "", "00:00:01.5"},
		{"-2 years -3 mons", "", "-2 years -3 mons"},
	}
	for _, c := range cases {
		v, err := ParseIntervalValue(c.in, c.unit)
		if err != nil {
			t.Errorf("ParseIntervalValue(%q, %q): %v", c.in, c.unit, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("ParseIntervalValue(%q, %q) prints %q, want %q", c.in, c.unit, got, c.want)
		}
		back, err := ParseIntervalValue(v.String(), "")
		if err != nil || back != v {
			t.Errorf("%q reads back as %v (%v), want %v", v.String(), back, err, v)
		}
	}
	for _, bad := range []string{"", "soon", "1 fortnight", "1:99", "ago", "1e400 days", "99999999999 years"} {
		if v, err := ParseIntervalValue(bad, ""); err == nil {
			t.Errorf("ParseIntervalValue(%q) = %v, want an error", bad, v)
		}
	}
}

// TestTimestampAddInterval checks calendar arithmetic: a month added to
// the 31st lands on the month's last day, days and time add after it.
func TestTimestampAddInterval(t *testing.T) {
	ts := func(s string) int64 {
		us, err := ParseTimestamp(s)
		if err != nil {
			t.Fatal(err)
		}
		return us
	}
	cases := []struct{ ts, iv, want string }{
		{"2024-01-31 10:00:00", "1 mon", "2024-02-29 10:00:00"},
		{"2023-01-31 10:00:00", "1 mon", "2023-02-28 10:00:00"},
		{"2024-03-31 00:00:00", "-1 mon", "2024-02-29 00:00:00"},
		{"2024-01-31 00:00:00", "1 mon 1 day 01:00", "2024-03-01 01:00:00"},
		{"2024-12-15 00:00:00", "1 year 1 mon", "2026-01-15 00:00:00"},
		{"1969-12-31 23:59:59.5", "1 day", "1970-01-01 23:59:59.5"},
	}
	for _, c := range cases {
		iv, err := ParseIntervalValue(c.iv, "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := TimestampAddInterval(ts(c.ts), iv)
		if err != nil || FormatTimestamp(got) != c.want {
			t.Errorf("%s + %s = %s (%v), want %s", c.ts, c.iv, FormatTimestamp(got), err, c.want)
		}
	}
	if _, err := TimestampAddInterval(1<<62, IntervalOf(0, 0, 1<<62)); !errors.Is(err, ErrTimestampRange) {
		t.Errorf("overflow: %v, want ErrTimestampRange", err)
	}
}

// TestIntervalArithmetic checks scaling (fractions cascade as Postgres's
// interval_mul and interval_div do), subtraction of timestamps and
// comparison with a month as 30 days.
func TestIntervalArithmetic(t *testing.T) {
	iv := func(s string) Value {
		v, err := ParseIntervalValue(s, "")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	check := func(what string, v Value, err error, want string) {
		t.Helper()
		if err != nil || v.String() != want {
			t.Errorf("%s = %v (%v), want %s", what, v, err, want)
		}
	}
	v, err := IntervalScale(iv("1 mon"), 1.5)
	check("1 mon * 1.5", v, err, "1 mon 15 days")
	v, err = IntervalDiv(iv("1 mon"), 7)
	check("1 mon / 7", v, err, "4 days 06:51:25.6896") // Postgres 15 rounds the month remainder to the microsecond first
	v, err = IntervalDiv(iv("1 day"), 4)
	check("1 day / 4", v, err, "06:00:00")
	v, err = IntervalAdd(iv("1 mon"), iv("-1 day 01:00"))
	check("1 mon + -1 day 01:00", v, err, "1 mon -1 days +01:00:00")
	v, err = TimestampSub(-500000, 86400*1_000_000*2)
	check("ts - ts", v, err, "-2 days -00:00:00.5")
	if IntervalCmp(iv("1 mon"), iv("30 days")) != 0 || IntervalCmp(iv("1 day"), iv("24 hours")) != 0 {
		t.Error("1 mon = 30 days and 1 day = 24 hours should compare equal")
	}
	if IntervalCmp(iv("1 year"), iv("361 days")) >= 0 || IntervalCmp(iv("-1 day"), iv("-23:00")) >= 0 {
		t.Error("interval ordering is wrong")
	}
}

// TestIntervalBinary round-trips Postgres's binary interval format.
func TestIntervalBinary(t *testing.T) {
	v := IntervalOf(-14, 3, -7200_000_000)
	b := AppendIntervalBinary(nil, v)
	if len(b) != 16 {
		t.Fatalf("binary interval is %d bytes", len(b))
	}
	back, err := ParseIntervalBinary(b)
	if err != nil || back != v {
		t.Errorf("binary round trip = %v, %v; want %v", back, err, v)
	}
	c, rest, err := DecodeIntervalParts(AppendIntervalParts(nil, v))
	if err != nil || len(rest) != 0 || c != v {
		t.Errorf("codec round trip = %v, %v; want %v", c, err, v)
	}
}
