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

// sqlUnits are the unit keywords that may follow an interval literal in
// an expression, singular.
var sqlUnits = map[string]bool{
	"MICROSECOND": true, "MILLISECOND": true, "SECOND": true, "MINUTE": true, "HOUR": true,
	"DAY": true, "WEEK": true, "MONTH": true, "QUARTER": true, "YEAR": true,
}

// sqlUnit returns the singular unit keyword when t is one (SECOND or
// SECONDS, MONTH or MONTHS, ...), or "".
func sqlUnit(t token) string {
	if t.kind != tIdent {
		return ""
	}
	u := strings.ToUpper(t.text)
	if sqlUnits[u] {
		return u
	}
	if s := strings.TrimSuffix(u, "S"); sqlUnits[s] {
		return s
	}
	return ""
}

// parseIntervalText parses Postgres interval text ('10 seconds', '1 hour
// 30 minutes', '10s', '00:00:10'; types.ParseIntervalValue's grammar)
// into microseconds: the streaming clauses need a fixed length.
func parseIntervalText(s string) (int64, error) {
	v, err := types.ParseIntervalValue(s, "")
	if err != nil {
		return 0, fmt.Errorf("invalid interval %q: want '<number> <unit>'", s)
	}
	us, ok := types.IntervalDuration(v)
	if !ok {
		return 0, fmt.Errorf("interval %q has months, which have no fixed length", s)
	}
	return us, nil
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
