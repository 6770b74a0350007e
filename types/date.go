package types

import (
	"fmt"
	"strings"
	"time"
)

// DateValue returns a Date value of days since 1970-01-01.
func DateValue(days int64) Value { return Value{K: Date, I: days} }

// FormatDate prints days since 1970-01-01 as Postgres prints a date:
// `2024-01-01`.
func FormatDate(days int64) string {
	s, bc := formatCivil(time.Unix(days*86400, 0).UTC(), "2006-01-02")
	return s + bc
}

// ParseDate reads `2024-01-01`, or any timestamp text ParseTimestamp
// accepts, whose time of day it drops (as Postgres's date input does).
// It returns days since 1970-01-01.
func ParseDate(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if d, err := time.Parse("2006-01-02", t); err == nil {
		return d.Unix() / 86400, nil
	}
	if us, err := ParseTimestamp(t); err == nil {
		return TimestampToDate(us), nil
	}
	return 0, fmt.Errorf("invalid input syntax for type date: %q: want 'YYYY-MM-DD'", s)
}

// TimestampToDate returns the day (since 1970-01-01) a timestamp of us
// microseconds falls on.
func TimestampToDate(us int64) int64 {
	d := us / Day
	if us%Day < 0 {
		d--
	}
	return d
}

// DateToTimestamp returns midnight of a day as microseconds; ok is false
// when it is out of the timestamp range.
func DateToTimestamp(days int64) (us int64, ok bool) {
	const limit = (1<<63 - 1) / Day
	if days > limit || days < -limit {
		return 0, false
	}
	return days * Day, true
}
