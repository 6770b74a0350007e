package types

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TimestampTZValue returns a TimestampTZ value from UTC microseconds since
// the epoch.
func TimestampTZValue(us int64) Value { return Value{K: TimestampTZ, I: us} }

// TimeValue returns a Time value from microseconds since midnight.
func TimeValue(us int64) Value { return Value{K: Time, I: us} }

// LoadZone returns the time zone a TimeZone setting or an AT TIME ZONE
// operand names: an IANA name from Go's time zone database
// (`Europe/Berlin`, `America/New_York`), `UTC`, `GMT` or `Z` in any case.
// Postgres's POSIX strings and abbreviations are not accepted.
func LoadZone(name string) (*time.Location, error) {
	n := strings.TrimSpace(name)
	switch strings.ToUpper(n) {
	case "UTC", "GMT", "Z", "ZULU", "ETC/UTC":
		return time.UTC, nil
	case "", "LOCAL":
		return nil, fmt.Errorf("time zone %q not recognized", name)
	}
	loc, err := time.LoadLocation(n)
	if err != nil {
		return nil, fmt.Errorf("time zone %q not recognized", name)
	}
	return loc, nil
}

// ZoneName is the canonical spelling of a zone LoadZone accepts (UTC for
// its aliases); "" when it names no zone.
func ZoneName(name string) string {
	loc, err := LoadZone(name)
	if err != nil {
		return ""
	}
	return loc.String()
}

// FormatTimestampTZ prints UTC microseconds as Postgres prints a
// timestamptz in zone loc: the local time, then the offset in hours
// (`2024-01-01 10:00:00+01`), with minutes and seconds only when they are
// non-zero (`+05:30`).
func FormatTimestampTZ(us int64, loc *time.Location) string {
	t := time.UnixMicro(us).In(loc)
	_, off := t.Zone()
	s, bc := formatLocal(t)
	return s + FormatOffset(off) + bc
}

// formatLocal prints t's wall clock as FormatTimestamp does, with the
// era suffix apart (" BC" before 1 AD, else empty) since it follows
// everything else, a time zone offset included.
func formatLocal(t time.Time) (s, bc string) {
	s, bc = formatCivil(t, "2006-01-02 15:04:05")
	if frac := t.Nanosecond() / 1000; frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	}
	return s, bc
}

// FormatOffset prints a UTC offset in seconds as Postgres does: `+01`,
// `-03:30`, `+00:53:28`.
func FormatOffset(off int) string {
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	s := fmt.Sprintf("%c%02d", sign, off/3600)
	if m, sec := off/60%60, off%60; m != 0 || sec != 0 {
		s += fmt.Sprintf(":%02d", m)
		if sec != 0 {
			s += fmt.Sprintf(":%02d", sec)
		}
	}
	return s
}

// tzSuffix splits timestamp text into its local part and an explicit UTC
// offset or zone (`+01`, `-03:30`, `Z`, `UTC`, ` Europe/Berlin`), which
// follows a time of day.
var tzSuffix = regexp.MustCompile(`^(.*\d:\d\d(?::\d\d(?:\.\d+)?)?)\s*(Z|[+-]\d\d?(?::?\d\d(?::?\d\d)?)?|[A-Za-z][A-Za-z_/+-]*)$`)

// ParseTimestampTZ reads timestamptz text: a timestamp ParseTimestamp
// accepts, with an optional UTC offset or zone name after the time of day
// (`2024-01-01 10:00:00+01`, `2024-01-01T09:00:00Z`,
// `2024-01-01 10:00:00 Europe/Berlin`); without one the local time is in
// loc. It returns UTC microseconds.
func ParseTimestampTZ(s string, loc *time.Location) (int64, error) {
	t := strings.TrimSpace(s)
	era := ""
	if rest, ok := strings.CutSuffix(t, " BC"); ok {
		t, era = rest, " BC" // the era follows the offset (FormatTimestampTZ)
	}
	if m := tzSuffix.FindStringSubmatch(t); m != nil {
		local, err := ParseTimestamp(strings.Replace(m[1], "T", " ", 1) + era)
		if err != nil {
			return 0, err
		}
		zone, err := zoneOf(m[2])
		if err != nil {
			return 0, fmt.Errorf("invalid input syntax for type timestamp with time zone: %q: %w", s, err)
		}
		return LocalToUTC(local, zone), nil
	}
	local, err := ParseTimestamp(t + era)
	if err != nil {
		return 0, err
	}
	return LocalToUTC(local, loc), nil
}

