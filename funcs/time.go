package funcs

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Time functions, in UTC on microsecond timestamps. EXTRACT(unit FROM ts)
// and DATE_PART('unit', ts) bind to "extract" with the unit as a constant
// lower-case string first (of a TIME, the time-of-day fields and epoch);
// the result is Int except for the units of
// ExtractResult that are Float ('second', 'epoch', 'julian', with the
// fraction). DATE_TRUNC('unit', ts) truncates (weeks start on Monday).
// DATE_BIN(stride, ts, origin) floors ts to a multiple of stride from
// origin. MAKE_TIMESTAMP builds a timestamp from its fields. TO_TIMESTAMP
// converts epoch seconds, or reads text by a template (parse_time.go). NOW (also CURRENT_TIMESTAMP) and PROCTIME are
// volatile TIMESTAMPTZ clocks that exec never evaluates: an ad-hoc query reads them as the statement time (the
// planner folds them to a constant), a view only in a temporal filter (planner/temporal.go), which reads now()
// as the watermark and PROCTIME() as the wall clock.
var timeFuncs = []*Func{
	{Name: "extract", Doc: "a field of a timestamp (`EXTRACT(field FROM ts)`, `date_part('field', ts)`); fields below", Strict: true,
		Aliases: []string{"date_part"}, Sigs: sigs(sig(types.String, types.Timestamp, types.Int), sig(types.String, types.Time, types.Int)),
		Prepare: prepareExtract},
	{Name: "date_trunc", Doc: "ts truncated to the unit (weeks start on Monday)", Strict: true,
		Sigs: sigs(sig(types.String, types.Timestamp, types.Timestamp)), Prepare: prepareTrunc},
	{Name: "date_bin", Doc: "ts floored to a multiple of stride counted from origin", Strict: true,
		Sigs: sigs(sig(types.Interval, types.Timestamp, types.Timestamp, types.Timestamp)), Impl: Impl{F3: dateBin}},
	{Name: "make_timestamp", Doc: "the timestamp of year, month, day, hour, minute and seconds", Strict: true,
		Sigs: sigs(sig(types.Int, types.Int, types.Int, types.Int, types.Int, types.Float, types.Timestamp)), Impl: Impl{FN: makeTimestamp}},
	{Name: "to_timestamp", Doc: "the timestamp of epoch seconds, or of text read by a template (`to_timestamp('05 Jan 2024', 'DD Mon YYYY')`)", Strict: true,
		Sigs: sigs(sig(types.Float, types.Timestamp), sig(types.String, types.String, types.Timestamp)),
		Impl: Impl{F2: toTimestampText, F1: func(a types.Value) (types.Value, *sqlerr.Error) {
			f := math.Round(a.F * 1e6)
			if math.IsNaN(f) || f < -9.2e18 || f > 9.2e18 {
				return types.NullValue, ErrTSRange
			}
			return okv(types.TimestampValue(int64(f)))
		}}},
	{Name: "now", Doc: "the statement time; in a view's temporal filter, the input's watermark", Volatile: true, Sigs: sigs(Sig{Result: types.TimestampTZ}),
		Aliases: []string{"current_timestamp", "localtimestamp", "sysdate"}},
	{Name: "proctime", Doc: "the statement time; in a view's temporal filter, the wall clock (processing time)", Volatile: true, Sigs: sigs(Sig{Result: types.TimestampTZ})},
}

// ExtractUnits lists the units EXTRACT and DATE_PART accept.
var ExtractUnits = []string{
	"microseconds", "milliseconds", "second", "minute", "hour", "day",
	"dow", "isodow", "doy", "week", "month", "quarter", "year", "isoyear",
	"decade", "century", "millennium", "epoch", "julian",
}

// TruncUnits lists the units DATE_TRUNC accepts.
var TruncUnits = []string{
	"microseconds", "milliseconds", "second", "minute", "hour", "day",
	"week", "month", "quarter", "year", "decade", "century", "millennium",
}

// ExtractResult is the kind EXTRACT returns for a normalised unit:
// DOUBLE for the ones with a fraction, BIGINT for the others.
func ExtractResult(unit string) types.Kind {
	switch unit {
	case "second", "epoch", "julian":
		return types.Float
	}
	return types.Int
}

// TimeOfDayUnit reports whether unit is a field of the time of day, which
// EXTRACT refuses for a DATE (as Postgres does).
func TimeOfDayUnit(unit string) bool {
	switch unit {
	case "microseconds", "milliseconds", "second", "minute", "hour":
		return true
	}
	return false
}

// unitSpellings maps every accepted spelling of a unit to its name in
// ExtractUnits and TruncUnits.
var unitSpellings = func() map[string]string {
	m := map[string]string{}
	for canon, alts := range map[string]string{
		"microseconds": "microsecond us usec usecs",
		"milliseconds": "millisecond ms msec msecs",
		"second":       "seconds s sec secs",
		"minute":       "minutes m min mins",
		"hour":         "hours h hr hrs",
		"day":          "days d",
		"week":         "weeks w",
		"month":        "months mon mons",
		"quarter":      "quarters",
		"year":         "years y yr yrs",
		"decade":       "decades",
		"century":      "centuries",
		"millennium":   "millennia millenniums",
		"julian":       "j",
		"dow":          "", "isodow": "", "doy": "", "isoyear": "", "epoch": "",
	} {
		m[canon] = canon
		for _, a := range strings.Fields(alts) {
			m[a] = canon
		}
	}
	return m
}()

