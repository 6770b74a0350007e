package types

import (
	"testing"
	"time"
)

// TestTimestampTZText: timestamptz text reads with and without an offset
// and prints in the zone asked for, as Postgres prints it.
func TestTimestampTZText(t *testing.T) {
	berlin, err := LoadZone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in, utc, berlin string
	}{
		{"2024-01-01 10:00:00+01", "2024-01-01 09:00:00+00", "2024-01-01 10:00:00+01"},
		{"2024-07-01T09:00:00Z", "2024-07-01 09:00:00+00", "2024-07-01 11:00:00+02"},
		{"2024-01-01 12:00:00.5-03:30", "2024-01-01 15:30:00.5+00", "2024-01-01 16:30:00.5+01"},
		{"2024-01-01 10:00:00", "2024-01-01 09:00:00+00", "2024-01-01 10:00:00+01"},
		{"2024-01-01 10:00:00 UTC", "2024-01-01 10:00:00+00", "2024-01-01 11:00:00+01"},
	} {
		us, err := ParseTimestampTZ(c.in, berlin)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := FormatTimestampTZ(us, mustZone(t, "UTC")); got != c.utc {
			t.Errorf("%s in UTC = %s, want %s", c.in, got, c.utc)
		}
		if got := FormatTimestampTZ(us, berlin); got != c.berlin {
			t.Errorf("%s in Berlin = %s, want %s", c.in, got, c.berlin)
		}
	}
	if _, err := LoadZone("Mars/Olympus"); err == nil {
		t.Error("an unknown zone loaded")
	}
	if FormatOffset(5*3600+30*60) != "+05:30" || FormatOffset(-(53*60+28)) != "-00:53:28" {
		t.Error("FormatOffset")
	}
}

func mustZone(t *testing.T, n string) *time.Location {
	l, err := LoadZone(n)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestTimeText: time of day reads and prints as Postgres's time.
func TestTimeText(t *testing.T) {
	for in, want := range map[string]string{"12:34:56": "12:34:56", "01:02": "01:02:00", "23:59:59.250": "23:59:59.25", "24:00:00": "24:00:00"} {
		us, err := ParseTime(in)
		if err != nil || FormatTime(us) != want {
			t.Errorf("%s = %s, %v; want %s", in, FormatTime(us), err, want)
		}
	}
	for _, bad := range []string{"25:00:00", "12:60", "noon", "24:00:01"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
