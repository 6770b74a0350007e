package funcs

import (
	"strings"
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// tmField is what TO_TIMESTAMP(text, template) has read so far.
type tmField struct {
	year, month, day, hour, min, sec, us int64
	yearDigits                           int
	pm, hour12                           bool
}

// fieldWidths are the digits a numeric pattern reads when another
// pattern follows without a separator (0: as many as there are).
var fieldWidths = map[string]int{
	"YYYY": 4, "YYY": 3, "YY": 2, "Y": 1, "MM": 2, "DD": 2, "DDD": 3, "HH": 2, "HH12": 2,
	"HH24": 2, "MI": 2, "SS": 2, "MS": 3, "US": 6, "J": 0, "SSSS": 5, "SSSSS": 5, "CC": 2, "Q": 1, "D": 1, "ID": 1,
}

var (
	errTmplSyntax = func(what, field string) *sqlerr.Error {
		return sqlerr.New(sqlerr.InvalidDatetime, "invalid value %q for %q", what, field)
	}
	errFieldRange = sqlerr.New(CodeTimestampRange, "date/time field value out of range")
)

// toTimestampText is TO_TIMESTAMP(text, template): the fields the
// template names are read from the text; the others are the start of
// year 1 (Postgres starts at 1 BC). The result is UTC.
func toTimestampText(s, f types.Value) (types.Value, *sqlerr.Error) {
	tm := tmField{year: 1, month: 1, day: 1}
	in := s.S
	nodes := parseTemplate(f.S)
	for i, n := range nodes {
		var err *sqlerr.Error
		if n.field == "" {
			in = skipText(in, n.text)
			continue
		}
		adjacent := i+1 < len(nodes) && nodes[i+1].field != ""
		if in, err = tm.read(strings.TrimLeft(in, " "), n.field, adjacent && !n.fm); err != nil {
			return types.NullValue, err
		}
	}
	return tm.timestamp()
}

// skipText consumes the template's literal text: a blank skips any
// blanks, any other character one character of the input.
func skipText(in, text string) string {
	for _, c := range text {
		if c == ' ' {
			in = strings.TrimLeft(in, " ")
			continue
		}
		if in != "" && !isDigitByte(in[0]) {
			in = in[1:]
		}
	}
	return in
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// read consumes one pattern's value from in.
func (tm *tmField) read(in, field string, fixed bool) (string, *sqlerr.Error) {
	if w, ok := fieldWidths[field]; ok {
		return tm.readNumber(in, field, w, fixed)
	}
	switch field {
	case "MONTH", "Month", "month", "MON", "Mon", "mon":
		return tm.readName(in, field, monthNames)
	case "DAY", "Day", "day", "DY", "Dy", "dy":
		return tm.readName(in, field, dayNames)
	case "AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.":
		return tm.readMeridiem(in, field)
	}
	return in, sqlerr.New(sqlerr.FeatureNotSupport, "the template pattern %q is not supported in to_timestamp", field)
}

var (
	monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
	dayNames   = []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
)

// readName reads a month or day name, in full or its first three
// letters as the pattern says, in any letter case.
func (tm *tmField) readName(in, field string, names []string) (string, *sqlerr.Error) {
	short := len(field) <= 3
	lower := strings.ToLower(in)
	for i, name := range names {
		if short {
			name = name[:3]
		}
		if strings.HasPrefix(lower, name) {
			if len(names) == 12 {
				tm.month = int64(i + 1)
			}
			return in[len(name):], nil
		}
	}
	return in, errTmplSyntax(firstWord(in), field)
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " -/:,."); i >= 0 {
		return s[:i]
	}
	return s
}

func (tm *tmField) readMeridiem(in, field string) (string, *sqlerr.Error) {
	n := len(field)
	if len(in) < n {
		return in, errTmplSyntax(in, field)
	}
	switch strings.ToUpper(strings.ReplaceAll(in[:n], ".", "")) {
	case "AM":
		tm.pm = false
	case "PM":
		tm.pm = true
	default:
		return in, errTmplSyntax(in[:n], field)
	}
	tm.hour12 = true
	return in[n:], nil
}

// readNumber reads a numeric field: exactly width digits when another
// pattern follows directly, else up to width (any number for 0).
func (tm *tmField) readNumber(in, field string, width int, fixed bool) (string, *sqlerr.Error) {
	neg := false
	if field == "YYYY" && strings.HasPrefix(in, "-") {
		neg, in = true, in[1:]
	}
	n := 0
	for n < len(in) && isDigitByte(in[n]) && (width == 0 || n < width || (!fixed && field == "YYYY")) {
		n++
	}
	if n == 0 || (fixed && width > 0 && n < width) {
		return in, errTmplSyntax(firstWord(in), field)
	}
	var v int64
	for _, c := range in[:n] {
		v = v*10 + int64(c-'0')
		if v > 1<<40 {
			return in, errFieldRange
		}
	}
	if neg {
		v = -v
	}
	tm.set(field, v, n)
	return in[n:], nil
}

// set stores a numeric field; MS and US count by the digits written
// ('5' is half a second's 500 ms, as in Postgres).
func (tm *tmField) set(field string, v int64, digits int) {
	switch field {
	case "YYYY", "YYY", "YY", "Y":
		tm.year, tm.yearDigits = v, digits
	case "MM":
		tm.month = v
	case "DD":
		tm.day = v
	case "HH", "HH12":
		tm.hour, tm.hour12 = v, true
	case "HH24":
		tm.hour = v
	case "MI":
		tm.min = v
	case "SS":
		tm.sec = v
	case "MS":
		for ; digits < 3; digits++ {
			v *= 10
		}
		tm.us += v * 1000
	case "US":
		for ; digits < 6; digits++ {
			v *= 10
		}
		tm.us += v
	case "SSSS", "SSSSS":
		tm.hour, tm.min, tm.sec = v/3600, v/60%60, v%60
	case "DDD":
		tm.month, tm.day = 1, v
	case "J":
		t := time.Unix((v-2440588)*86400, 0).UTC()
		tm.year, tm.month, tm.day = int64(t.Year()), int64(t.Month()), int64(t.Day())
	}
}

// timestamp checks the fields and builds the timestamp.
func (tm *tmField) timestamp() (types.Value, *sqlerr.Error) {
	if tm.yearDigits > 0 && tm.yearDigits <= 2 {
		tm.year = adjustYear(tm.year)
	}
	if tm.hour12 {
		if tm.hour < 1 || tm.hour > 12 {
			return types.NullValue, sqlerr.New(CodeTimestampRange, "hour \"%d\" is invalid for the 12-hour clock", tm.hour)
		}
		tm.hour %= 12
		if tm.pm {
			tm.hour += 12
		}
	}
	if tm.month < 1 || tm.month > 12 || tm.day < 1 || tm.day > 366 || tm.hour > 24 || tm.min > 59 || tm.sec > 60 || tm.year == 0 {
		return types.NullValue, errFieldRange
	}
	t := time.Date(int(tm.year), time.Month(tm.month), int(tm.day), int(tm.hour), int(tm.min), int(tm.sec), 0, time.UTC)
	if tm.day > 31 || (t.Day() != int(tm.day) && tm.day <= 31) {
		if !(tm.month == 1 && tm.day > 31) { // DDD: day of year
			return types.NullValue, errFieldRange
		}
	}
	us, ok := addMicros(t.UnixMicro(), tm.us)
	if !ok || t.Year() > 294276 {
		return types.NullValue, ErrTSRange
	}
	return okv(types.TimestampValue(us))
}

func addMicros(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0) || b == 0
}

// adjustYear maps a two-digit year to the one nearest 2020, as Postgres
// does: 70-99 are 1970-1999, 00-69 are 2000-2069.
func adjustYear(y int64) int64 {
	if y < 70 {
		return y + 2000
	}
	if y < 100 {
		return y + 1900
	}
	return y
}