// NormalizeUnit lower-cases a time unit and folds the plural and
// abbreviated spellings ("seconds", "ms", "us") to the names in
// ExtractUnits and TruncUnits. It returns "" for an unknown unit.
func NormalizeUnit(u string) string {
	return unitSpellings[strings.ToLower(strings.TrimSpace(u))]
}

func unitOf(fn string, consts []*types.Value) (string, *sqlerr.Error) {
	if consts[0] == nil || consts[0].K != types.String {
		return "", sqlerr.New(sqlerr.FeatureNotSupport, "the unit of %s must be a constant string", fn)
	}
	return NormalizeUnit(consts[0].S), nil
}

func prepareExtract(consts []*types.Value) (Impl, *sqlerr.Error) {
	unit, err := unitOf("extract", consts)
	if err != nil {
		return Impl{}, err
	}
	f := extractFn(unit)
	if f == nil {
		return Impl{}, sqlerr.New(sqlerr.InvalidParameter, "unit '%s' not supported by EXTRACT", consts[0].S)
	}
	return Impl{F2: func(_, ts types.Value) (types.Value, *sqlerr.Error) {
		if ts.K == types.Time && unit == "hour" { // 24:00:00 is hour 24
			return okv(types.IntValue(ts.I / types.Hour))
		}
		return okv(f(ts.I))
	}}, nil
}

func prepareTrunc(consts []*types.Value) (Impl, *sqlerr.Error) {
	unit, err := unitOf("date_trunc", consts)
	if err != nil {
		return Impl{}, err
	}
	f := truncFn(unit)
	if f == nil {
		return Impl{}, sqlerr.New(sqlerr.InvalidParameter, "unit '%s' not supported by DATE_TRUNC", consts[0].S)
	}
	return Impl{F2: func(_, ts types.Value) (types.Value, *sqlerr.Error) {
		us, ok := f(ts.I)
		if !ok {
			return types.NullValue, ErrTSRange
		}
		return okv(types.TimestampValue(us))
	}}, nil
}

// FloorDiv divides rounding toward negative infinity.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorMod is the remainder of FloorDiv, with the sign of b.
func FloorMod(a, b int64) int64 { return a - FloorDiv(a, b)*b }

func utc(us int64) time.Time { return time.UnixMicro(us).UTC() }

// pgYear is Postgres's year of a timestamp: 1 BC is -1, not 0.
func pgYear(us int64) int64 {
	y := int64(utc(us).Year())
	if y <= 0 {
		return y - 1
	}
	return y
}

// unixJulianDay is the Julian day number of 1970-01-01.
const unixJulianDay = 2440588

func intField(f func(us int64) int64) func(int64) types.Value {
	return func(us int64) types.Value { return types.IntValue(f(us)) }
}

// extractFn returns the field extractor for a normalised unit, with
// Postgres's definitions (century 21 starts in 2001, decade is year / 10,
// weeks and isoyear are ISO 8601's).
func extractFn(unit string) func(us int64) types.Value {
	switch unit {
	case "microseconds":
		return intField(func(us int64) int64 { return FloorMod(us, types.Minute) })
	case "milliseconds":
		return intField(func(us int64) int64 { return FloorMod(us, types.Minute) / types.Millisecond })
	case "second":
		return func(us int64) types.Value {
			return types.FloatValue(float64(FloorMod(us, types.Minute)) / float64(types.Second))
		}
	case "minute":
		return intField(func(us int64) int64 { return FloorMod(us, types.Hour) / types.Minute })
	case "hour":
		return intField(func(us int64) int64 { return FloorMod(us, types.Day) / types.Hour })
	case "day":
		return intField(func(us int64) int64 { return int64(utc(us).Day()) })
	case "dow":
		return intField(func(us int64) int64 { return int64(utc(us).Weekday()) })
	case "isodow":
		return intField(func(us int64) int64 { return FloorMod(FloorDiv(us, types.Day)+3, 7) + 1 })
	case "doy":
		return intField(func(us int64) int64 { return int64(utc(us).YearDay()) })
	case "week":
		return intField(func(us int64) int64 { _, w := utc(us).ISOWeek(); return int64(w) })
	case "isoyear":
		return intField(func(us int64) int64 { y, _ := utc(us).ISOWeek(); return int64(y) })
	case "month":
		return intField(func(us int64) int64 { return int64(utc(us).Month()) })
	case "quarter":
		return intField(func(us int64) int64 { return int64(utc(us).Month()-1)/3 + 1 })
	case "year":
		return intField(pgYear)
	case "decade":
		return intField(func(us int64) int64 { return FloorDiv(int64(utc(us).Year()), 10) })
	case "century":
		return intField(func(us int64) int64 { return era(int64(utc(us).Year()), 100) })
	case "millennium":
		return intField(func(us int64) int64 { return era(int64(utc(us).Year()), 1000) })
	case "epoch":
		return func(us int64) types.Value { return types.FloatValue(float64(us) / float64(types.Second)) }
	case "julian":
		return func(us int64) types.Value {
			return types.FloatValue(float64(unixJulianDay+FloorDiv(us, types.Day)) + float64(FloorMod(us, types.Day))/float64(types.Day))
		}
	}
	return nil
}

