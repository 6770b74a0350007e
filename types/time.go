package types

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Microsecond units used across streamsql for timestamps and intervals.
const (
	Microsecond int64 = 1
	Millisecond       = 1000 * Microsecond
	Second            = 1000 * Millisecond
	Minute            = 60 * Second
	Hour              = 60 * Minute
	Day               = 24 * Hour
)

// MinTime is the watermark before any event: it is below every timestamp.
const MinTime int64 = -1 << 63

// EndOfTime is the watermark of a bounded input that has ended: every
// window closes, and nothing more will come.
const EndOfTime int64 = 1<<63 - 1

// FormatTimestamp prints microseconds since the epoch as Postgres prints a
// timestamp: `2024-01-01 00:00:05`, with fractional digits only when they
// are non-zero (trailing zeros trimmed).
func FormatTimestamp(us int64) string {
	s, bc := formatLocal(time.UnixMicro(us).UTC())
	return s + bc
}

// formatCivil formats t with layout, which starts with the four-digit
// year "2006". A year before 1 AD prints as Postgres prints it: the year
// counted back from 1 BC (Go's year 0 is 1 BC) and bc " BC", which goes
// at the very end of the value.
func formatCivil(t time.Time, layout string) (s, bc string) {
	if y := t.Year(); y <= 0 {
		return fmt.Sprintf("%04d", 1-y) + t.Format(layout[len("2006"):]), " BC"
	}
	return t.Format(layout), ""
}

// ParseTimestamp accepts `2024-01-01 00:00:05[.ffffff]`, `2024-01-01`, and
// RFC 3339 (`2024-01-01T00:00:05Z`, with offset). It returns microseconds.
func ParseTimestamp(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutSuffix(s, " BC"); ok {
		return parseBC(s, rest)
	}
	layouts := []string{
		"2006-01-02 15:04:05.999999999",
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02",
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("invalid timestamp %q: want 'YYYY-MM-DD HH:MM:SS[.fff]' or RFC 3339", s)
}

// parseBC reads rest, the text s before its " BC" era marker: a year
// counted back from 1 BC (Go's year 0). Go cannot parse a year below 1, so
// the year is moved up by whole 400-year cycles of the Gregorian calendar
// (which repeat it exactly, leap days included), parsed, and moved back.
func parseBC(s, rest string) (int64, error) {
	dash := strings.IndexByte(rest, '-')
	y, err := strconv.Atoi(rest[:max(dash, 0)])
	if dash < 1 || err != nil || y < 1 {
		return 0, fmt.Errorf("invalid timestamp %q: want 'YYYY-MM-DD HH:MM:SS[.fff] BC'", s)
	}
	astro, cycles := 1-y, 0
	for astro+400*cycles < 1 {
		cycles++
	}
	us, err := ParseTimestamp(fmt.Sprintf("%04d", astro+400*cycles) + rest[dash:])
	if err != nil {
		return 0, fmt.Errorf("invalid timestamp %q: %w", s, err)
	}
	return time.UnixMicro(us).UTC().AddDate(-400*cycles, 0, 0).UnixMicro(), nil
}

// FormatInterval prints a duration of us microseconds as plans and
// EXPLAIN show it: `00:00:10`, with days when larger (`1 day 00:00:00`).
// Interval values print with FormatIntervalValue.
func FormatInterval(us int64) string {
	neg := us < 0
	if neg {
		us = -us
	}
	days := us / Day
	rest := us % Day
	h := rest / Hour
	m := (rest % Hour) / Minute
	sec := (rest % Minute) / Second
	frac := rest % Second
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if days > 0 {
		b.WriteString(strconv.FormatInt(days, 10))
		if days == 1 {
			b.WriteString(" day ")
		} else {
			b.WriteString(" days ")
		}
	}
	fmt.Fprintf(&b, "%02d:%02d:%02d", h, m, sec)
	if frac != 0 {
		b.WriteString("." + strings.TrimRight(fmt.Sprintf("%06d", frac), "0"))
	}
	return b.String()
}

// ParseInterval parses interval text (ParseIntervalValue's grammar) that
// has a fixed length, such as `10 seconds`, `1 day 02:00:00` or
// `00:00:10`, into microseconds; an interval with months is refused.
func ParseInterval(s string) (int64, error) {
	v, err := ParseIntervalValue(s, "")
	if err != nil {
		return 0, fmt.Errorf("invalid interval %q: %w", s, err)
	}
	us, ok := IntervalDuration(v)
	if !ok {
		return 0, fmt.Errorf("invalid interval %q: months have no fixed length", s)
	}
	return us, nil
}
