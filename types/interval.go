package types

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// Postgres's interval has three parts, kept apart because they are not
// fixed lengths of each other: months (a month is 28 to 31 days when
// added to a timestamp), days (24 hours for TIMESTAMP) and microseconds.
// Comparison and ordering treat a month as 30 days and a day as 24 hours,
// as Postgres does.

// DaysPerMonth is the length of a month when intervals compare or
// cascade fractions, as in Postgres.
const DaysPerMonth = 30

// Errors of interval input and arithmetic; callers wrap them with the
// SQLSTATE (22007 syntax, 22008 range).
var (
	ErrIntervalSyntax = errors.New("invalid input syntax for type interval")
	ErrIntervalRange  = errors.New("interval out of range")
	ErrTimestampRange = errors.New("timestamp out of range")
)

// IntervalOf returns the Interval of months, days and us microseconds.
func IntervalOf(months, days int32, us int64) Value {
	return Value{K: Interval, F: float64(months), D: days, I: us}
}

// IntervalParts returns an Interval's months, days and microseconds.
func (v Value) IntervalParts() (months, days int32, us int64) {
	return int32(v.F), v.D, v.I
}

// IntervalDuration returns an Interval as a fixed length in microseconds
// (a day is 24 hours); ok is false when it has months, which have no
// fixed length, or when it overflows.
func IntervalDuration(v Value) (us int64, ok bool) {
	months, days, micros := v.IntervalParts()
	if months != 0 {
		return 0, false
	}
	return addInt(int64(days)*Day, micros)
}

func addInt(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// intervalSpan splits an interval into whole days (a month as 30) and the
// microseconds of the last day, in [0, Day): the key Postgres orders by.
func intervalSpan(v Value) (days, us int64) {
	months, d, micros := v.IntervalParts()
	days = int64(months)*DaysPerMonth + int64(d) + micros/Day
	us = micros % Day
	if us < 0 {
		us += Day
		days--
	}
	return days, us
}

// IntervalCmp orders two Intervals as Postgres does: by their length with
// a month as 30 days and a day as 24 hours ('1 mon' = '30 days').
func IntervalCmp(a, b Value) int {
	ad, au := intervalSpan(a)
	bd, bu := intervalSpan(b)
	if c := cmpInt(ad, bd); c != 0 {
		return c
	}
	return cmpInt(au, bu)
}

// FormatIntervalValue prints an Interval as Postgres does with its
// default IntervalStyle: `1 year 2 mons 3 days 04:05:06.5`, the parts
// that are non-zero, the time when it is non-zero or nothing else is.
func FormatIntervalValue(v Value) string {
	months, days, us := v.IntervalParts()
	var b strings.Builder
	zero, before := true, false
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if !zero {
			b.WriteByte(' ')
		}
		if before && n > 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.FormatInt(n, 10))
		b.WriteString(" " + unit)
		if n != 1 {
			b.WriteByte('s')
		}
		before, zero = n < 0, false
	}
	part(int64(months)/12, "year")
	part(int64(months)%12, "mon")
	part(int64(days), "day")
	if zero || us != 0 {
		if !zero {
			b.WriteByte(' ')
		}
		switch {
		case us < 0:
			b.WriteByte('-')
		case before:
			b.WriteByte('+')
		}
		writeClock(&b, uabs(us))
	}
	return b.String()
}

func uabs(x int64) uint64 {
	if x < 0 {
		return uint64(-(x + 1)) + 1
	}
	return uint64(x)
}

// writeClock writes us microseconds as HH:MM:SS[.ffffff] (hours may pass
// 24; trailing fractional zeros trimmed).
func writeClock(b *strings.Builder, us uint64) {
	h, m, s, f := us/uint64(Hour), us/uint64(Minute)%60, us/uint64(Second)%60, us%uint64(Second)
	two := func(n uint64) {
		if n < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.FormatUint(n, 10))
	}
	two(h)
	b.WriteByte(':')
	two(m)
	b.WriteByte(':')
	two(s)
	if f != 0 {
		fs := strconv.FormatUint(f+1000000, 10)[1:]
		b.WriteString("." + strings.TrimRight(fs, "0"))
	}
}

