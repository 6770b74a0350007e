package difftest

import "fmt"

// TIMESTAMPTZ and TIME productions. Both sessions run in TimeZone UTC
// (run_test.go), so what depends on the session zone is compared in UTC,
// and the other zones enter through AT TIME ZONE: a TIMESTAMP read as
// wall time in one zone and shown as wall time in another (daylight-saving
// changes included), extract and date_trunc of a TIMESTAMPTZ, interval
// arithmetic on one, its text, and TIME from a timestamp, moved by an
// interval, subtracted from another, its fields and arrays of it, and arrays of
// TIMESTAMPTZ printed and read in the session's zone.

// zones are the IANA zones the productions convert through: half-hour
// and quarter-hour offsets, both hemispheres' daylight saving, and one
// with a 30-minute DST shift.
var zones = []string{"'Europe/Berlin'", "'America/New_York'", "'Asia/Kolkata'", "'Australia/Lord_Howe'", "'Asia/Kathmandu'", "'UTC'"}

// tmpl is an expression written the same way in both dialects: f with
// each %s replaced by an argument's SQL.
type tmpl struct {
	f    string
	args []expr
	k    kind
}

func (t tmpl) kind() kind { return t.k }
func (t tmpl) sql(d dialect) string {
	a := make([]any, len(t.args))
	for i, x := range t.args {
		a[i] = x.sql(d)
	}
	return fmt.Sprintf(t.f, a...)
}

// tstz is a TIMESTAMPTZ expression's SQL: a timestamp read as wall time
// in a zone.
func tstz(g *gen, d int) expr {
	return tmpl{f: "(%s AT TIME ZONE " + g.oneOf(zones...) + ")", args: []expr{g.expr(kTs, d)}, k: kTs}
}

func init() {
	// timezone(zone, x), AT TIME ZONE as a call, both ways: the sweep's.
	scalarFuncs = append(scalarFuncs, &scalarFunc{name: "timezone", result: kTs, args: func(g *gen, d int) []expr {
		return []expr{lit{k: kStr, st: g.oneOf(zones...)}, tmpl{f: "timezone(" + g.oneOf(zones...) + ", %s)", args: []expr{g.expr(kTs, d)}, k: kTs}}
	}})
	exprProductions[kTs] = append(exprProductions[kTs],
		func(g *gen, d int) expr { // the wall time in another zone
			return tmpl{f: "(%s AT TIME ZONE " + g.oneOf(zones...) + ")", args: []expr{tstz(g, d)}, k: kTs}
		},
		func(g *gen, d int) expr { // truncated on the session's (UTC) wall clock, shown in a zone
			return tmpl{f: "(date_trunc(" + g.oneOf("'day'", "'hour'", "'month'") + ", %s) AT TIME ZONE " + g.oneOf(zones...) + ")", args: []expr{tstz(g, d)}, k: kTs}
		},
		func(g *gen, d int) expr { // interval arithmetic on a timestamptz
			iv := g.oneOf("INTERVAL '1 day'", "INTERVAL '1 mon 2 hours'", "INTERVAL '36 hours'")
			return tmpl{f: "((%s " + g.oneOf("+", "-") + " " + iv + ") AT TIME ZONE " + g.oneOf(zones...) + ")", args: []expr{tstz(g, d)}, k: kTs}
		},
		func(g *gen, d int) expr { // date + time
			x := g.expr(kTs, d)
			return tmpl{f: "(CAST(%s AS DATE) + CAST(%s AS TIME))", args: []expr{x, x}, k: kTs}
		},
	)
	exprProductions[kInt] = append(exprProductions[kInt],
		func(g *gen, d int) expr {
			return tmpl{f: "CAST(extract(" + g.oneOf("hour", "day", "minute", "dow") + " FROM %s) AS BIGINT)", args: []expr{tstz(g, d)}, k: kInt}
		},
		func(g *gen, d int) expr { // a field of a TIME, after TIME arithmetic
			return tmpl{f: "CAST(extract(" + g.oneOf("hour", "minute", "microseconds") + " FROM %s) AS BIGINT)", args: []expr{timeArith(g, d)}, k: kInt}
		},
	)
	exprProductions[kFloat] = append(exprProductions[kFloat], func(g *gen, d int) expr {
		return tmpl{f: "date_part(" + g.oneOf("'second'", "'epoch'") + ", %s)", args: []expr{timeArith(g, d)}, k: kFloat}
	})
	exprProductions[kStr] = append(exprProductions[kStr], func(g *gen, d int) expr {
		if g.pick(2) == 0 {
			return tmpl{f: "CAST(%s AS VARCHAR)", args: []expr{tstz(g, d)}, k: kStr}
		}
		switch g.pick(5) {
		case 3: // a TIMESTAMPTZ[] printed in the session zone, read back in it, printed or subscripted
			arr := "CAST(CAST(ARRAY[%s, NULL, %s] AS VARCHAR) AS TIMESTAMPTZ[])"
			if g.pick(2) == 0 {
				return tmpl{f: "CAST(" + arr + " AS VARCHAR)", args: []expr{tstz(g, d), tstz(g, d)}, k: kStr}
			}
			return tmpl{f: "CAST((" + arr + ")[" + g.oneOf("1", "2", "3") + "] AS VARCHAR)", args: []expr{tstz(g, d), tstz(g, d)}, k: kStr}
		case 0:
			return tmpl{f: "CAST(%s AS VARCHAR)", args: []expr{timeArith(g, d)}, k: kStr}
		case 2: // a TIME[] built, printed, read back and subscripted
			return tmpl{f: "CAST((CAST(CAST(ARRAY[%s, NULL, %s] AS VARCHAR) AS TIME[]))[" + g.oneOf("1", "3") + "] AS VARCHAR)",
				args: []expr{timeArith(g, d), timeArith(g, d)}, k: kStr}
		case 1: // time − time, an interval
			return tmpl{f: "CAST((CAST(%s AS TIME) - CAST(%s AS TIME)) AS VARCHAR)", args: []expr{g.expr(kTs, d), g.expr(kTs, d)}, k: kStr}
		}
		return tmpl{f: "CAST(CAST(%s AS TIME) AS VARCHAR)", args: []expr{g.expr(kTs, d)}, k: kStr}
	})
	exprProductions[kBool] = append(exprProductions[kBool], func(g *gen, d int) expr {
		if g.pick(2) == 0 {
			return tmpl{f: "(CAST(%s AS TIME) " + g.oneOf("<", ">=", "=") + " TIME '12:00:00')", args: []expr{g.expr(kTs, d)}, k: kBool}
		}
		return tmpl{f: "(%s < %s)", args: []expr{tstz(g, d), tstz(g, d)}, k: kBool}
	})
}

// timeArith is a TIME from a timestamp, moved by an interval (time ±
// interval wraps on a 24-hour clock; months and days do not count).
func timeArith(g *gen, d int) expr {
	iv := g.oneOf("INTERVAL '1 hour'", "INTERVAL '90 minutes'", "INTERVAL '1 day 2 hours'", "INTERVAL '-36 hours'", "INTERVAL '1 mon 25 hours 0.5 seconds'")
	if g.pick(2) == 0 {
		return tmpl{f: "(" + iv + " + CAST(%s AS TIME))", args: []expr{g.expr(kTs, d)}, k: kTime}
	}
	return tmpl{f: "(CAST(%s AS TIME) " + g.oneOf("+", "-") + " " + iv + ")", args: []expr{g.expr(kTs, d)}, k: kTime}
}
