package parser

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// unitMicros maps an interval unit word (singular, upper case) to
// microseconds.
var unitMicros = map[string]int64{
	"MICROSECOND": types.Microsecond,
	"MILLISECOND": types.Millisecond,
	"SECOND":      types.Second,
	"MINUTE":      types.Minute,
	"HOUR":        types.Hour,
	"DAY":         types.Day,
	"WEEK":        7 * types.Day,
}

// unitAliases are the abbreviations Postgres accepts inside interval text.
var unitAliases = map[string]string{
	"US": "MICROSECOND", "USEC": "MICROSECOND",
	"MS": "MILLISECOND", "MSEC": "MILLISECOND",
	"S": "SECOND", "SEC": "SECOND",
	"M": "MINUTE", "MIN": "MINUTE",
	"H": "HOUR", "HR": "HOUR",
	"D": "DAY", "W": "WEEK",
}

// unitName returns the canonical singular unit of a unit word (SECONDS,
// sec, ms, ...) or "".
func unitName(w string) string {
	u := strings.ToUpper(w)
	if _, ok := unitMicros[u]; ok {
		return u
	}
	if a, ok := unitAliases[u]; ok {
		return a
	}
	if s := strings.TrimSuffix(u, "S"); s != u {
		if _, ok := unitMicros[s]; ok {
			return s
		}
		if a, ok := unitAliases[s]; ok {
			return a
		}
	}
	return ""
}

// fullUnit returns the canonical unit when t is a unit keyword written in
// full (SECOND or SECONDS), as it may follow an interval literal.
func fullUnit(t token) string {
	if t.kind != tIdent {
		return ""
	}
	u := strings.ToUpper(t.text)
	if _, ok := unitMicros[u]; ok {
		return u
	}
	if s := strings.TrimSuffix(u, "S"); s != u {
		if _, ok := unitMicros[s]; ok {
			return s
		}
	}
	return ""
}

// scaleInterval returns n units in microseconds.
func scaleInterval(n float64, unit string) (int64, error) {
	v := n * float64(unitMicros[unit])
	if math.IsNaN(v) || math.Abs(v) > math.MaxInt64/2 {
		return 0, fmt.Errorf("interval out of range")
	}
	return int64(math.Round(v)), nil
}

// parseIntervalText parses the Postgres interval text '10 seconds',
// '1 hour 30 minutes', '10s' or '00:00:10' into microseconds.
func parseIntervalText(s string) (int64, error) {
	if strings.Count(s, ":") == 2 {
		return types.ParseInterval(s)
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, fmt.Errorf("empty interval")
	}
	var total int64
	for i := 0; i < len(f); i++ {
		num, unit := f[i], ""
		if j := strings.IndexFunc(num, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != '-' && r != '+' }); j > 0 {
			num, unit = f[i][:j], f[i][j:]
		} else if i+1 < len(f) {
			i++
			unit = f[i]
		}
		n, err := strconv.ParseFloat(num, 64)
		u := unitName(unit)
		if err != nil || u == "" || math.IsInf(n, 0) {
			return 0, fmt.Errorf("invalid interval %q: want '<number> <unit>'", s)
		}
		v, err := scaleInterval(n, u)
		if err != nil {
			return 0, err
		}
		total += v
	}
	return total, nil
}

// interval parses `INTERVAL '10' SECOND`, `INTERVAL '10 seconds'` or
// `INTERVAL 10 SECOND` at the cursor and returns microseconds. It refuses
// negative intervals, and zero unless allowZero.
func (c *cursor) interval(allowZero bool) (int64, *sqlerr.Error) {
	start := c.peek(0)
	if err := c.expect("INTERVAL"); err != nil {
		return 0, c.errAt(start, "expected INTERVAL '<n>' <unit>")
	}
	lit := c.next()
	if lit.kind != tString && lit.kind != tNumber {
		return 0, c.errAt(lit, "expected the interval text, as in INTERVAL '10' SECOND")
	}
	var us int64
	var err error
	if u := fullUnit(c.peek(0)); u != "" {
		c.next()
		n, perr := strconv.ParseFloat(strings.TrimSpace(lit.val()), 64)
		if perr != nil || math.IsInf(n, 0) {
			return 0, c.errAt(lit, "expected a number of "+strings.ToLower(u)+"s")
		}
		us, err = scaleInterval(n, u)
	} else {
		if lit.kind == tNumber {
			return 0, c.errAt(c.peek(0), "expected an interval unit such as SECOND")
		}
		us, err = parseIntervalText(lit.val())
	}
	switch {
	case err != nil:
		return 0, c.errAt(lit, err.Error())
	case us < 0 || (us == 0 && !allowZero):
		return 0, c.errAt(lit, "the interval must be positive")
	}
	return us, nil
}

// formatInterval renders microseconds as `INTERVAL 'n' UNIT` in the largest
// unit that divides it.
func formatInterval(us int64) string {
	for _, u := range []string{"DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND"} {
		if m := unitMicros[u]; us != 0 && us%m == 0 {
			return fmt.Sprintf("INTERVAL '%d' %s", us/m, u)
		}
	}
	if us == 0 {
		return "INTERVAL '0' SECOND"
	}
	return fmt.Sprintf("INTERVAL '%d' MICROSECOND", us)
}

// tidbIntervalLiteral renders microseconds as the `'n' UNIT` part of a TiDB
// interval (TiDB has no MILLISECOND unit).
func tidbIntervalLiteral(us int64) string {
	neg := ""
	if us < 0 {
		neg, us = "-", -us
	}
	for _, u := range []string{"DAY", "HOUR", "MINUTE", "SECOND"} {
		if m := unitMicros[u]; us != 0 && us%m == 0 {
			return fmt.Sprintf("'%s%d' %s", neg, us/m, u)
		}
	}
	if us == 0 {
		return "'0' SECOND"
	}
	return fmt.Sprintf("'%s%d' MICROSECOND", neg, us)
}