// intervalUnits maps the unit words of interval input (lower case,
// singular, plural and abbreviated, as Postgres reads them) to a unit.
var intervalUnits = map[string]string{
	"microsecond": "us", "microseconds": "us", "us": "us", "usec": "us", "usecs": "us", "useconds": "us", "usecond": "us",
	"millisecond": "ms", "milliseconds": "ms", "ms": "ms", "msec": "ms", "msecs": "ms", "mseconds": "ms", "msecond": "ms",
	"second": "s", "seconds": "s", "s": "s", "sec": "s", "secs": "s",
	"minute": "min", "minutes": "min", "m": "min", "min": "min", "mins": "min",
	"hour": "h", "hours": "h", "h": "h", "hr": "h", "hrs": "h",
	"day": "d", "days": "d", "d": "d",
	"week": "w", "weeks": "w", "w": "w",
	"month": "mon", "months": "mon", "mon": "mon", "mons": "mon",
	"year": "y", "years": "y", "y": "y", "yr": "y", "yrs": "y",
	"decade": "dec", "decades": "dec", "dec": "dec", "decs": "dec",
	"century": "c", "centuries": "c", "c": "c", "cent": "c",
	"millennium": "mil", "millennia": "mil", "mil": "mil", "mils": "mil",
	"quarter": "q", "quarters": "q",
}

// IntervalUnit returns the canonical unit of an interval unit word
// (`SECONDS`, `mon`, `ms`, ...), or "" when it is none.
func IntervalUnit(word string) string { return intervalUnits[strings.ToLower(word)] }

// intervalAcc accumulates interval parts while reading input; fractional
// parts cascade down as Postgres does (months to 30-day days, days to
// seconds).
type intervalAcc struct {
	months, days, us float64
}

// add adds n of the canonical unit u.
func (a *intervalAcc) add(n float64, u string) {
	switch u {
	case "us":
		a.us += n
	case "ms":
		a.us += n * float64(Millisecond)
	case "s":
		a.us += n * float64(Second)
	case "min":
		a.us += n * float64(Minute)
	case "h":
		a.us += n * float64(Hour)
	case "d":
		a.addDays(n)
	case "w":
		a.addDays(n * 7)
	case "mon":
		a.addMonths(n)
	case "q":
		a.addMonths(n * 3)
	case "y":
		a.months += math.Trunc(n)*12 + math.Round(frac(n)*12)
	case "dec":
		a.months += math.Trunc(n)*120 + math.Round(frac(n)*120)
	case "c":
		a.months += math.Trunc(n)*1200 + math.Round(frac(n)*1200)
	case "mil":
		a.months += math.Trunc(n)*12000 + math.Round(frac(n)*12000)
	}
}

func frac(n float64) float64 { return n - math.Trunc(n) }

func (a *intervalAcc) addDays(n float64) {
	a.days += math.Trunc(n)
	a.us += frac(n) * float64(Day)
}

func (a *intervalAcc) addMonths(n float64) {
	a.months += math.Trunc(n)
	a.addDays(frac(n) * DaysPerMonth)
}

// value returns the accumulated interval, failing outside the ranges.
func (a *intervalAcc) value() (Value, error) {
	us := math.Round(a.us)
	if math.Abs(a.months) > math.MaxInt32 || math.Abs(a.days) > math.MaxInt32 ||
		math.IsNaN(us) || math.Abs(us) >= 9.2e18 {
		return NullValue, ErrIntervalRange
	}
	return IntervalOf(int32(a.months), int32(a.days), int64(us)), nil
}

// ParseIntervalValue reads Postgres interval input: number-unit pairs
// (`1 year 2 mons`, `10s`, `1.5 hours`), a clock `[-]HH:MM[:SS[.f]]`
// (`1 day 02:00:00`), an optional leading `@` and trailing `ago`. A bare
// number counts in unit (a canonical unit as IntervalUnit returns, or ""
// for seconds), which is how `INTERVAL '1' MONTH` reads.
func ParseIntervalValue(s, unit string) (Value, error) {
	f := strings.Fields(strings.ToLower(s))
	if len(f) > 0 && f[0] == "@" {
		f = f[1:]
	}
	neg := false
	if len(f) > 0 && f[len(f)-1] == "ago" {
		neg, f = true, f[:len(f)-1]
	}
	if len(f) == 0 {
		return NullValue, ErrIntervalSyntax
	}
	if unit == "" {
		unit = "s"
	}
	var acc intervalAcc
	for i := 0; i < len(f); i++ {
		tok := f[i]
		if strings.Contains(tok, ":") {
			us, ok := parseClock(tok)
			if !ok {
				return NullValue, ErrIntervalSyntax
			}
			acc.us += us
			continue
		}
		num, u := splitNumber(tok)
		if u == "" && i+1 < len(f) && IntervalUnit(f[i+1]) != "" {
			i++
			u = f[i]
		}
		n, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return NullValue, ErrIntervalSyntax
		}
		cu := unit
		if u != "" {
			if cu = IntervalUnit(u); cu == "" {
				return NullValue, ErrIntervalSyntax
			}
		}
		acc.add(n, cu)
	}
	if neg {
		acc = intervalAcc{-acc.months, -acc.days, -acc.us}
	}
	return acc.value()
}

