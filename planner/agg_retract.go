package planner

import "github.com/streamsql/streamsql/sqlerr"

// Retractable reports whether aggregate call c can take back a value its
// input retracts: count, sum and avg subtract; min and max keep the
// multiset of their group's values (value → count) so a retracted extreme
// finds the next one; DISTINCT keeps each distinct value's count. The
// collecting aggregates (array_agg, jsonb_agg, jsonb_object_agg) cannot.
func Retractable(c AggCall) bool {
	switch c.Fn {
	case "count", "sum", "avg", "min", "max":
		return true
	}
	return false
}

// AggregateRetracts reports whether a's input retracts rows, so its
// accumulators must take values back (exec picks the retracting ones only
// then, keeping the append-only fast path for append-only inputs). A node
// with no input (built by hand, as in operator tests) is append-only.
func AggregateRetracts(a *Aggregate) bool { return a.Input != nil && !PropsOf(a.Input).AppendOnly }

// multisetNote qualifies the state bound of aggregate a over a
// retracting input whose min, max or DISTINCT calls keep each distinct
// value of a group with its count: that state grows with the distinct
// values per group, within the bound on the groups.
func multisetNote(a *Aggregate) string {
	if !AggregateRetracts(a) {
		return ""
	}
	for _, c := range a.Aggs {
		if c.Fn == "min" || c.Fn == "max" || c.Distinct {
			return " (min/max/DISTINCT keep each distinct value per group)"
		}
	}
	return ""
}

// checkRetractingAggregate refuses an aggregate over a retracting input
// that calls an aggregate unable to take values back, naming it.
func checkRetractingAggregate(a *Aggregate) error {
	if !AggregateRetracts(a) {
		return nil
	}
	for _, c := range a.Aggs {
		if !Retractable(c) {
			return sqlerr.New(sqlerr.FeatureNotSupport, "%s over a retracting input is not supported: it cannot take back a retracted row (%s)", c.Fn, a.String()).
				WithHint("use count, sum, avg, min or max over the retracting input, or make the input emit final rows only (EMIT ON WINDOW CLOSE, no LATE DATA UPDATE)")
		}
	}
	return nil
}
