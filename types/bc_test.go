package types

import (
	"testing"
	"time"
)

// TestFormatBeforeChrist: years before 1 AD print as Postgres prints them,
// counted back from 1 BC with " BC" at the very end (after a time zone
// offset too); Go's year 0 is 1 BC.
func TestFormatBeforeChrist(t *testing.T) {
	us := func(y int, mon time.Month, d, h int) int64 {
		return time.Date(y, mon, d, h, 0, 0, 0, time.UTC).UnixMicro()
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{FormatTimestamp(us(1, 1, 1, 0)), "0001-01-01 00:00:00"},
		{FormatTimestamp(us(0, 1, 1, 0)), "0001-01-01 00:00:00 BC"},
		{FormatTimestamp(us(0, 12, 31, 23) + 500_000), "0001-12-31 23:00:00.5 BC"},
		{FormatTimestamp(us(-43, 3, 15, 12)), "0044-03-15 12:00:00 BC"},
		{FormatDate(us(0, 1, 1, 0) / Day), "0001-01-01 BC"},
		{FormatDate(us(1, 1, 1, 0) / Day), "0001-01-01"},
		{FormatTimestampTZ(us(0, 6, 1, 12), time.UTC), "0001-06-01 12:00:00+00 BC"},
		{FormatTimestampTZ(us(0, 6, 1, 12), berlin), "0001-06-01 12:53:28+00:53:28 BC"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestParseBeforeChrist: the BC forms read back to the same instant, a
// leap day of a BC leap year (5 BC is Go's year -4) included, and a BC
// year that is not a year fails.
func TestParseBeforeChrist(t *testing.T) {
	for _, us := range []int64{
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(),
		time.Date(-43, 3, 15, 12, 0, 0, 500_000_000, time.UTC).UnixMicro(),
		time.Date(-4, 2, 29, 23, 59, 59, 0, time.UTC).UnixMicro(),
		time.Date(-1000, 12, 31, 0, 0, 0, 0, time.UTC).UnixMicro(),
	} {
		text := FormatTimestamp(us)
		if got, err := ParseTimestamp(text); err != nil || got != us {
			t.Errorf("ParseTimestamp(%q) = %d, %v; want %d", text, got, err, us)
		}
		tz := FormatTimestampTZ(us, time.UTC)
		if got, err := ParseTimestampTZ(tz, time.UTC); err != nil || got != us {
			t.Errorf("ParseTimestampTZ(%q) = %d, %v; want %d", tz, got, err, us)
		}
		day := TimestampToDate(us)
		if got, err := ParseDate(FormatDate(day)); err != nil || got != day {
			t.Errorf("ParseDate(%q) = %d, %v; want %d", FormatDate(day), got, err, day)
		}
	}
	for _, bad := range []string{"0000-01-01 BC", "x-01-01 BC", " BC", "-5-01-01 BC"} {
		if _, err := ParseTimestamp(bad); err == nil {
			t.Errorf("ParseTimestamp(%q) accepted", bad)
		}
	}
}