// splitNumber splits `10s` into `10` and `s`.
func splitNumber(tok string) (num, unit string) {
	j := strings.IndexFunc(tok, func(r rune) bool {
		return (r < '0' || r > '9') && r != '.' && r != '-' && r != '+' && r != 'e'
	})
	if j <= 0 {
		return tok, ""
	}
	return tok[:j], tok[j:]
}

// parseClock reads `[-+]H:MM[:SS[.ffffff]]` as microseconds.
func parseClock(s string) (float64, bool) {
	sign := 1.0
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = -1, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	h, e1 := strconv.ParseUint(parts[0], 10, 32)
	m, e2 := strconv.ParseUint(parts[1], 10, 32)
	if e1 != nil || e2 != nil || m > 59 {
		return 0, false
	}
	us := float64(h)*float64(Hour) + float64(m)*float64(Minute)
	if len(parts) == 3 {
		sec, err := strconv.ParseFloat(parts[2], 64)
		if err != nil || sec < 0 || sec >= 60 || strings.ContainsAny(parts[2], "eE+-") {
			return 0, false
		}
		us += sec * float64(Second)
	}
	return sign * us, true
}

// IntervalNeg negates every part of an Interval.
func IntervalNeg(v Value) (Value, error) {
	m, d, us := v.IntervalParts()
	if m == math.MinInt32 || d == math.MinInt32 || us == math.MinInt64 {
		return NullValue, ErrIntervalRange
	}
	return IntervalOf(-m, -d, -us), nil
}

// IntervalAdd adds two Intervals part by part.
func IntervalAdd(a, b Value) (Value, error) {
	am, ad, au := a.IntervalParts()
	bm, bd, bu := b.IntervalParts()
	m, d := int64(am)+int64(bm), int64(ad)+int64(bd)
	us, ok := addInt(au, bu)
	if !ok || m != int64(int32(m)) || d != int64(int32(d)) {
		return NullValue, ErrIntervalRange
	}
	return IntervalOf(int32(m), int32(d), us), nil
}

// IntervalScale multiplies an Interval by f as Postgres's interval_mul
// does: whole months and days stay, their fractions cascade to days
// (a month as 30) and to microseconds.
func IntervalScale(v Value, f float64) (Value, error) {
	return intervalScale(v, func(x float64) float64 { return x * f })
}

// IntervalDiv divides an Interval by f (not zero) as Postgres's
// interval_div does, cascading fractions as IntervalScale.
func IntervalDiv(v Value, f float64) (Value, error) {
	return intervalScale(v, func(x float64) float64 { return x / f })
}

func intervalScale(v Value, op func(float64) float64) (Value, error) {
	m, d, us := v.IntervalParts()
	rm, rd := op(float64(m)), op(float64(d))
	if math.IsNaN(rm) || math.IsNaN(rd) || math.Abs(rm) > math.MaxInt32 || math.Abs(rd) > math.MaxInt32 {
		return NullValue, ErrIntervalRange
	}
	months, days := math.Trunc(rm), math.Trunc(rd)
	monthRest := tsRound((rm - months) * DaysPerMonth)
	secRest := tsRound((rd - days + monthRest - math.Trunc(monthRest)) * 86400)
	if math.Abs(secRest) >= 86400 {
		days += math.Trunc(secRest / 86400)
		secRest -= math.Trunc(secRest/86400) * 86400
	}
	days += math.Trunc(monthRest)
	t := math.RoundToEven(op(float64(us)) + secRest*float64(Second))
	if math.IsNaN(t) || math.Abs(t) >= 9.2e18 || math.Abs(days) > math.MaxInt32 {
		return NullValue, ErrIntervalRange
	}
	return IntervalOf(int32(months), int32(days), int64(t)), nil
}