// zoneOf reads an offset (`+01`, `-0330`, `+05:30`) or a zone name.
func zoneOf(z string) (*time.Location, error) {
	if z[0] != '+' && z[0] != '-' {
		return LoadZone(z)
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	if len(digits)%2 == 1 {
		digits = "0" + digits
	}
	off := 0
	for i, mul := 0, 3600; i < len(digits); i, mul = i+2, mul/60 {
		n, _ := strconv.Atoi(digits[i : i+2])
		off += n * mul
	}
	if off > 15*3600+59*60 {
		return nil, fmt.Errorf("time zone displacement out of range: %q", z)
	}
	if z[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off), nil
}

// LocalToUTC returns the instant a wall-clock timestamp (microseconds, as
// a TIMESTAMP holds it) names in zone loc. A wall time a daylight-saving
// transition skips or repeats is resolved as Go's time.Date resolves it
// (docs/sql.md).
func LocalToUTC(local int64, loc *time.Location) int64 {
	w := time.UnixMicro(local).UTC()
	t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
	return t.UnixMicro()
}

// UTCToLocal returns the wall-clock timestamp (microseconds, as a
// TIMESTAMP holds it) of instant us in zone loc.
func UTCToLocal(us int64, loc *time.Location) int64 {
	t := time.UnixMicro(us).In(loc)
	_, off := t.Zone()
	return us + int64(off)*Second
}

// TimeAddInterval is time + interval as Postgres computes it: the
// interval's time part added on a 24-hour clock (months and days do not
// move a time of day), wrapping around midnight.
func TimeAddInterval(us int64, iv Value) int64 {
	r := (us + iv.I%Day) % Day
	if r < 0 {
		r += Day
	}
	return r
}

// TimeSub is time − time: the interval between two times of day, negative
// when the first is earlier.
func TimeSub(a, b int64) Value { return IntervalOf(0, 0, a-b) }

// FormatTime prints microseconds since midnight as Postgres prints a
// time: `12:34:56`, fractional digits only when non-zero.
func FormatTime(us int64) string {
	s := fmt.Sprintf("%02d:%02d:%02d", us/Hour, us/Minute%60, us/Second%60)
	if frac := us % Second; frac != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	}
	return s
}

// timeText is HH:MM[:SS[.ffffff]].
var timeText = regexp.MustCompile(`^(\d\d?):(\d\d)(?::(\d\d)(?:\.(\d{1,6})\d*)?)?$`)

// ParseTime reads a time of day, `HH:MM[:SS[.ffffff]]` (24:00:00 is the
// end of the day, as in Postgres), or the time of a timestamp text. It
// returns microseconds since midnight.
func ParseTime(s string) (int64, error) {
	t := strings.TrimSpace(s)
	m := timeText.FindStringSubmatch(t)
	if m == nil {
		if us, err := ParseTimestamp(t); err == nil && strings.Contains(t, ":") {
			return TimeOfDay(us), nil
		}
		return 0, fmt.Errorf("invalid input syntax for type time: %q", s)
	}
	h, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	sec, _ := strconv.Atoi(m[3] + "0")
	sec /= 10
	frac := 0
	if m[4] != "" {
		frac, _ = strconv.Atoi((m[4] + "00000")[:6])
	}
	us := int64(h)*Hour + int64(mi)*Minute + int64(sec)*Second + int64(frac)
	if mi > 59 || sec > 59 || us > Day {
		return 0, fmt.Errorf("date/time field value out of range: %q", s)
	}
	return us, nil
}

// TimeOfDay returns the time of day of a timestamp of us microseconds.
func TimeOfDay(us int64) int64 {
	t := us % Day
	if t < 0 {
		t += Day
	}
	return t
}

// ParseTimestampTZExplicit is ParseTimestampTZ in UTC that also reports
// whether the text carried its own offset or zone (an instant whatever
// the session's zone).
func ParseTimestampTZExplicit(s string) (us int64, explicit bool, err error) {
	explicit = tzSuffix.MatchString(strings.TrimSpace(s))
	us, err = ParseTimestampTZ(s, time.UTC)
	return us, explicit, err
}