// era is the century (n = 100) or millennium (n = 1000) of an
// astronomical year: the first one starts in year 1, and the ones before
// it count down from -1, as in Postgres.
func era(y, n int64) int64 {
	if y > 0 {
		return (y + n - 1) / n
	}
	return -((n - 1 - (y - 1)) / n)
}

// truncFn returns the DATE_TRUNC function for a normalised unit; weeks
// start on Monday, decades, centuries and millennia on their first year.
func truncFn(unit string) func(us int64) (int64, bool) {
	step := func(d int64) func(int64) (int64, bool) {
		return func(us int64) (int64, bool) { return us - FloorMod(us, d), true }
	}
	switch unit {
	case "microseconds":
		return func(us int64) (int64, bool) { return us, true }
	case "milliseconds":
		return step(types.Millisecond)
	case "second":
		return step(types.Second)
	case "minute":
		return step(types.Minute)
	case "hour":
		return step(types.Hour)
	case "day":
		return step(types.Day)
	case "week":
		return func(us int64) (int64, bool) {
			d := FloorDiv(us, types.Day)
			return (d - FloorMod(d+3, 7)) * types.Day, true
		}
	case "month", "quarter", "year", "decade", "century", "millennium":
		return func(us int64) (int64, bool) { return truncCalendar(unit, us) }
	}
	return nil
}

// truncCalendar truncates to the first day of a month, quarter, year,
// decade, century or millennium.
func truncCalendar(unit string, us int64) (int64, bool) {
	t := utc(us)
	y, m := t.Year(), t.Month()
	switch unit {
	case "quarter":
		m = (m-1)/3*3 + 1
	case "year":
		m = 1
	case "decade":
		y, m = int(FloorDiv(int64(y), 10)*10), 1
	case "century":
		y, m = int((era(int64(y), 100)-1)*100+1), 1
	case "millennium":
		y, m = int((era(int64(y), 1000)-1)*1000+1), 1
	}
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).UnixMicro(), true
}

var (
	errStride       = sqlerr.New(CodeTimestampRange, "stride must be greater than zero")
	errStrideMonths = sqlerr.New(sqlerr.FeatureNotSupport, "timestamps cannot be binned into intervals containing months or years")
)

// dateBin is DATE_BIN(stride, ts, origin): origin plus the largest
// multiple of stride not beyond ts.
func dateBin(stride, ts, origin types.Value) (types.Value, *sqlerr.Error) {
	width, ok := types.IntervalDuration(stride)
	if !ok {
		return types.NullValue, errStrideMonths
	}
	if width <= 0 {
		return types.NullValue, errStride
	}
	diff, err := IntOp('-', ts.I, origin.I)
	if err != nil {
		return types.NullValue, ErrTSRange
	}
	delta := diff - FloorMod(diff, width)
	out, err := IntOp('+', origin.I, delta)
	if err != nil {
		return types.NullValue, ErrTSRange
	}
	return okv(types.TimestampValue(out))
}

// makeTimestamp is MAKE_TIMESTAMP(year, month, day, hour, min, sec); a
// negative year is BC, as in Postgres, and fields out of range fail
// with 22008.
func makeTimestamp(a []types.Value) (types.Value, *sqlerr.Error) {
	y, mo, d, h, mi, s := a[0].I, a[1].I, a[2].I, a[3].I, a[4].I, a[5].F
	if y == 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || y > 294276 || y < -4713 {
		return types.NullValue, sqlerr.New(CodeTimestampRange, "date field value out of range: %d-%02d-%02d", y, mo, d)
	}
	if h < 0 || h > 23 || mi < 0 || mi > 59 || !(s >= 0 && s < 60) {
		return types.NullValue, sqlerr.New(CodeTimestampRange, "time field value out of range: %d:%02d:%s", h, mi, fmt.Sprint(s))
	}
	if y < 0 {
		y++ // astronomical year: 1 BC is 0
	}
	day := time.Date(int(y), time.Month(mo), int(d), 0, 0, 0, 0, time.UTC)
	if day.Day() != int(d) {
		return types.NullValue, sqlerr.New(CodeTimestampRange, "date field value out of range: %d-%02d-%02d", a[0].I, mo, d)
	}
	us := day.UnixMicro() + h*types.Hour + mi*types.Minute + int64(math.Round(s*1e6))
	return okv(types.TimestampValue(us))
}