// tsRound rounds to microsecond precision (Postgres's TSROUND).
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

// TimestampAddInterval adds an Interval to a timestamp of us microseconds
// as Postgres does: months on the calendar (the day clamped to the
// month's last), then days, then microseconds.
func TimestampAddInterval(ts int64, v Value) (int64, error) {
	months, days, us := v.IntervalParts()
	if months != 0 {
		t := time.UnixMicro(ts).UTC()
		y, mo, d := t.Date()
		total := int64(y)*12 + int64(mo) - 1 + int64(months)
		ny, nm := int(floorDiv64(total, 12)), time.Month(floorMod64(total, 12)+1)
		if last := daysIn(ny, nm); d > last {
			d = last
		}
		tod := t.Sub(time.Date(y, mo, t.Day(), 0, 0, 0, 0, time.UTC)).Microseconds()
		nt := time.Date(ny, nm, d, 0, 0, 0, 0, time.UTC)
		if ny < -290000 || ny > 290000 {
			return 0, ErrTimestampRange
		}
		ts = nt.UnixMicro() + tod
	}
	ts, ok := addInt(ts, int64(days)*Day)
	if ok {
		ts, ok = addInt(ts, us)
	}
	if !ok {
		return 0, ErrTimestampRange
	}
	return ts, nil
}

// TimestampSub returns a - b (microsecond timestamps) as Postgres's
// timestamp - timestamp: whole days and the rest.
func TimestampSub(a, b int64) (Value, error) {
	diff := a - b
	if (b < 0 && diff < a) || (b > 0 && diff > a) {
		return NullValue, ErrIntervalRange
	}
	return IntervalOf(0, int32(diff/Day), diff%Day), nil
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod64(a, b int64) int64 { return a - floorDiv64(a, b)*b }

// CodecIntervalParts is the kind byte the state and change codecs write
// for an Interval with months or days: microseconds, months and days as
// varints. An Interval of microseconds only keeps the Interval kind byte
// and its older one-varint encoding, so earlier keys and values read the
// same.
const CodecIntervalParts byte = 0x40

// HasIntervalParts reports whether v is an Interval with months or days.
func HasIntervalParts(v Value) bool { return v.K == Interval && (v.F != 0 || v.D != 0) }

// AppendIntervalParts appends CodecIntervalParts' payload of v.
func AppendIntervalParts(dst []byte, v Value) []byte {
	m, d, us := v.IntervalParts()
	dst = binary.AppendVarint(dst, us)
	dst = binary.AppendVarint(dst, int64(m))
	return binary.AppendVarint(dst, int64(d))
}

// DecodeIntervalParts reads AppendIntervalParts' payload and returns the
// Interval and the rest of b.
func DecodeIntervalParts(b []byte) (Value, []byte, error) {
	var parts [3]int64
	for i := range parts {
		x, k := binary.Varint(b)
		if k <= 0 || (i > 0 && x != int64(int32(x))) {
			return NullValue, nil, errors.New("bad interval encoding")
		}
		parts[i], b = x, b[k:]
	}
	return IntervalOf(int32(parts[1]), int32(parts[2]), parts[0]), b, nil
}

// AppendIntervalBinary appends v in Postgres's binary interval format:
// microseconds (int64), days (int32), months (int32), big-endian.
func AppendIntervalBinary(dst []byte, v Value) []byte {
	m, d, us := v.IntervalParts()
	dst = binary.BigEndian.AppendUint64(dst, uint64(us))
	dst = binary.BigEndian.AppendUint32(dst, uint32(d))
	return binary.BigEndian.AppendUint32(dst, uint32(m))
}

// ParseIntervalBinary reads Postgres's binary interval format.
func ParseIntervalBinary(b []byte) (Value, error) {
	if len(b) != 16 {
		return NullValue, ErrIntervalSyntax
	}
	us := int64(binary.BigEndian.Uint64(b))
	return IntervalOf(int32(binary.BigEndian.Uint32(b[12:])), int32(binary.BigEndian.Uint32(b[8:])), us), nil
}
