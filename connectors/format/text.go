package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/types"
)

// parseText converts the text of a field (a CSV field, a JSON string) to
// a non-VARCHAR column's value; the caller handles VARCHAR, whose string
// it allocates. got names the source kind for errors ("string", "field").
func parseText(col types.Column, b []byte, got string) (types.Value, error) {
	switch col.Type {
	case types.Int:
		if n, ok := parseInt(b); ok {
			return types.IntValue(n), nil
		}
	case types.Float:
		if f, err := strconv.ParseFloat(string(b), 64); err == nil {
			return types.FloatValue(f), nil
		}
	case types.Bool:
		switch strings.ToLower(string(b)) {
		case "true", "t", "1":
			return types.BoolValue(true), nil
		case "false", "f", "0":
			return types.BoolValue(false), nil
		}
	case types.Timestamp:
		if n, ok := parseInt(b); ok {
			if us, ok := epochMillis(n); ok {
				return types.TimestampValue(us), nil
			}
		} else if us, ok := parseTimestamp(b); ok {
			return types.TimestampValue(us), nil
		}
	case types.TimestampTZ: // epoch milliseconds, or text (zone-less text is UTC)
		if n, ok := parseInt(b); ok {
			if us, ok := epochMillis(n); ok {
				return types.TimestampTZValue(us), nil
			}
		} else if us, err := types.ParseTimestampTZ(string(b), time.UTC); err == nil {
			return types.TimestampTZValue(us), nil
		}
	case types.Time:
		if us, err := types.ParseTime(string(b)); err == nil {
			return types.TimeValue(us), nil
		}
	case types.Interval:
		if v, err := types.ParseIntervalValue(string(b), ""); err == nil {
			return v, nil
		}
	case types.Decimal:
		return parseDecimal(col, b, got)
	case types.Date:
		if d, err := types.ParseDate(string(b)); err == nil {
			return types.DateValue(d), nil
		}
	case types.JSONB: // a CSV field of JSON text
		if v, err := types.ParseJSONB(string(b)); err == nil {
			return v, nil
		}
	case types.Null:
		return types.NullValue, nil
	}
	return types.Value{}, typeError(col, got, b)
}

// parseInt parses a decimal int64 with an optional sign, nothing else.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg || b[0] == '+' {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// epochMillis converts epoch milliseconds to microseconds, refusing
// values that overflow.
func epochMillis(ms int64) (int64, bool) {
	if ms > math.MaxInt64/1000 || ms < math.MinInt64/1000 {
		return 0, false
	}
	return ms * 1000, true
}

// parseTimestamp reads 'YYYY-MM-DD HH:MM:SS[.f…]' (or with 'T', and an
// optional trailing 'Z') without allocating, and falls back to
// types.ParseTimestamp for every other accepted form (offsets, dates).
func parseTimestamp(b []byte) (int64, bool) {
	if us, ok := fastTimestamp(b); ok {
		return us, true
	}
	us, err := types.ParseTimestamp(string(b))
	return us, err == nil
}

func fastTimestamp(b []byte) (int64, bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != ' ' && b[10] != 'T') || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	y, ok1 := digits(b[0:4])
	mo, ok2 := digits(b[5:7])
	d, ok3 := digits(b[8:10])
	h, ok4 := digits(b[11:13])
	mi, ok5 := digits(b[14:16])
	s, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	rest := b[19:]
	var frac int64
	if len(rest) > 0 && rest[0] == '.' {
		rest = rest[1:]
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			if n < 6 {
				frac = frac*10 + int64(rest[n]-'0')
			}
			n++
		}
		if n == 0 {
			return 0, false
		}
		for i := n; i < 6; i++ {
			frac *= 10
		}
		rest = rest[n:]
	}
	if len(rest) == 1 && rest[0] == 'Z' {
		rest = rest[1:]
	}
	if len(rest) != 0 {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	return ((days*24+h)*60+mi)*60*types.Second + s*types.Second + frac, true
}

func digits(b []byte) (int64, bool) {
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic
// Gregorian date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// ParseText converts the text form of a value (a CSV field, a raw Kafka
// key) to col's type, VARCHAR included.
func ParseText(col types.Column, b []byte) (types.Value, error) {
	if col.Type == types.String {
		return types.StringValue(string(b)), nil
	}
	return parseText(col, b, "text")
}

// parseDecimal reads numeric text (a JSON number or a string, a CSV
// field) into a DECIMAL column, fitted to its (p, s): 0.2 is 0.20 in a
// DECIMAL(12,2). Text that is not a number, or a value beyond p, is a
// decode error (a dead letter), never a rounded or truncated row.
func parseDecimal(col types.Column, b []byte, got string) (types.Value, error) {
	v, err := types.ParseDecimal(string(b))
	if err != nil {
		return types.Value{}, typeError(col, got, b)
	}
	if v, err = types.DecimalFit(v, col.Precision, col.Scale); err != nil {
		return types.Value{}, fmt.Errorf("column %q: %w", col.Name, err)
	}
	return v, nil
}
